/// What the common phone apps send over OSC, and how a stream of OSC packets becomes sensor
/// frames. Pure: the network adapter hands packets in and frames come out.
///
/// Addresses, argument order and units, with where each was confirmed (see docs/inputs.md, Live inputs):
/// - GyrOSC (iOS): `/gyrosc/accel` x y z in G (accelerometer with gravity: assumed from
///   consumers scaling it to ±1); `/gyrosc/gyro` is the *attitude*, pitch roll yaw in radians,
///   not a rotation rate (consumers read it as "pitch, roll, yaw" and convert radians to
///   degrees); `/gyrosc/rrate` rotation rate x y z in rad/s; `/gyrosc/grav` gravity in G
///   (assumed); `/gyrosc/quat` the attitude quaternion, w first then x y z (assumed: the
///   clones and simulators found send w first; one consumer reads x y z w).
/// - ZIG SIM (iOS, Android): one bundle per tick; `/<deviceUUID>/accel` user acceleration
///   (gravity removed) in G, `/<deviceUUID>/gravity` in G, `/<deviceUUID>/gyro` rotation rate
///   in rad/s with the bias removed by Core Motion, `/<deviceUUID>/quaternion` x y z w; older
///   iOS builds put `/ZIGSIM` in front. Confirmed in ZIG SIM's own documentation
///   (github.com/1-10/zigsim, src/features/motion.md and src/settings.md).
/// - Sensors2OSC (Android): `/accelerometer` (with gravity), `/linearacceleration`,
///   `/gravity` in m/s² (Android's SI units), `/gyroscope` in rad/s, `/orientation` azimuth
///   pitch roll in degrees (Android's orientation sensor; assumed). Sent on change only.
///   Android's axes are used as they come, as for HyperIMU (a phone lying face up reads +1 G
///   on z, where iOS reads -1 G).
/// - TouchOSC: `/accxyz` x y z in G.
public enum OSCApp: String, Sendable, CaseIterable {
    case gyrosc, zigsim, sensors2osc, touchosc, osc
}

/// A built-in address: which quantity each argument feeds, scaled to SensorWah's units.
public struct OSCBuiltIn: Sendable, Equatable {
    public let app: OSCApp
    /// Quantity raw values fed by arguments 0-3 (-1: none).
    let targets: (Int8, Int8, Int8, Int8)
    /// A rotation rate that also stands in for the raw gyro (no raw gyro over OSC).
    let alsoGyro: Bool
    public let scale: Double

    public static func == (a: OSCBuiltIn, b: OSCBuiltIn) -> Bool {
        a.app == b.app && a.targets == b.targets && a.alsoGyro == b.alsoGyro && a.scale == b.scale
    }

    @inline(__always) func target(_ i: Int) -> Int {
        switch i {
        case 0: return Int(targets.0)
        case 1: return Int(targets.1)
        case 2: return Int(targets.2)
        default: return Int(targets.3)
        }
    }

    /// The quantities this address feeds, in argument order.
    public var quantities: [Quantity] { (0..<4).compactMap { Quantity(rawValue: target($0)) } }

    static let g = 1 / 9.80665
    static let degrees = Double.pi / 180

    static func vec(_ app: OSCApp, _ first: Quantity, scale: Double = 1, alsoGyro: Bool = false) -> OSCBuiltIn {
        let b = Int8(first.rawValue)
        return OSCBuiltIn(app: app, targets: (b, b + 1, b + 2, -1), alsoGyro: alsoGyro, scale: scale)
    }
    static func quat(_ app: OSCApp, wFirst: Bool) -> OSCBuiltIn {
        let x = Int8(Quantity.quatX.rawValue), y = Int8(Quantity.quatY.rawValue)
        let z = Int8(Quantity.quatZ.rawValue), w = Int8(Quantity.quatW.rawValue)
        return OSCBuiltIn(app: app, targets: wFirst ? (w, x, y, z) : (x, y, z, w), alsoGyro: false, scale: 1)
    }

