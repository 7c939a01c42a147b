/// Sensor Logger's HTTP push (and MQTT) messages: a JSON object per batch,
///
///     {"messageId": 12, "sessionId": "…", "deviceId": "…",
///      "payload": [{"name": "accelerometer", "time": 1698501144401773000,
///                   "values": {"x": …, "y": …, "z": …}}, …]}
///
/// (schema from the app author's PUSHING.md in github.com/tszheichoi/awesome-sensor-logger:
/// `time` is UTC epoch nanoseconds; consumers read `values.x|y|z`). Sensors are read as in the
/// CSV export (`LoggedSensor`): `accelerometer` is acceleration WITHOUT gravity (user.*),
/// `totalacceleration` includes it (accel.*), `gravity`, all in m/s²; `gyroscope` in rad/s;
/// `orientation` roll, pitch, yaw in rad and the quaternion qx qy qz qw. Other sensors
/// (location, microphone, …) are counted and left alone.
///
/// Pure: `SensorLoggerBatch.decode` turns a body into samples; `SensorLoggerFrames` orders them
/// by time and merges samples with the same time into frames.
public struct SensorLoggerSample: Sendable, Equatable {
    public var time: Int64  // epoch ns
    public var values: [(Quantity, Double)]
    public static func == (a: Self, b: Self) -> Bool {
        a.time == b.time && a.values.count == b.values.count
            && zip(a.values, b.values).allSatisfy { $0.0 == $1.0 && ($0.1 == $1.1 || ($0.1.isNaN && $1.1.isNaN)) }
    }
}

public struct SensorLoggerBatch: Sendable {
    public var deviceId: String?
    public var sessionId: String?
    public var messageId: Int?
    public var samples: [SensorLoggerSample] = []
    /// Entries of sensors SensorWah does not use (location, microphone, …).
    public var otherSensors = 0

    /// Why a body was refused: one line, sent back to the app with status 400.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    public static let standardGravity = 9.80665

    public static func decode(_ body: UnsafeRawBufferPointer) throws(Refusal) -> SensorLoggerBatch {
        var parser = JSONValueParser(body)
        guard let root = parser.parse() else { throw Refusal(reason: "not JSON: \(parser.error)") }
        guard case .object(let top) = root else { throw Refusal(reason: "the body is not a JSON object") }
        var b = SensorLoggerBatch()
        b.deviceId = top["deviceId"]?.text
        b.sessionId = top["sessionId"]?.text
        b.messageId = top["messageId"]?.number.flatMap { $0.isFinite && abs($0) < 1e15 ? Int($0) : nil }
        guard let payload = top["payload"] else {
            throw Refusal(
                reason:
                    "no \"payload\" member (Sensor Logger sends {\"messageId\",\"sessionId\",\"deviceId\",\"payload\":[...]})"
            )
        }
        guard case .array(let entries) = payload else { throw Refusal(reason: "\"payload\" is not an array") }
        for (k, e) in entries.enumerated() {
            guard case .object(let o) = e else { throw Refusal(reason: "payload[\(k)] is not an object") }
            guard let name = o["name"]?.text else { throw Refusal(reason: "payload[\(k)] has no \"name\"") }
            let key = name.lowercased()
            let known = ["accelerometer", "totalacceleration", "gravity", "gyroscope", "orientation"]
            guard known.contains(key) else { b.otherSensors += 1; continue }
            guard let tv = o["time"], let time = tv.integer else {
                throw Refusal(reason: "payload[\(k)] (\(name)) has no whole-number \"time\" (epoch nanoseconds)")
            }
            guard case .object(let v) = o["values"] ?? .null else {
                throw Refusal(reason: "payload[\(k)] (\(name)) has no \"values\" object")
            }
            func read(_ field: String) throws(Refusal) -> Double {
                guard let x = v[field] else { return .nan }
                if case .null = x { return .nan }
                guard let d = x.number, d.isFinite else {
                    throw Refusal(reason: "payload[\(k)] (\(name)): values.\(field) is not a number")
                }
                return d
            }
            var s = SensorLoggerSample(time: time, values: [])
            let g = 1 / standardGravity
            switch key {
            case "accelerometer", "totalacceleration", "gravity":
                let base: Quantity = key == "accelerometer" ? .userX : key == "gravity" ? .gravityX : .accelX
                for (i, f) in ["x", "y", "z"].enumerated() {
                    s.values.append((Quantity(rawValue: base.rawValue + i)!, try read(f) * g))
                }
            case "gyroscope":
                for (i, f) in ["x", "y", "z"].enumerated() {
                    s.values.append((Quantity(rawValue: Quantity.gyroX.rawValue + i)!, try read(f)))
                }
            default:  // orientation
                for (q, f) in [
                    (Quantity.roll, "roll"), (.pitch, "pitch"), (.yaw, "yaw"), (.quatX, "qx"), (.quatY, "qy"),
                    (.quatZ, "qz"), (.quatW, "qw")
                ] {
                    s.values.append((q, try read(f)))
                }
            }
            guard s.values.contains(where: { !$0.1.isNaN }) else {
                throw Refusal(reason: "payload[\(k)] (\(name)) has none of the values SensorWah reads")
            }
            b.samples.append(s)
        }
        return b
    }
}

