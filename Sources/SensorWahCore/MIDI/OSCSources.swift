/// `--osc-out-sources`: the motion stage's derived quantities of each frame as one OSC bundle,
/// under `/sensorwah/source/SENDER/`:
///   `tilt ff`        attitude pitch and roll in degrees (when the frame has them)
///   `gravity fff`    the gravity direction in the device frame, a unit vector (tilt.x/y/z)
///   `flick f`, `shake f`, `tap f`   a gesture's strength, on the frame it fires
/// SENDER is the sender's name with the characters OSC reserves in addresses (space # * , / ?
/// [ ] { }) and control characters made `_`. Each sender's messages are built once and kept;
/// a frame's bundle only copies them and writes its numbers in place, so encoding a frame
/// allocates nothing once the output buffer has grown.
public struct OSCSourceEncoder {
    struct Templates {
        var tilt: [UInt8], gravity: [UInt8], flick: [UInt8], shake: [UInt8], tap: [UInt8]
    }
    private var cache: [String: Templates] = [:]
    /// Senders kept at most (a new one beyond it starts the cache afresh).
    static let maxSenders = 64

    public init() { cache.reserveCapacity(Self.maxSenders) }

    /// The address component for a sender's name.
    public static func addressName(_ sender: String) -> String {
        let reserved: Set<Character> = [" ", "#", "*", ",", "/", "?", "[", "]", "{", "}"]
        let s = String(
            sender.map { c -> Character in
                reserved.contains(c) || c.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f } ? "_" : c
            })
        return s.isEmpty ? "_" : s
    }

    static func template(_ address: String, floats: Int) -> [UInt8] {
        var m: [UInt8] = []
        OSCOut.appendString(address, into: &m)
        OSCOut.appendString("," + String(repeating: "f", count: floats), into: &m)
        m += [UInt8](repeating: 0, count: 4 * floats)
        return m
    }

    private mutating func templates(_ sender: String) -> Templates {
        if let t = cache[sender] { return t }
        if cache.count >= Self.maxSenders { cache.removeAll(keepingCapacity: true) }
        let base = "/sensorwah/source/\(Self.addressName(sender))/"
        let t = Templates(
            tilt: Self.template(base + "tilt", floats: 2), gravity: Self.template(base + "gravity", floats: 3),
            flick: Self.template(base + "flick", floats: 1), shake: Self.template(base + "shake", floats: 1),
            tap: Self.template(base + "tap", floats: 1))
        cache[sender] = t
        return t
    }

    /// Appends the frame's bundle to `out` (emptied first); false when the frame holds no
    /// derived quantity (nothing to send).
    public mutating func encode(
        _ frame: borrowing SensorFrame, sender: String, timetag: UInt64, into out: inout [UInt8]
    ) -> Bool {
        out.removeAll(keepingCapacity: true)
        let pitch = frame[.tiltPitch], roll = frame[.tiltRoll]
        let gx = frame[.tiltX], gy = frame[.tiltY], gz = frame[.tiltZ]
        let flick = frame[.flick], shake = frame[.shake], tap = frame[.tap]
        let hasTilt = pitch.isFinite && roll.isFinite
        let hasGravity = gx.isFinite && gy.isFinite && gz.isFinite
        guard hasTilt || hasGravity || flick > 0 || shake > 0 || tap > 0 else { return false }
        let t = templates(sender)
        out += Self.bundleHead
        OSCOut.appendBE(UInt32(truncatingIfNeeded: timetag >> 32), into: &out)
        OSCOut.appendBE(UInt32(truncatingIfNeeded: timetag), into: &out)
        if hasTilt { Self.append(t.tilt, count: 2, pitch, roll, into: &out) }
        if hasGravity { Self.append(t.gravity, count: 3, gx, gy, gz, into: &out) }
        if flick > 0 { Self.append(t.flick, count: 1, flick, into: &out) }
        if shake > 0 { Self.append(t.shake, count: 1, shake, into: &out) }
        if tap > 0 { Self.append(t.tap, count: 1, tap, into: &out) }
        return true
    }

    static let bundleHead: [UInt8] = Array("#bundle".utf8) + [0]

    /// One bundle element: its size, the template, then its `count` float arguments written
    /// over the template's trailing zeros.
    @inline(__always)
    static func append(
        _ template: [UInt8], count: Int, _ a: Double, _ b: Double = 0, _ c: Double = 0, into out: inout [UInt8]
    ) {
        OSCOut.appendBE(UInt32(template.count), into: &out)
        out += template
        let at = out.count - 4 * count
        put(a, at: at, into: &out)
        if count > 1 { put(b, at: at + 4, into: &out) }
        if count > 2 { put(c, at: at + 8, into: &out) }
    }

    @inline(__always)
    static func put(_ v: Double, at: Int, into out: inout [UInt8]) {
        let bits = Float(v).bitPattern
        out[at] = UInt8(truncatingIfNeeded: bits >> 24); out[at + 1] = UInt8(truncatingIfNeeded: bits >> 16)
        out[at + 2] = UInt8(truncatingIfNeeded: bits >> 8); out[at + 3] = UInt8(truncatingIfNeeded: bits)
    }
}
