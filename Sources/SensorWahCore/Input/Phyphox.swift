/// phyphox's remote access (the phone is an HTTP server; "Allow remote access" in the app's
/// menu), as documented on phyphox.org/wiki "Remote-interface communication":
///
/// - `GET /config` describes the running experiment: its `buffers` (`name`, `size`) and, where
///   the app sends them, its `inputs` (`source`: accelerometer, linear_acceleration,
///   gyroscope, …; `outputs`: the buffers fed with x, y, z, t).
/// - `GET /get?accX=full&acc_time=full` returns `{"buffer": {"accX": {"buffer": [..]}, …},
///   "status": {"measuring": …}}`; `accX=12.5|acc_time` asks only for the values whose
///   `acc_time` is above 12.5 (the client keeps the last time it has), `acc_time=12.5` for the
///   times above it.
///
/// Pure: `PhyphoxLayout` reads /config, `PhyphoxPoll` builds each /get query and turns its
/// answer into samples in SensorWah's units, timed by the buffers' own time (seconds of
/// experiment time). Units: acceleration m/s² (→ G), gyroscope rad/s.
public struct PhyphoxLayout: Sendable, Equatable {
    public struct Sensor: Sendable, Equatable {
        public var base: Quantity  // accelX (with g), userX (linear), gyroX
        public var x: String, y: String, z: String, t: String
        public var scale: Double
    }
    public var title: String
    public var sensors: [Sensor]

    public static func parse(_ body: UnsafeRawBufferPointer) throws(SensorLoggerBatch.Refusal) -> PhyphoxLayout {
        var parser = JSONValueParser(body)
        guard let root = parser.parse(), case .object(let o) = root else {
            throw .init(reason: "phyphox /config is not a JSON object")
        }
        let title = o["title"]?.text ?? "?"
        var sensors: [Sensor] = []
        let g = 1 / SensorLoggerBatch.standardGravity
        // the experiment's inputs, where given
        if case .array(let inputs) = o["inputs"] ?? .null {
            for case .object(let input) in inputs {
                guard let source = input["source"]?.text?.lowercased() else { continue }
                var names: [String: String] = [:]
                if case .array(let outs) = input["outputs"] ?? .null {
                    for case .object(let out) in outs {
                        for (k, v) in out { if let n = v.text { names[k.lowercased()] = n } }
                    }
                } else if case .object(let outs) = input["outputs"] ?? .null {
                    for (k, v) in outs { if let n = v.text { names[k.lowercased()] = n } }
                }
                let base: Quantity, scale: Double
                switch source {
                case "accelerometer": base = .accelX; scale = g
                case "linear_acceleration": base = .userX; scale = g
                case "gyroscope": base = .gyroX; scale = 1
                default: continue
                }
                guard let x = names["x"], let y = names["y"], let z = names["z"], let t = names["t"] else { continue }
                sensors.append(Sensor(base: base, x: x, y: y, z: z, t: t, scale: scale))
            }
        }
        // else the buffer names of phyphox's own experiments
        if sensors.isEmpty, case .array(let buffers) = o["buffers"] ?? .null {
            var names = Set<String>()
            for case .object(let b) in buffers { if let n = b["name"]?.text { names.insert(n) } }
            let linear = title.lowercased().contains("without") || title.lowercased().contains("linear")
            if names.isSuperset(of: ["accX", "accY", "accZ", "acc_time"]) {
                sensors.append(
                    Sensor(base: linear ? .userX : .accelX, x: "accX", y: "accY", z: "accZ", t: "acc_time", scale: g))
            }
            if names.isSuperset(of: ["linX", "linY", "linZ", "lin_time"]) {
                sensors.append(Sensor(base: .userX, x: "linX", y: "linY", z: "linZ", t: "lin_time", scale: g))
            }
            if names.isSuperset(of: ["gyrX", "gyrY", "gyrZ", "gyr_time"]) {
                sensors.append(Sensor(base: .gyroX, x: "gyrX", y: "gyrY", z: "gyrZ", t: "gyr_time", scale: 1))
            }
        }
        guard !sensors.isEmpty else {
            throw .init(
                reason:
                    "the phyphox experiment \"\(title)\" has no accelerometer, linear acceleration or gyroscope buffers SensorWah knows; start \"Acceleration with g\", \"Acceleration (without g)\" or \"Gyroscope\""
            )
        }
        return PhyphoxLayout(title: title, sensors: sensors)
    }
}

public struct PhyphoxPoll: Sendable {
    public let layout: PhyphoxLayout
    /// The last time read per sensor (nil: ask for the full buffer).
    var last: [Double?]

    public init(layout: PhyphoxLayout) {
        self.layout = layout
        last = Array(repeating: nil, count: layout.sensors.count)
    }

    /// The next `/get?...` path.
    public var query: String {
        var parts: [String] = []
        for (i, s) in layout.sensors.enumerated() {
            if let t = last[i] {
                let tt = "\(t)"
                for b in [s.x, s.y, s.z] { parts.append("\(Self.escape(b))=\(tt)%7C\(Self.escape(s.t))") }
                parts.append("\(Self.escape(s.t))=\(tt)")
            } else {
                for b in [s.x, s.y, s.z, s.t] { parts.append("\(Self.escape(b))=full") }
            }
        }
        return "/get?" + parts.joined(separator: "&")
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
                || b == 0x2D || b == 0x2E
            {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Samples of one `/get` answer newer than those already read, as a batch (times in ns of
    /// experiment time). A buffer whose newest time is over 1 s older than the last one read
    /// means the experiment was cleared or restarted: `restarted` is set and reading starts over.
    public mutating func read(_ body: UnsafeRawBufferPointer) throws(SensorLoggerBatch.Refusal) -> (
        batch: SensorLoggerBatch, restarted: Bool, measuring: Bool?
    ) {
        var parser = JSONValueParser(body)
        guard let root = parser.parse(), case .object(let o) = root, case .object(let buffers) = o["buffer"] ?? .null
        else {
            throw .init(reason: "phyphox /get answer is not {\"buffer\": {...}}")
        }
        var measuring: Bool?
        if case .object(let st) = o["status"] ?? .null, case .bool(let m) = st["measuring"] ?? .null { measuring = m }
        func numbers(_ name: String) throws(SensorLoggerBatch.Refusal) -> [Double] {
            guard case .object(let b) = buffers[name] ?? .null, case .array(let a) = b["buffer"] ?? .null else {
                throw .init(reason: "phyphox /get answer has no buffer \"\(name)\"")
            }
            return a.map { $0.number ?? .nan }
        }
        var batch = SensorLoggerBatch()
        var restarted = false
        for (i, s) in layout.sensors.enumerated() {
            let t = try numbers(s.t), x = try numbers(s.x), y = try numbers(s.y), z = try numbers(s.z)
            let n = min(t.count, x.count, y.count, z.count)
            if let l = last[i], let newest = t.last, newest.isFinite, newest < l - 1 {
                restarted = true
                last[i] = nil
            }
            for k in 0..<n {
                let tk = t[k]
                guard tk.isFinite, abs(tk) < 1e9 else { continue }
                if let l = last[i], tk <= l { continue }
                var sample = SensorLoggerSample(time: Int64((tk * 1e9).rounded()), values: [])
                for (a, v) in [x[k], y[k], z[k]].enumerated() {
                    sample.values.append((Quantity(rawValue: s.base.rawValue + a)!, v.isFinite ? v * s.scale : .nan))
                }
                batch.samples.append(sample)
                last[i] = max(last[i] ?? -.infinity, tk)
            }
        }
        return (batch, restarted, measuring)
    }
}