/// Orders a sender's samples by time and merges samples with the same time into one frame.
/// Time 0 is the first sample of the first batch; a sample older than the last frame sent
/// (a late batch) is dropped and counted, never sent out of order.
public struct SensorLoggerFrames: Sendable {
    var origin: Int64?
    /// Stream time of `origin` (moves on a restart, so time continues).
    var base = 0.0
    var lastTime = -Double.infinity
    public private(set) var late = 0
    public private(set) var frames = 0

    public init() {}

    /// The sender's clock starts again (a new recording session, a restarted experiment):
    /// its next sample lands 10 ms after the last frame sent.
    public mutating func restart() {
        origin = nil
        base = lastTime.isFinite ? lastTime + 0.01 : 0
    }

    /// Seconds from `origin` to `t` (epoch ns): exact for any real span; a span past Int64
    /// (a sender's nonsense times, ±2^63 apart) is computed in Double rather than trapping.
    static func seconds(_ t: Int64, since origin: Int64) -> Double {
        let (d, overflow) = t.subtractingReportingOverflow(origin)
        return (overflow ? Double(t) - Double(origin) : Double(d)) / 1e9
    }

    public mutating func add(_ batch: SensorLoggerBatch, emit: (borrowing SensorFrame) -> Void) {
        let sorted = batch.samples.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        var frame = SensorFrame()
        var filled: UInt32 = 0
        var current: Int64?
        func flush() {
            guard let t = current, frame.newGroups != 0 else { return }
            let rel = base + Self.seconds(t, since: origin ?? t)
            for g in 0..<SensorGroup.count where frame.newGroups & (1 << UInt8(g)) != 0 { frame.times[g] = rel }
            lastTime = rel
            frames += 1
            emit(frame)
            frame = SensorFrame()
            filled = 0
        }
        for s in sorted {
            if origin == nil { origin = s.time }
            let rel = base + Self.seconds(s.time, since: origin!)
            if rel <= lastTime && s.time != current { late += 1; continue }
            var bits: UInt32 = 0
            for (q, _) in s.values { bits |= 1 << UInt32(q.rawValue) }
            if s.time != current || bits & filled != 0 {
                flush()
                if s.time == current && rel <= lastTime { late += 1; continue }  // a repeat at the same time
                current = s.time
            }
            for (q, v) in s.values {
                frame.values[q.rawValue] = v
                frame.newGroups |= q.group.bit
            }
            filled |= bits
        }
        flush()
    }
}

/// A small, strict JSON reader for request bodies (depth-limited; never traps).
public indirect enum JSONValue: Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double, Int64?)
    case bool(Bool)
    case null

    public subscript(_ key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    var text: String? {
        switch self {
        case .string(let s): return s
        case .number(let d, let i): return i.map(String.init) ?? String(d)
        default: return nil
        }
    }
    var number: Double? {
        switch self {
        case .number(let d, _): return d
        case .string(let s): return Double(s)
        default: return nil
        }
    }
    /// A whole number (also when sent as a string, as Sensor Logger's exports do).
    var integer: Int64? {
        switch self {
        case .number(_, let i): return i
        case .string(let s): return Int64(s)
        default: return nil
        }
    }
}

struct JSONValueParser {
    let p: UnsafeRawBufferPointer
    var i = 0
    var error = ""
    static let maxDepth = 32

    init(_ p: UnsafeRawBufferPointer) { self.p = p }

