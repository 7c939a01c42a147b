/// The quantities a sensor frame can carry, in one unit system: G for accelerations,
/// rad/s for rotation rates, rad for attitude angles.
public enum Quantity: Int, CaseIterable, Sendable {
    case accelX, accelY, accelZ  // raw accelerometer, includes gravity (G)
    case gyroX, gyroY, gyroZ  // rotation rate (rad/s): raw gyro, or the motion rate when no raw gyro exists
    case rateX, rateY, rateZ  // motionRotationRate (rad/s), bias-corrected by the device
    case userX, userY, userZ  // user acceleration, gravity removed (G)
    case gravityX, gravityY, gravityZ  // gravity vector (G)
    case pitch, roll, yaw  // attitude (rad)
    case quatX, quatY, quatZ, quatW  // attitude as a unit quaternion (the device's own, where it sends one)
    // Derived by `MotionStage` (per sender), stamped with the `derived` group:
    case tiltPitch, tiltRoll  // attitude pitch and roll (DEGREES, Core Motion's conventions)
    case tiltX, tiltY, tiltZ  // gravity direction in the device frame (unit vector)
    case zeroPitch, zeroRoll  // the same relative to the captured rest orientation (`zero`)
    case zeroX, zeroY, zeroZ
    case flick, shake, tap  // gesture strength on the frame it fires, else 0

    public static let count = 35
    /// The quantities `MotionStage` fills.
    public static let firstDerived = Quantity.tiltPitch

    /// The sensor group whose timestamp stamps this quantity.
    @inlinable public var group: SensorGroup {
        switch self {
        case .accelX, .accelY, .accelZ: return .accelerometer
        case .gyroX, .gyroY, .gyroZ: return .gyro
        case .tiltPitch, .tiltRoll, .tiltX, .tiltY, .tiltZ, .zeroPitch, .zeroRoll, .zeroX, .zeroY, .zeroZ,
            .flick, .shake, .tap:
            return .derived
        default: return .motion
        }
    }
}

/// A group of values that the device samples together under one timestamp.
public enum SensorGroup: Int, CaseIterable, Sendable {
    case accelerometer = 0, gyro = 1, motion = 2
    /// Values computed from the others (tilt, gestures) by `MotionStage`, never by a parser.
    case derived = 3
    public static let count = 4
    @inlinable public var bit: UInt8 { 1 << UInt8(rawValue) }
    public var name: String {
        switch self {
        case .accelerometer: return "accelerometer"
        case .gyro: return "gyro"
        case .motion: return "motion"
        case .derived: return "derived"
        }
    }
}

/// One parsed sample: each sensor group that carried a *new* sample on this line, with its
/// own timestamp (seconds of sensor time since the stream's first sample) and its values.
/// Values of groups not listed in `newGroups` are stale and must not be used.
public struct SensorFrame: Sendable {
    /// Bit set of `SensorGroup.bit` for the groups with a new sample in this frame.
    public var newGroups: UInt8 = 0
    /// Per-group time in seconds since the first sample of the stream (monotonic).
    public var times: InlineArray<4, Double> = .init(repeating: 0)
    /// Gestures in progress (bits of `Gesture.bit`), set by `MotionStage`: a stroke while it
    /// lasts, shaking while it goes on, a tap for a moment. Read by `hold=`.
    public var activeGestures: UInt8 = 0
    /// Values indexed by `Quantity.rawValue`; NaN means "no value".
    public var values: InlineArray<35, Double> = .init(repeating: .nan)
    /// Values that are not built-in quantities (`osc:` mapping sources), indexed by the slot
    /// `OSCRoutes.assign` gave them; stamped with the motion group's time. NaN: no value.
    public var custom: InlineArray<16, Double> = .init(repeating: .nan)
    public static let customSlots = 16
    /// What the motion stage's learned gestures and poses give (`gesture:NAME`,
    /// `gesture:NAME.progress`, `pose:NAME`), at `LearnedSource.slot`: each gesture's strength
    /// on the frame it is recognised (else 0) from 0, its progress (0-1) from
    /// `learnedProgressBase`, each pose's value from `learnedPoseBase`. NaN without a model.
    public var learned: InlineArray<40, Double> = .init(repeating: .nan)
    public static let learnedGestures = 16, learnedPoses = 8
    public static let learnedProgressBase = 16, learnedPoseBase = 32

    public init() {}

    @inlinable public func has(_ group: SensorGroup) -> Bool { newGroups & group.bit != 0 }
    @inlinable public func time(_ group: SensorGroup) -> Double { times[group.rawValue] }
    @inlinable public subscript(_ q: Quantity) -> Double {
        get { values[q.rawValue] }
        set { values[q.rawValue] = newValue }
    }

    /// The latest time among the groups present in this frame.
    @inlinable public var latestTime: Double {
        var t = -Double.infinity
        for g in 0..<SensorGroup.count where newGroups & (1 << UInt8(g)) != 0 { t = max(t, times[g]) }
        return t
    }
}
