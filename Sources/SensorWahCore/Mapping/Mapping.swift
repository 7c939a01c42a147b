/// Where a mapping reads its value.
public enum Source: Sendable, Equatable, CustomStringConvertible {
    case axis(Quantity)
    case magnitude(Vector)
    /// An OSC address's argument (`osc:/address`, `osc:/address[N]`), read from a custom slot.
    case custom(OSCSource)
    /// A gesture or pose taught by example (`gesture:NAME`, `gesture:NAME.progress`,
    /// `pose:NAME`), read from the frame's learned slots.
    case learned(LearnedSource)

    public enum Vector: String, Sendable, CaseIterable {
        case accel, gyro, rate, user, gravity
        @usableFromInline var x: Quantity {
            switch self {
            case .accel: return .accelX
            case .gyro: return .gyroX
            case .rate: return .rateX
            case .user: return .userX
            case .gravity: return .gravityX
            }
        }
    }

    /// True for a source that fires once per movement (a built-in gesture, `gesture:NAME`): the
    /// only kind that plays `note=`, `toggle=` and an effect's `toggle`.
    public var isTriggerSource: Bool {
        if gesture != nil { return true }
        if case .learned(let l) = self { return l.kind == .gesture }
        return false
    }

    /// The gesture this source reports, if it is one.
    public var gesture: Gesture? {
        switch self {
        case .axis(.flick): return .flick
        case .axis(.shake): return .shake
        case .axis(.tap): return .tap
        default: return nil
        }
    }

    /// The same tilt relative to the captured rest orientation (`zero`), if this is a tilt.
    public var zeroed: Source? {
        switch self {
        case .axis(.tiltPitch): return .axis(.zeroPitch)
        case .axis(.tiltRoll): return .axis(.zeroRoll)
        case .axis(.tiltX): return .axis(.zeroX)
        case .axis(.tiltY): return .axis(.zeroY)
        case .axis(.tiltZ): return .axis(.zeroZ)
        case .axis(.zeroPitch), .axis(.zeroRoll), .axis(.zeroX), .axis(.zeroY), .axis(.zeroZ): return self
        default: return nil
        }
    }

    public var group: SensorGroup {
        switch self {
        case .axis(let q): return q.group
        case .magnitude(let v): return v.x.group
        case .custom: return .motion
        case .learned: return .derived
        }
    }

    /// Reads the source from a frame (NaN when absent).
    @inlinable public func read(_ f: borrowing SensorFrame) -> Double {
        switch self {
        case .axis(let q): return f.values[q.rawValue]
        case .magnitude(let v):
            let b = v.x.rawValue
            let x = f.values[b], y = f.values[b + 1], z = f.values[b + 2]
            return (x * x + y * y + z * z).squareRoot()
        case .custom(let c):
            return c.slot >= 0 && c.slot < SensorFrame.customSlots ? f.custom[c.slot] : .nan
        case .learned(let l):
            return l.slot >= 0 && l.slot < 40 ? f.learned[l.slot] : .nan
        }
    }

    static let vectorAliases: [String: Source.Vector] = [
        "accel": .accel, "acc": .accel, "accelerometer": .accel,
        "gyro": .gyro, "rotation": .gyro, "rotationrate": .gyro,
        "rate": .rate, "motionrate": .rate,
        "user": .user, "useraccel": .user, "useracceleration": .user,
        "gravity": .gravity, "grav": .gravity
    ]

    /// The names a source is written with (`osc:`, `gesture:` and `pose:` ones aside): what a
    /// mistyped one is compared with.
    public static let names: [String] = {
        var n = [
            "pitch", "roll", "yaw", "quat.x", "quat.y", "quat.z", "quat.w", "tilt.pitch", "tilt.roll", "tilt.x",
            "tilt.y", "tilt.z",
            "zero.pitch", "zero.roll", "zero.x", "zero.y", "zero.z", "flick", "shake", "tap"
        ]
        for v in ["accel", "gyro", "rate", "user", "gravity"] { n += ["x", "y", "z", "mag"].map { v + "." + $0 } }
        return n
    }()