    // GyrOSC
    static let gyroscAccel = vec(.gyrosc, .accelX)
    static let gyroscAttitude = OSCBuiltIn(
        app: .gyrosc,
        targets: (
            Int8(Quantity.pitch.rawValue), Int8(Quantity.roll.rawValue),
            Int8(Quantity.yaw.rawValue), -1
        ), alsoGyro: false, scale: 1)
    static let gyroscRate = vec(.gyrosc, .rateX, alsoGyro: true)
    static let gyroscGravity = vec(.gyrosc, .gravityX)
    static let gyroscQuat = quat(.gyrosc, wFirst: true)
    // ZIG SIM
    static let zigAccel = vec(.zigsim, .userX)
    static let zigGravity = vec(.zigsim, .gravityX)
    static let zigGyro = vec(.zigsim, .rateX, alsoGyro: true)
    static let zigQuat = quat(.zigsim, wFirst: false)
    // Sensors2OSC
    static let s2oAccel = vec(.sensors2osc, .accelX, scale: g)
    static let s2oLinear = vec(.sensors2osc, .userX, scale: g)
    static let s2oGravity = vec(.sensors2osc, .gravityX, scale: g)
    static let s2oGyro = vec(.sensors2osc, .gyroX)
    static let s2oOrientation = OSCBuiltIn(
        app: .sensors2osc,
        targets: (
            Int8(Quantity.yaw.rawValue), Int8(Quantity.pitch.rawValue),
            Int8(Quantity.roll.rawValue), -1
        ), alsoGyro: false, scale: degrees)
    // TouchOSC
    static let touchAccel = vec(.touchosc, .accelX)

    /// The built-in meaning of an address, and where the device id lies in it (ZIG SIM).
    public static func recognise(_ a: UnsafeRawBufferPointer) -> (builtIn: OSCBuiltIn, device: Range<Int>?)? {
        // split into up to 3 components
        var starts: (Int, Int, Int) = (0, 0, 0), ends: (Int, Int, Int) = (0, 0, 0)
        var n = 0
        var i = 0
        while i < a.count {
            guard a[i] == 0x2F else { return nil }
            let s = i + 1
            var j = s
            while j < a.count && a[j] != 0x2F { j += 1 }
            if j == s { return nil }
            switch n {
            case 0: starts.0 = s; ends.0 = j
            case 1: starts.1 = s; ends.1 = j
            case 2: starts.2 = s; ends.2 = j
            default: return nil
            }
            n += 1
            i = j
        }
        func c(_ k: Int) -> Range<Int> {
            switch k {
            case 0: return starts.0..<ends.0;
            case 1: return starts.1..<ends.1;
            default: return starts.2..<ends.2
            }
        }
        switch n {
        case 1:
            let r = c(0)
            if eq(a, r, "accelerometer") { return (s2oAccel, nil) }
            if eq(a, r, "gyroscope") { return (s2oGyro, nil) }
            if eq(a, r, "linearacceleration") { return (s2oLinear, nil) }
            if eq(a, r, "gravity") { return (s2oGravity, nil) }
            if eq(a, r, "orientation") { return (s2oOrientation, nil) }
            if eq(a, r, "accxyz") { return (touchAccel, nil) }
            return nil
        case 2:
            let r = c(1)
            if eq(a, c(0), "gyrosc") {
                if eq(a, r, "accel") { return (gyroscAccel, nil) }
                if eq(a, r, "gyro") { return (gyroscAttitude, nil) }
                if eq(a, r, "rrate") { return (gyroscRate, nil) }
                if eq(a, r, "grav") { return (gyroscGravity, nil) }
                if eq(a, r, "quat") { return (gyroscQuat, nil) }
                return nil
            }
            return zig(a, c(1)).map { ($0, c(0)) }
        case 3:
            guard eq(a, c(0), "ZIGSIM") || eq(a, c(0), "zigsim") else { return nil }
            return zig(a, c(2)).map { ($0, c(1)) }
        default:
            return nil
        }
    }

    static func zig(_ a: UnsafeRawBufferPointer, _ r: Range<Int>) -> OSCBuiltIn? {
        if eq(a, r, "accel") { return zigAccel }
        if eq(a, r, "gravity") { return zigGravity }
        if eq(a, r, "gyro") { return zigGyro }
        if eq(a, r, "quaternion") { return zigQuat }
        return nil
    }