    mutating func parse() -> JSONValue? {
        guard let v = value(depth: 0) else { return nil }
        space()
        if i != p.count { error = "text after the JSON value at byte \(i)"; return nil }
        return v
    }

    mutating func space() { while i < p.count, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 } }

    mutating func fail(_ s: String) -> JSONValue? { if error.isEmpty { error = "\(s) at byte \(i)" }; return nil }

    mutating func value(depth: Int) -> JSONValue? {
        guard depth < Self.maxDepth else { return fail("nested too deep") }
        space()
        guard i < p.count else { return fail("unexpected end") }
        switch p[i] {
        case 0x7B:
            i += 1
            var o: [String: JSONValue] = [:]
            space()
            if i < p.count, p[i] == 0x7D { i += 1; return .object(o) }
            while true {
                space()
                guard let k = string() else { return fail("expected a member name") }
                space()
                guard i < p.count, p[i] == 0x3A else { return fail("expected ':'") }
                i += 1
                guard let v = value(depth: depth + 1) else { return nil }
                o[k] = v
                space()
                guard i < p.count else { return fail("unexpected end") }
                if p[i] == 0x2C { i += 1; continue }
                if p[i] == 0x7D { i += 1; return .object(o) }
                return fail("expected ',' or '}'")
            }
        case 0x5B:
            i += 1
            var a: [JSONValue] = []
            space()
            if i < p.count, p[i] == 0x5D { i += 1; return .array(a) }
            while true {
                guard let v = value(depth: depth + 1) else { return nil }
                a.append(v)
                space()
                guard i < p.count else { return fail("unexpected end") }
                if p[i] == 0x2C { i += 1; continue }
                if p[i] == 0x5D { i += 1; return .array(a) }
                return fail("expected ',' or ']'")
            }
        case 0x22:
            guard let s = string() else { return fail("bad string") }
            return .string(s)
        case 0x74: return literal("true", .bool(true))
        case 0x66: return literal("false", .bool(false))
        case 0x6E: return literal("null", .null)
        default:
            let start = i
            while i < p.count, let c = Optional(p[i]),
                c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 || (c >= 0x30 && c <= 0x39)
            { i += 1 }
            guard i > start else { return fail("unexpected character") }
            let field = parseField(p.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, i - start)
            guard case .number(let d) = field else { return fail("bad number") }
            var whole: Int64?
            var isInt = true
            for k in start..<i where !(p[k] >= 0x30 && p[k] <= 0x39) && !(k == start && p[k] == 0x2D) { isInt = false }
            if isInt { whole = Int64(String(decoding: UnsafeRawBufferPointer(rebasing: p[start..<i]), as: UTF8.self)) }
            return .number(d, whole)
        }
    }

    mutating func literal(_ word: StaticString, _ v: JSONValue) -> JSONValue? {
        let n = word.utf8CodeUnitCount
        guard i + n <= p.count else { return fail("unexpected end") }
        for k in 0..<n where p[i + k] != word.utf8Start[k] { return fail("unexpected word") }
        i += n
        return v
    }

    mutating func string() -> String? {
        guard i < p.count, p[i] == 0x22 else { return nil }
        i += 1
        var bytes: [UInt8] = []
        while i < p.count {
            let c = p[i]
            if c == 0x22 { i += 1; return String(decoding: bytes, as: UTF8.self) }
            if c < 0x20 { return nil }
            if c == 0x5C {
                guard i + 1 < p.count else { return nil }
                let e = p[i + 1]
                i += 2
                switch e {
                case 0x22, 0x5C, 0x2F: bytes.append(e)
                case 0x62: bytes.append(8)
                case 0x66: bytes.append(12)
                case 0x6E: bytes.append(10)
                case 0x72: bytes.append(13)
                case 0x74: bytes.append(9)
                case 0x75:
                    guard i + 4 <= p.count,
                        let u = UInt32(
                            String(decoding: UnsafeRawBufferPointer(rebasing: p[i..<(i + 4)]), as: UTF8.self), radix: 16
                        )
                    else { return nil }
                    i += 4
                    bytes.append(contentsOf: String(Unicode.Scalar(u) ?? "?").utf8)
                default: return nil
                }
                continue
            }
            bytes.append(c)
            i += 1
        }
        return nil
    }
}