    /// Parses `accel.x`, `gyro.z`, `user.y`, `gravity.x`, `rate.x`, `pitch`, `roll`, `yaw`, `accel.mag`.
    public init?(parsing text: String) {
        if text.count > 4, text.prefix(4).lowercased() == "osc:" {
            guard let c = OSCSource(parsing: String(text.dropFirst(4))) else { return nil }
            self = .custom(c); return
        }
        if let l = LearnedSource(parsing: text) { self = .learned(l); return }
        let t = text.lowercased()
        switch t {
        case "pitch", "attitude.pitch": self = .axis(.pitch); return
        case "roll", "attitude.roll": self = .axis(.roll); return
        case "yaw", "attitude.yaw": self = .axis(.yaw); return
        case "quat.x", "quaternion.x": self = .axis(.quatX); return
        case "quat.y", "quaternion.y": self = .axis(.quatY); return
        case "quat.z", "quaternion.z": self = .axis(.quatZ); return
        case "quat.w", "quaternion.w": self = .axis(.quatW); return
        case "tilt.pitch": self = .axis(.tiltPitch); return
        case "tilt.roll": self = .axis(.tiltRoll); return
        case "tilt.x": self = .axis(.tiltX); return
        case "tilt.y": self = .axis(.tiltY); return
        case "tilt.z": self = .axis(.tiltZ); return
        case "zero.pitch": self = .axis(.zeroPitch); return
        case "zero.roll": self = .axis(.zeroRoll); return
        case "zero.x": self = .axis(.zeroX); return
        case "zero.y": self = .axis(.zeroY); return
        case "zero.z": self = .axis(.zeroZ); return
        case "flick", "stroke", "gesture.flick": self = .axis(.flick); return
        case "shake", "gesture.shake": self = .axis(.shake); return
        case "tap", "knock", "gesture.tap": self = .axis(.tap); return
        default: break
        }
        let parts = t.split(separator: ".")
        guard parts.count == 2, let v = Source.vectorAliases[String(parts[0])] else { return nil }
        switch parts[1] {
        case "x": self = .axis(Quantity(rawValue: v.x.rawValue)!)
        case "y": self = .axis(Quantity(rawValue: v.x.rawValue + 1)!)
        case "z": self = .axis(Quantity(rawValue: v.x.rawValue + 2)!)
        case "mag", "magnitude": self = .magnitude(v)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .axis(let q):
            switch q {
            case .pitch: return "pitch"
            case .roll: return "roll"
            case .yaw: return "yaw"
            case .quatX: return "quat.x"
            case .quatY: return "quat.y"
            case .quatZ: return "quat.z"
            case .quatW: return "quat.w"
            case .tiltPitch: return "tilt.pitch"
            case .tiltRoll: return "tilt.roll"
            case .tiltX: return "tilt.x"
            case .tiltY: return "tilt.y"
            case .tiltZ: return "tilt.z"
            case .zeroPitch: return "zero.pitch"
            case .zeroRoll: return "zero.roll"
            case .zeroX: return "zero.x"
            case .zeroY: return "zero.y"
            case .zeroZ: return "zero.z"
            case .flick: return "flick"
            case .shake: return "shake"
            case .tap: return "tap"
            default:
                let base = q.rawValue / 3
                let vec = [Vector.accel, .gyro, .rate, .user, .gravity][base]
                return "\(vec.rawValue).\(["x", "y", "z"][q.rawValue % 3])"
            }
        case .magnitude(let v): return "\(v.rawValue).mag"
        case .custom(let c): return c.description
        case .learned(let l): return l.description
        }
    }