    @inline(__always)
    static func eq(_ a: UnsafeRawBufferPointer, _ r: Range<Int>, _ s: StaticString) -> Bool {
        guard r.count == s.utf8CodeUnitCount else { return false }
        let p = s.utf8Start
        for k in 0..<r.count where a[r.lowerBound + k] != p[k] { return false }
        return true
    }
}

/// Mapping sources `osc:/address` and `osc:/address[N]` (argument N, from 0): each distinct
/// address and argument gets one of `SensorFrame.customSlots` slots when the mappings are
/// loaded; the OSC adapter writes the argument's value into that slot.
public struct OSCRoutes: Sendable {
    public struct Route: Sendable {
        public let address: [UInt8]
        public let argument: Int
        public let slot: Int
    }
    public private(set) var routes: [Route] = []

    public init() {}

    /// Gives each `osc:` source in `mappings` its slot; returns an error line when there are
    /// more distinct `osc:` sources than slots.
    public static func assign(_ mappings: inout [Mapping]) -> (OSCRoutes, error: String?) {
        var r = OSCRoutes()
        var error: String?
        for i in mappings.indices {
            guard case .custom(var c) = mappings[i].source else { continue }
            if let existing = r.routes.first(where: { $0.address == Array(c.address.utf8) && $0.argument == c.argument }
            ) {
                c.slot = existing.slot
            } else if r.routes.count < SensorFrame.customSlots {
                c.slot = r.routes.count
                r.routes.append(Route(address: Array(c.address.utf8), argument: c.argument, slot: c.slot))
            } else {
                error =
                    "more than \(SensorFrame.customSlots) different osc: sources (\(c)); combine mappings or use fewer addresses"
                c.slot = -1
            }
            mappings[i].source = .custom(c)
        }
        return (r, error)
    }

    /// Writes the message's routed arguments into `frame.custom`; returns whether any matched.
    @inline(__always)
    func apply(_ m: OSCMessage, to frame: inout SensorFrame) -> Bool {
        var hit = false
        for r in routes where r.address.count == m.address.count {
            var same = true
            for k in 0..<r.address.count where r.address[k] != m.address[k] { same = false; break }
            if same && r.slot >= 0 && r.slot < SensorFrame.customSlots {
                frame.custom[r.slot] = m.value(r.argument); hit = true
            }
        }
        return hit
    }

    /// Bits 32 + slot of the custom slots this message feeds.
    func fills(_ m: OSCMessage) -> UInt64 {
        var f: UInt64 = 0
        for r in routes where r.address.count == m.address.count && r.slot >= 0 {
            var same = true
            for k in 0..<r.address.count where r.address[k] != m.address[k] { same = false; break }
            if same { f |= 1 << UInt64(32 + r.slot) }
        }
        return f
    }

    func matches(_ m: OSCMessage) -> Bool {
        for r in routes where r.address.count == m.address.count {
            var same = true
            for k in 0..<r.address.count where r.address[k] != m.address[k] { same = false; break }
            if same { return true }
        }
        return false
    }
}

/// Counts kept for OSC input.
public struct OSCStats: Sendable, Equatable {
    public var packets = 0
    public var messages = 0
    public var frames = 0
    /// Packets refused as malformed (nothing of them was used).
    public var malformed = 0
    /// Messages whose address has no built-in meaning and no `osc:` mapping.
    public var unused = 0
    /// SLIP packets over the size limit (dropped).
    public var tooLong = 0
    public init() {}
    public mutating func add(_ o: OSCStats) {
        packets += o.packets; messages += o.messages; frames += o.frames
        malformed += o.malformed; unused += o.unused; tooLong += o.tooLong
    }
}

/// One OSC sender's packets to frames. A bare message is one frame; a bundle is one frame
/// (ZIG SIM sends every sensor of a tick in one bundle) unless it sets a quantity twice,
/// in which case a new frame starts at that message.
///
/// Time: the first frame is time 0. A bundle with a real timetag (not "immediately") is timed
/// by its timetag, aligned to the arrival clock at the first such bundle; other packets by
/// their arrival (monotonic). Times only move forward: a frame at or before the previous one
/// is placed 1 µs after it, so a recording replays to the same frames.
public struct OSCFrameBuilder: Sendable {
    public var frame = SensorFrame()
    public var routes: OSCRoutes
    public internal(set) var stats = OSCStats()
    var written: UInt8 = 0
    var filled: UInt64 = 0
    var lastTime = -Double.infinity
    var origin = Double.nan  // absolute seconds of the first frame: stream time 0
    var timetagOffset = Double.nan  // stream time = timetag seconds + offset

