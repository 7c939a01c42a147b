/// Writes decoded sensor frames as SensorLog-style CSV that `SensorParser` reads back to the
/// same frames: one `*_sinceReboot` timestamp column per sensor group (stream seconds, so the
/// first frame is near 0) and the motion columns in SensorWah's units (G, rad/s, rad).
///
/// A group without a new sample in a row repeats its previous timestamp (the parser reads
/// that as "held", as SensorLog's own sample-and-hold rows) and leaves its values empty; a
/// value with no reading (NaN) is an empty field. Numbers are written in their shortest
/// round-trip form, which the parser reads back exactly, so a recording replays to the same
/// CC stream as the live run. Used by `listen --record` for inputs that are not lines of
/// text (OSC); custom `osc:` values are not part of this format.
public struct FrameCSVWriter: Sendable {
    /// Column names in SensorLog's spelling, `name(unit)`; the quantity each value column holds.
    static let columns: [(name: String, quantity: Quantity?, group: SensorGroup)] = [
        ("accelerometerTimestamp_sinceReboot(s)", nil, .accelerometer),
        ("accelerometerAccelerationX(G)", .accelX, .accelerometer),
        ("accelerometerAccelerationY(G)", .accelY, .accelerometer),
        ("accelerometerAccelerationZ(G)", .accelZ, .accelerometer),
        ("gyroTimestamp_sinceReboot(s)", nil, .gyro),
        ("gyroRotationX(rad/s)", .gyroX, .gyro),
        ("gyroRotationY(rad/s)", .gyroY, .gyro),
        ("gyroRotationZ(rad/s)", .gyroZ, .gyro),
        ("motionTimestamp_sinceReboot(s)", nil, .motion),
        ("motionYaw(rad)", .yaw, .motion),
        ("motionRoll(rad)", .roll, .motion),
        ("motionPitch(rad)", .pitch, .motion),
        ("motionRotationRateX(rad/s)", .rateX, .motion),
        ("motionRotationRateY(rad/s)", .rateY, .motion),
        ("motionRotationRateZ(rad/s)", .rateZ, .motion),
        ("motionUserAccelerationX(G)", .userX, .motion),
        ("motionUserAccelerationY(G)", .userY, .motion),
        ("motionUserAccelerationZ(G)", .userZ, .motion),
        ("motionGravityX(G)", .gravityX, .motion),
        ("motionGravityY(G)", .gravityY, .motion),
        ("motionGravityZ(G)", .gravityZ, .motion),
        ("motionQuaternionX(R)", .quatX, .motion),
        ("motionQuaternionY(R)", .quatY, .motion),
        ("motionQuaternionZ(R)", .quatZ, .motion),
        ("motionQuaternionW(R)", .quatW, .motion)
    ]

    public static var header: String { columns.map(\.name).joined(separator: ",") + "\n" }

    var lastTimes: InlineArray<3, Double> = .init(repeating: .nan)

    public init() {}

    /// Appends one frame's row (with its line end) to `out`.
    /// A frame with no built-in value (only `osc:` values) writes nothing.
    public mutating func append(_ f: borrowing SensorFrame, to out: inout [UInt8]) {
        var any = false
        for c in Self.columns where f.newGroups & c.group.bit != 0 {
            if let q = c.quantity, f.values[q.rawValue].isFinite { any = true; break }
        }
        guard any else { return }
        for g in 0..<SensorGroup.count where f.newGroups & (1 << UInt8(g)) != 0 { lastTimes[g] = f.times[g] }
        var first = true
        for c in Self.columns {
            if !first { out.append(0x2C) }
            first = false
            let isNew = f.newGroups & c.group.bit != 0
            if let q = c.quantity {
                if isNew { Self.number(f.values[q.rawValue], to: &out) }
            } else {
                Self.number(lastTimes[c.group.rawValue], to: &out)
            }
        }
        out.append(0x0A)
    }

    static func number(_ v: Double, to out: inout [UInt8]) {
        guard v.isFinite else { return }  // no reading: an empty field
        out.append(contentsOf: v.description.utf8)
    }
}