    /// Sensible defaults for this kind of source: range, bipolar, hard bound, plausible speed.
    public var defaults:
        (min: Double, max: Double, bipolar: Bool, bound: Double, maxSpeed: Double, jumpAllowance: Double)
    {
        switch self {
        case .axis(let q):
            switch q {
            case .accelX, .accelY, .accelZ, .gravityX, .gravityY, .gravityZ: return (-1, 1, true, 2.5, 40, 0.3)
            case .userX, .userY, .userZ: return (-1, 1, true, 2.5, 60, 0.3)
            case .gyroX, .gyroY, .gyroZ, .rateX, .rateY, .rateZ: return (-6, 6, true, 20, 400, 3)
            case .pitch: return (-Double.pi / 2, Double.pi / 2, true, 7, 60, 1)
            case .quatX, .quatY, .quatZ, .quatW: return (-1, 1, true, 1.5, .infinity, .infinity)
            case .tiltX, .tiltY, .tiltZ, .zeroX, .zeroY, .zeroZ: return (-1, 1, true, 1.5, .infinity, .infinity)
            case .tiltPitch, .zeroPitch: return (-90, 90, true, 1000, .infinity, .infinity)
            case .tiltRoll, .zeroRoll: return (-180, 180, true, 1000, .infinity, .infinity)
            // gestures: the range is the strength that gives velocity 1..127
            case .flick: return (10, 30, false, .infinity, .infinity, .infinity)
            case .shake: return (2, 5, false, .infinity, .infinity, .infinity)
            case .tap: return (2, 6, false, .infinity, .infinity, .infinity)
            default: return (-Double.pi, Double.pi, true, 7, .infinity, .infinity)  // roll, yaw wrap around
            }
        case .custom: return (0, 1, false, .infinity, .infinity, .infinity)
        // a learned gesture's strength is 0.5-1 (velocity 1-127); progress and poses 0-1
        case .learned(let l):
            return l.kind == .gesture
                ? (0.5, 1, false, .infinity, .infinity, .infinity) : (0, 1, false, .infinity, .infinity, .infinity)
        case .magnitude(let v):
            switch v {
            case .gyro, .rate: return (0, 10, false, 20, 400, 3)
            case .user: return (0, 1.5, false, 2.5, 60, 0.3)
            default: return (0, 2, false, 2.5, 40, 0.3)
            }
        }
    }
}

/// A gesture or pose taught by example as a mapping source: `gesture:NAME` (a trigger: its
/// strength, 0.5-1, on the frame the movement is recognised), `gesture:NAME.progress` (0-1
/// while the movement unfolds), `pose:NAME` (the value taught for the pose the wrist is
/// nearest, interpolated between poses). `slot` is where the frame carries it (given by
/// `LearnedSource.resolve` against the loaded model; -1 until then).
public struct LearnedSource: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case gesture, progress, pose }
    public var name: String
    public var kind: Kind
    public var slot: Int

    public init(name: String, kind: Kind, slot: Int = -1) { self.name = name; self.kind = kind; self.slot = slot }

    /// A name: letters, digits, `-` and `_`, up to 40.
    public static func validName(_ n: Substring) -> Bool {
        !n.isEmpty && n.count <= 40
            && n.unicodeScalars.allSatisfy {
                ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }

    public init?(parsing text: String) {
        let lower = text.lowercased()
        if lower.hasPrefix("gesture:") {
            var n = Substring(text.dropFirst(8)), kind = Kind.gesture
            if lower.hasSuffix(".progress") { n = n.dropLast(9); kind = .progress }
            guard Self.validName(n) else { return nil }
            self.init(name: String(n), kind: kind)
        } else if lower.hasPrefix("pose:") {
            let n = text.dropFirst(5)
            guard Self.validName(n) else { return nil }
            self.init(name: String(n), kind: .pose)
        } else {
            return nil
        }
    }

    public var description: String {
        switch kind {
        case .gesture: return "gesture:\(name)"
        case .progress: return "gesture:\(name).progress"
        case .pose: return "pose:\(name)"
        }
    }
}

/// An OSC address and argument index (from 0) as a mapping source; `slot` is the custom slot
/// of `SensorFrame` it is read from (given by `OSCRoutes.assign`; -1 until then).
public struct OSCSource: Sendable, Equatable, CustomStringConvertible {
    public var address: String
    public var argument: Int
    public var slot: Int

    public init(address: String, argument: Int = 0, slot: Int = -1) {
        self.address = address; self.argument = argument; self.slot = slot
    }

    /// `/some/address` or `/some/address[N]`, N from 0 to 15.
    public init?(parsing text: String) {
        var addr = Substring(text)
        var arg = 0
        if addr.hasSuffix("]"), let open = addr.lastIndex(of: "[") {
            guard let n = Int(addr[addr.index(after: open)..<addr.index(before: addr.endIndex)]),
                n >= 0, n < OSCMessage.storedArguments
            else { return nil }
            arg = n
            addr = addr[..<open]
        }
        guard addr.count >= 2, addr.first == "/", addr.last != "/", !addr.contains("//"),
            addr.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x23 && $0 != 0x2C })
        else { return nil }
        self.init(address: String(addr), argument: arg)
    }

    public var description: String { argument == 0 ? "osc:\(address)" : "osc:\(address)[\(argument)]" }
}