    public init(routes: OSCRoutes = OSCRoutes()) {
        self.routes = routes
        reset()
    }

    public mutating func noteTooLong(_ n: Int) { stats.tooLong += n }

    /// Decodes one packet and calls `emit` for each frame it completes; `unused` for each
    /// message with no use (no built-in meaning, no `osc:` mapping). A malformed packet is
    /// counted and returned as the error; nothing of it is used.
    @discardableResult
    public mutating func packet(
        _ p: UnsafeRawBufferPointer, arrival: UInt64,
        emit: (borrowing SensorFrame) -> Void,
        unused: (OSCMessage) -> Void = { _ in }
    ) -> OSCError? {
        stats.packets += 1
        // validate first (decode does), then time and build
        var result: Result<Int, OSCError> = .success(0)
        var t = Double.nan
        var failed: OSCError?
        if case .failure(let e) = OSC.decode(p, { _ in }) { failed = e }
        if let e = failed { stats.malformed += 1; return e }
        var firstTimetag = OSC.immediately
        if OSC.isBundle(p) && p.count >= 16 { firstTimetag = OSC.readU64(p, 8) }
        t = time(arrival: arrival, timetag: firstTimetag)
        reset()
        result = OSC.decode(p) { m in
            stats.messages += 1
            var groups: UInt8 = 0
            var fills: UInt64 = 0  // quantities (bits 0-31) and custom slots (32-47) this message sets
            let builtIn = OSCBuiltIn.recognise(m.address)?.builtIn
            if let b = builtIn {
                groups |= Self.groups(of: b)
                fills |= Self.fills(of: b)
            }
            let routed = routes.matches(m)
            if routed {
                groups |= SensorGroup.motion.bit
                fills |= routes.fills(m)
            }
            if groups == 0 { stats.unused += 1; unused(m); return }
            // a quantity set twice in one packet: the earlier reading is its own frame
            if fills & filled != 0 { flush(at: t, emit: emit) }  // the next frame lands 1 µs later
            written |= groups
            filled |= fills
            if let b = builtIn {
                for i in 0..<4 {
                    let q = b.target(i)
                    if q < 0 { continue }
                    let v = m.value(i) * b.scale
                    frame.values[q] = v
                    if b.alsoGyro { frame.values[Quantity.gyroX.rawValue + (q - Quantity.rateX.rawValue)] = v }
                }
            }
            if routed { _ = routes.apply(m, to: &frame) }
        }
        if written != 0 { flush(at: t, emit: emit) }
        _ = result
        return nil
    }

    static func fills(of b: OSCBuiltIn) -> UInt64 {
        var f: UInt64 = 0
        for i in 0..<4 where b.target(i) >= 0 { f |= 1 << UInt64(b.target(i)) }
        return f
    }

    static func groups(of b: OSCBuiltIn) -> UInt8 {
        var g: UInt8 = 0
        for i in 0..<4 {
            if let q = Quantity(rawValue: b.target(i)) { g |= q.group.bit }
        }
        if b.alsoGyro { g |= SensorGroup.gyro.bit }
        return g
    }

    /// Whether a packet's frames are timed by the sender's clock (a bundle with a real timetag)
    /// rather than by their arrival.
    public static func timedBySender(_ p: UnsafeRawBufferPointer) -> Bool {
        guard OSC.isBundle(p) && p.count >= 16 else { return false }
        let tag = OSC.readU64(p, 8)
        return tag != OSC.immediately && tag != 0
    }

    /// Absolute seconds of a packet: its arrival, or its bundle's timetag aligned to the
    /// arrival clock at the first timetagged bundle.
    mutating func time(arrival: UInt64, timetag: UInt64) -> Double {
        let arrivalTime = Double(arrival) / 1e9
        if timetag != OSC.immediately && timetag != 0 {
            let s = OSC.seconds(timetag)
            if timetagOffset.isNaN { timetagOffset = arrivalTime - s }
            return s + timetagOffset
        }
        return arrivalTime
    }