/// Where a mapping sends its value.
public enum Target: Sendable, Equatable, CustomStringConvertible {
    case controlChange(channel: UInt8, controller: UInt8)
    /// 14-bit CC: MSB on `controller` (0-31), LSB on `controller + 32`.
    case controlChange14(channel: UInt8, controller: UInt8)
    case pitchBend(channel: UInt8)
    /// A note per gesture: Note On with the gesture's velocity, Note Off `length` seconds later.
    case note(channel: UInt8, note: UInt8, length: Double)
    /// Each gesture flips a controller between 127 and 0.
    case toggle(channel: UInt8, controller: UInt8)
    /// Each gesture flips the wah between engaged and bypassed (`--wah-switch`; not MIDI).
    case wahSwitch
    /// A parameter of the effect chain (`fx=tremolo.rate`; not MIDI): a 14-bit value over the
    /// target's span, or with `toggle` flipped by a gesture.
    case effect(EffectTarget)

    public var channel: UInt8 {
        switch self {
        case .controlChange(let c, _), .controlChange14(let c, _), .pitchBend(let c), .note(let c, _, _),
            .toggle(let c, _):
            return c
        case .wahSwitch, .effect: return 0
        }
    }
    public var maxValue: Int {
        switch self {
        case .controlChange, .note, .toggle: return 127
        case .wahSwitch: return 1
        case .effect: return EffectTarget.steps
        default: return 16383
        }
    }
    /// Targets fired by a gesture (not following a value).
    public var isTrigger: Bool {
        switch self {
        case .note, .toggle, .wahSwitch: return true
        case .effect(let t): return t.toggle
        default: return false
        }
    }
    /// An effect parameter (`fx=`), not a MIDI message.
    public var isEffect: Bool {
        if case .effect = self { return true }
        return false
    }

    /// A switch a gesture flips (the wah's, an effect's `toggle`): it stays where it was put
    /// when a sender falls silent, at exit and across scenes.
    public var staysWhereSwitched: Bool {
        switch self {
        case .wahSwitch: return true
        case .effect(let t): return t.toggle
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .controlChange(let ch, let cc): return "CC \(cc) on channel \(ch + 1)"
        case .controlChange14(let ch, let cc): return "14-bit CC \(cc)/\(cc + 32) on channel \(ch + 1)"
        case .pitchBend(let ch): return "pitch bend on channel \(ch + 1)"
        case .note(let ch, let n, let len): return "note \(n) on channel \(ch + 1) (\(Int((len * 1000).rounded())) ms)"
        case .toggle(let ch, let cc): return "CC \(cc) toggle 127/0 on channel \(ch + 1)"
        case .wahSwitch: return "the wah's engage switch"
        case .effect(let t): return t.description
        }
    }
}

public enum Curve: Sendable, Equatable {
    case linear
    /// Slow start, fast end; `amount` > 0 sets how strongly (2-4 is musical).
    case exponential(Double)
    /// Fast start, slow end: the inverse of `.exponential`.
    case logarithmic(Double)

    @inlinable public func apply(_ u: Double) -> Double {
        switch self {
        case .linear: return u
        case .exponential(let k):
            guard k > 1e-9 else { return u }
            return (exp(k * u) - 1) / (exp(k) - 1)
        case .logarithmic(let k):
            guard k > 1e-9 else { return u }
            return log(1 + u * (exp(k) - 1)) / k
        }
    }
}

/// One mapping: a source, a target and the cleaning and shaping rules between them.
public struct Mapping: Sendable, Equatable {
    public var source: Source
    public var target: Target
    /// Input range: values are clamped into it, then normalised.
    public var inputMin: Double
    public var inputMax: Double
    /// Bipolar: `centre` maps to exactly 64 (8192 for 14-bit), each half scaled on its own.
    public var bipolar: Bool
    public var centre: Double
    public var invert = false
    /// Fraction (0-0.9) of the range around the rest point (bipolar) or at the bottom that outputs the rest value.
    public var deadZone = 0.0
    public var curve: Curve = .linear
    /// Smoothing time constant at rest, seconds (0 = off). One-euro filter.
    public var smoothing = 0.04
    /// One-euro speed coefficient: higher is more responsive on fast moves.
    public var beta = 0.5
    /// Hard bound: readings with |value| above it are dropped, not clamped (nil = no bound).
    public var rejectAbove: Double?
    /// Plausible speed (units/s) plus a fixed allowance: a jump beyond `maxSpeed * dt + jumpAllowance`
    /// from the last accepted reading is dropped, unless the new level persists for `jumpConfirm` samples.
    public var maxSpeed: Double
    public var jumpAllowance: Double
    public var jumpConfirm = 3
    /// Maximum messages per second for this mapping (0 = unlimited). Suppressed changes are sent late, never lost.
    public var rateLimit = 0.0
    /// Value sent at exit and after a sender falls silent (nil = the centre for bipolar, 0 otherwise).
    public var restValue: Int?
    /// Only frames from this sender (name or address) feed the mapping (nil = any sender).
    public var sender: String?
    /// While this gesture lasts (shaking, a stroke, a tap's moment) the value is frozen (`hold=`).
    public var hold: Gesture?
    /// ...or while this pose is held (`hold=palm-up`).
    public var holdPose: Pose?
    /// With `hold`: after the hold, the value moves on from where it was frozen instead of
    /// jumping to where the sensor is now; movement accumulates over holds (`relative`).
    public var relative = false
    /// Seconds over which a controller glides to rest when its sender falls silent, and back
    /// to the sensor when it returns (0: at once). Live input only.
    public var glide = 0.0

    public init(source: Source, target: Target) {
        let d = source.defaults
        self.source = source
        self.target = target
        self.inputMin = d.min
        self.inputMax = d.max
        self.bipolar = d.bipolar
        self.centre = (d.min + d.max) / 2
        self.rejectAbove = d.bound.isFinite ? d.bound : nil
        self.maxSpeed = d.maxSpeed
        self.jumpAllowance = d.jumpAllowance
    }

    /// The default: the fused tilt's X (gravity along the device's X axis, -1...1), relative to
    /// the orientation the stream starts in (`tilt.x zero`), to CC 11 (expression) on channel 1:
    /// the wrist level where it began is the middle (64), turned either way opens or closes.
    public static let `default` = Mapping(source: .axis(.zeroX), target: .controlChange(channel: 0, controller: 11))

    /// The bits of `SensorFrame.activeGestures` that freeze this mapping (0 = none).
    public var holdBits: UInt8 { (hold?.bit ?? 0) | (holdPose?.bit ?? 0) }

    /// Whether this mapping reads what the motion stage computes: a derived source (`tilt.*`,
    /// `zero.*`, a gesture) or a hold on a gesture or pose.
    public var needsMotionStage: Bool { source.group == .derived || holdBits != 0 }

    /// The value this mapping rests at.
    public var rest: Int {
        if let r = restValue { return min(max(r, 0), target.maxValue) }
        if target.isTrigger { return 0 }
        return bipolar ? (target.maxValue + 1) / 2 : 0
    }

    public var summary: String {
        var s = "\(source) -> \(target), range \(inputMin)...\(inputMax)"
        if bipolar { s += ", bipolar (rest at \(centre) = \((target.maxValue + 1) / 2))" }
        if invert { s += ", inverted" }
        if deadZone > 0 { s += ", dead zone \(deadZone)" }
        switch curve {
        case .linear: break
        case .exponential(let k): s += ", exponential curve \(k)"
        case .logarithmic(let k): s += ", logarithmic curve \(k)"
        }
        if !target.isTrigger {
            s += smoothing > 0 ? ", smoothing \(Int((smoothing * 1000).rounded())) ms" : ", no smoothing"
        }
        if let b = rejectAbove { s += ", drop readings beyond ±\(b)" }
        if rateLimit > 0 { s += ", at most \(Int(rateLimit)) msg/s" }
        if let snd = sender { s += ", sender \(snd)" }
        if let g = hold.map({ "\($0)" }) ?? holdPose.map({ "\($0)" }) {
            s += ", frozen while \(g)\(relative ? " (relative: moves on from the frozen value)" : "")"
        }
        return s
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