    mutating func flush(at absolute: Double, emit: (borrowing SensorFrame) -> Void) {
        if origin.isNaN { origin = absolute }
        let rel = absolute - origin
        let t = rel > lastTime ? rel : lastTime + 1e-6
        lastTime = t
        frame.newGroups = written
        for g in 0..<SensorGroup.count where written & (1 << UInt8(g)) != 0 { frame.times[g] = t }
        stats.frames += 1
        emit(frame)
        reset()
    }

    mutating func reset() {
        written = 0
        filled = 0
        frame.newGroups = 0
        frame.values = .init(repeating: .nan)
        frame.custom = .init(repeating: .nan)
    }
}

extension OSC {
    /// The app and device id (ZIG SIM's UUID) of a packet's first recognised message, to pick
    /// the sender's session. Nil for a malformed packet; `.osc` when no address is built in.
    public static func identify(_ p: UnsafeRawBufferPointer, _ body: (OSCApp, UnsafeRawBufferPointer?) -> Void) {
        var done = false
        let r = decode(p) { m in
            guard !done, let (b, device) = OSCBuiltIn.recognise(m.address) else { return }
            done = true
            body(b.app, device.map { UnsafeRawBufferPointer(rebasing: m.address[$0]) })
        }
        if !done, case .success = r { body(.osc, nil) }
    }
}

/// ZIG SIM's JSON mode (message format JSON, over UDP): one object per tick,
/// `{"device": {"uuid": …, …}, "timestamp": …, "sensordata": {"accel": {"x","y","z"},
/// "gravity": {…}, "gyro": {…}, "quaternion": {"x","y","z","w"}, …}}`, with the units of its
/// OSC mode (accel without gravity and gravity in G, gyro in rad/s). The keys are ZIG SIM's
/// documented JSON keys (`accel.x` … `quaternion.w`, src/features/motion.md); the enclosing
/// `device` and `sensordata` objects are from a public consumer (ZigsimUnity) and assumed.
/// This path allocates (it parses a JSON tree); the OSC mode does not.
public enum ZigSimJSON {
    public static func decode(_ p: UnsafeRawBufferPointer) -> (device: String?, values: [(Quantity, Double)])? {
        var parser = JSONValueParser(p)
        guard let root = parser.parse(), case .object(let o) = root,
            case .object(let data) = o["sensordata"] ?? .null
        else { return nil }
        var device: String?
        if case .object(let d) = o["device"] ?? .null { device = d["uuid"]?.text }
        var values: [(Quantity, Double)] = []
        func vector(_ key: String, _ base: Quantity, _ axes: [String]) {
            guard case .object(let v) = data[key] ?? .null else { return }
            for (i, a) in axes.enumerated() {
                values.append((Quantity(rawValue: base.rawValue + i)!, v[a]?.number ?? .nan))
            }
        }
        vector("accel", .userX, ["x", "y", "z"])
        vector("gravity", .gravityX, ["x", "y", "z"])
        vector("gyro", .rateX, ["x", "y", "z"])
        vector("gyro", .gyroX, ["x", "y", "z"])
        vector("quaternion", .quatX, ["x", "y", "z", "w"])
        return (device, values)
    }
}

extension OSCFrameBuilder {
    /// One ZIG SIM JSON datagram: one frame, timed by its arrival. Counted as a packet; a
    /// datagram that is not such an object is refused and counted as malformed.
    public mutating func zigSimJSON(_ p: UnsafeRawBufferPointer, arrival: UInt64, emit: (borrowing SensorFrame) -> Void)
        -> OSCError?
    {
        stats.packets += 1
        guard let (_, values) = ZigSimJSON.decode(p) else { stats.malformed += 1; return .badJSON }
        stats.messages += 1
        let t = time(arrival: arrival, timetag: OSC.immediately)
        reset()
        for (q, v) in values {
            frame.values[q.rawValue] = v
            if !v.isNaN { written |= q.group.bit }
        }
        if written == 0 { stats.unused += 1; return nil }
        flush(at: t, emit: emit)
        return nil
    }
}
