/// Any table of a time column plus three or six axes: `Milliseconds,X,Y,Z`, `time,x,y,z`,
/// `timestamp,ax,ay,az`, `time_s,ax,ay,az,gx,gy,gz`, `t,accel_x_g,...`. The last resort of
/// the table (lowest confidence): an app's own entry always wins over it.
///
/// - Time: the column named time, t, timestamp, ts, seconds, milliseconds, elapsed, ... Its
///   unit from its name (`s`, `ms`, `us`/`µs`, `ns` as a word or `(unit)`), else from the data:
///   epoch-like values (1e9 s, 1e12 ms, 1e15 µs, 1e18 ns), else the unit that gives a rate of
///   1 to 2000 Hz (the one nearest 100 Hz when several do).
/// - Axes: names ending in x, y, z, with a word saying the sensor (`a`/`acc`/`accel` …,
///   `lin`/`linear`/`user`, `grav`/`gravity`, `g`/`gyr`/`gyro`/`w`/`rot`/`rate`); bare `x,y,z`
///   are acceleration unless `--sensor` says otherwise.
/// - Units from the name (`g`, `m/s^2`, `deg/s`/`dps`, `rad/s`), else from the magnitude:
///   acceleration averaging about 9.8 is m/s² with gravity, about 1 is G with gravity, anything
///   else has no gravity (m/s² when its mean is over 0.6 or it peaks over 4, else G); a rotation
///   rate peaking over 50 is deg/s.
/// Every assumption is one header note (printed in the summary).
extension DialectRecognizer {
    static let generic = DialectRecognizer(
        format: .generic, name: "Generic (time + axes)",
        expects:
            "a time column (time, t, timestamp, seconds, milliseconds, ...) and three or six axis columns (x,y,z; ax,ay,az; gx,gy,gz; accel_x ...)",
        sample: "Milliseconds,X,Y,Z",
        headerless: false,
        rule:
            "one column named like a time (time, t, timestamp, seconds, ms ...) and one or two complete x/y/z sets of axis columns; lowest confidence",
        confidence: 0.3,
        test: { h in !h.isJSON && GenericColumns(h) != nil },
        build: { h, o in SensorParser.genericVerdict(h, o) })
}

/// A header read as a generic table: the time column and the axis sets.
struct GenericColumns {
    enum Sensor: String { case accel, user, gravity, gyro, unknown }
    enum Unit { case g, si, degPerS, radPerS }
    struct Axes { var sensor: Sensor; var unit: Unit?; var cols: [Int] }

    var time: Int
    var timeUnit: Double?
    var sets: [Axes]

    init?(_ h: HeaderFields) {
        var time: Int?
        var timeUnit: Double?
        // axis columns by (sensor, group index of its word position), in header order
        var found: [(sensor: Sensor, unit: Unit?, axis: Int, col: Int)] = []
        for (i, raw) in h.raw.enumerated() {
            let (tokens, unitText) = Self.tokens(raw)
            guard !tokens.isEmpty else { continue }
            if let a = Self.axis(tokens, unitText) {
                found.append((a.0, a.1, a.2, i))
            } else if time == nil, let u = Self.timeColumn(tokens, unitText) {
                time = i
                timeUnit = u
            }
        }
        guard let t = time else { return nil }
        // complete x, y, z sets, in order of appearance, per sensor word
        var sets: [Axes] = []
        var pending: [Sensor: [Int: (Int, Unit?)]] = [:]
        for f in found {
            var p = pending[f.sensor] ?? [:]
            if p[f.axis] != nil { continue }  // a second x of the same sensor: the first wins
            p[f.axis] = (f.col, f.unit)
            if p.count == 3 {
                sets.append(
                    Axes(sensor: f.sensor, unit: p[0]!.1 ?? p[1]!.1 ?? p[2]!.1, cols: [p[0]!.0, p[1]!.0, p[2]!.0]))
                p = [:]
            }
            pending[f.sensor] = p
        }
        guard sets.count == 1 || sets.count == 2 else { return nil }
        self.time = t
        self.timeUnit = timeUnit
        self.sets = sets
    }

    /// Lower-case words of a name (camelCase and any non-letter split), and its `(unit)` text.
    static func tokens(_ raw: Substring) -> ([String], String) {
        var name = raw
        var unit = ""
        for (open, close) in [("(", ")"), ("[", "]")] where name.hasSuffix(close) {
            if let o = name.lastIndex(of: Character(open)) {
                unit = String(name[name.index(after: o)..<name.index(before: name.endIndex)]).lowercased()
                name = name[..<o]
            }
        }
        var words: [String] = []
        var cur = ""
        var prevLower = false
        for ch in name {
            if ch.isLetter || ch.isNumber || ch == "µ" || ch == "²" || ch == "°" {
                if ch.isUppercase && prevLower && !cur.isEmpty { words.append(cur); cur = "" }
                cur.append(Character(ch.lowercased()))
                prevLower = ch.isLowercase || ch.isNumber
            } else {
                if !cur.isEmpty { words.append(cur); cur = "" }
                prevLower = false
            }
        }
        if !cur.isEmpty { words.append(cur) }
        return (words, unit)
    }

    static let secondsWords: Set<String> = ["s", "sec", "secs", "second", "seconds"]
    static let msWords: Set<String> = ["ms", "msec", "msecs", "millis", "millisecond", "milliseconds"]
    static let usWords: Set<String> = ["us", "µs", "usec", "usecs", "micros", "microsecond", "microseconds"]
    static let nsWords: Set<String> = ["ns", "nsec", "nsecs", "nanos", "nanosecond", "nanoseconds"]
    static let timeWords: Set<String> = ["time", "t", "timestamp", "ts", "elapsed", "epoch", "clock", "stamp"]

    static func unitScale(_ w: String) -> Double? {
        if secondsWords.contains(w) { return 1 }
        if msWords.contains(w) { return 1e-3 }
        if usWords.contains(w) { return 1e-6 }
        if nsWords.contains(w) { return 1e-9 }
        return nil
    }

    /// A time column: nil if not; else its unit scale to seconds, or NaN when the name does not say.
    static func timeColumn(_ words: [String], _ unit: String) -> Double? {
        let stated = Self.unitScale(String(unit.filter { $0 != " " }))
        let isTime = words.contains { timeWords.contains($0) || Self.unitScale($0) != nil || $0.hasPrefix("timestamp") }
        guard isTime else { return nil }
        if let u = stated { return u }
        for w in words.reversed() { if let u = Self.unitScale(w) { return u } }
        return .nan
    }

    static let accelWords: Set<String> = [
        "a", "acc", "accel", "accl", "accelerometer", "acceleration", "accelerations", "gf", "gforce"
    ]
    static let userWords: Set<String> = ["lin", "linear", "user", "la", "useracceleration", "linearacceleration"]
    static let gravityWords: Set<String> = ["grav", "gravity"]
    static let gyroWords: Set<String> = [
        "g", "gyr", "gyro", "gyroscope", "w", "omega", "rot", "rotation", "rate", "angular", "angvel"
    ]
    static let otherWords: Set<String> = [
        "m", "mag", "magn", "magnet", "magnetometer", "magnetic", "field", "compass", "orientation",
        "euler", "angle", "angles", "quat", "quaternion", "q", "pos", "position", "gps",
        "heading", "uncalibrated", "uncal", "bias"
    ]

    static func unitOf(_ w: String) -> Unit? {
        switch String(w.filter { $0 != " " }) {
        case "g", "gs", "gforce": return .g
        case "m/s^2", "m/s²", "ms2", "mps2", "m/s2", "ms^-2", "mss", "m/s/s", "ms²": return .si
        case "deg/s", "°/s", "dps", "degs", "degps", "degpersec", "deg": return .degPerS
        case "rad/s", "rads", "radps", "rad", "radpersec": return .radPerS
        default: return nil
        }
    }

    /// An axis column: its sensor, unit (if the name says) and axis 0...2.
    static func axis(_ w0: [String], _ unitText: String) -> (Sensor, Unit?, Int)? {
        var words = w0
        var unit = unitOf(unitText)
        // trailing unit words: accel_x_g, gyro_x_dps, gx_rad_s, ax_m_s2
        while words.count > 1 {
            if words.count > 2, words.suffix(2) == ["rad", "s"] {
                words.removeLast(2); unit = unit ?? .radPerS; continue
            }
            if words.count > 2, words.suffix(2) == ["deg", "s"] {
                words.removeLast(2); unit = unit ?? .degPerS; continue
            }
            if words.count > 2, words.suffix(2) == ["m", "s2"] || words.suffix(2) == ["m", "s"] {
                words.removeLast(2); unit = unit ?? .si; continue
            }
            guard let u = unitOf(words.last!) else { break }
            words.removeLast()
            unit = unit ?? u
        }
        guard let last = words.last else { return nil }
        var axisChar: Character
        var prefixWords = Array(words.dropLast())
        if last.count == 1 {
            axisChar = last.first!
        } else {
            axisChar = last.last!
            prefixWords.append(String(last.dropLast()))
        }
        guard let axis = ["x": 0, "y": 1, "z": 2][axisChar] else { return nil }
        if prefixWords.contains(where: { otherWords.contains($0) }) { return nil }
        let known = prefixWords.filter {
            userWords.contains($0) || gravityWords.contains($0) || gyroWords.contains($0) || accelWords.contains($0)
        }
        // every word must be a sensor word or noise we can ignore (a vendor prefix such as `mpl`, a device id)
        if prefixWords.contains(where: { w in timeWords.contains(w) }) { return nil }
        let sensor: Sensor
        if known.contains(where: { userWords.contains($0) }) {
            sensor = .user
        } else if known.contains(where: { gravityWords.contains($0) }) {
            sensor = .gravity
        } else if known.contains(where: { $0 == "gf" || $0 == "gforce" }) {
            sensor = .accel; unit = unit ?? .g
        } else if known.contains(where: { gyroWords.contains($0) }) {
            sensor = .gyro
        } else if known.contains(where: { accelWords.contains($0) }) {
            sensor = .accel
        } else if prefixWords.allSatisfy({ $0.isEmpty }) {
            sensor = .unknown
        } else {
            return nil
        }  // an unknown word before the axis (`dx`, `posx`): not an axis SensorWah reads
        return (sensor, unit, axis)
    }
}

extension SensorParser {
    static func genericVerdict(_ h: HeaderFields, _ o: ParserOptions) -> HeaderVerdict {
        guard let cols = GenericColumns(h) else { return .refused("No time column with three or six axis columns.") }
        var l = ColumnLayout(columnsOf: h, dialect: .generic)
        let rows = o.preview?.rows(under: h) ?? []
        var said: [String] = []
        let dc = l.decimalComma

        // time: unit from the name, else from the data
        let timeName = "\"\(h.raw[cols.time])\""
        l.slots[cols.time] = ColumnLayout.lineTimestamp
        l.hasLineTimeColumn = true
        l.lastNeeded = cols.time
        let times = DataChecks.column(rows, cols.time, decimalComma: dc)
        if let u = cols.timeUnit, !u.isNaN {
            l.lineTimestampScale = u
            said.append("time \(timeName) in \(Self.unitName(u)) (its name)")
        } else if times.isEmpty && rows.contains(where: { cols.time < $0.count && !$0[cols.time].isEmpty }) {
            // text times: ISO 8601 or a time of day
            let sample = rows.first { cols.time < $0.count && !$0[cols.time].isEmpty }![cols.time]
            var s = String(sample)
            let iso = s.withUTF8 { TimeText.iso8601($0.baseAddress!, $0.count) } != nil
            l.lineTimeKind = iso ? .iso8601 : .clock
            said.append("time \(timeName) read as \(iso ? "ISO 8601 dates" : "times of day")")
        } else if let (u, why) = Self.timeUnitFromData(times) {
            l.lineTimestampScale = u
            said.append("time \(timeName) in \(Self.unitName(u)) (\(why))")
        } else {
            said.append("time \(timeName) in seconds (assumed: no data to judge its unit)")
        }

        // axes
        var setIndex = 0
        for set in cols.sets {
            var sensor = set.sensor
            var unit = set.unit
            if sensor == .unknown {
                switch o.sensor {
                case .gyroscope?: sensor = .gyro
                case .userAcceleration?: sensor = .user
                case .gravity?: sensor = .gravity
                case .totalAcceleration?: sensor = .accel
                default: sensor = setIndex == 1 ? .gyro : .accel
                }
            }
            let names = set.cols.map { h.raw[$0] }.joined(separator: ",")
            let mags = DataChecks.magnitudes(rows, (set.cols[0], set.cols[1], set.cols[2]), decimalComma: dc)
            let mean = DataChecks.mean(mags)
            let peak = mags.max()
            var base: Quantity
            var scale = 1.0
            var how: String
            if sensor == .gyro {
                base = .gyroX
                if unit == nil {
                    let maxAbs = rows.flatMap { r in
                        set.cols.compactMap { $0 < r.count ? DataChecks.number(r[$0], decimalComma: dc).map(abs) : nil }
                    }.max()
                    unit = (maxAbs ?? 0) > 50 ? .degPerS : .radPerS
                    how = maxAbs.map { "its peak \(NumberText.rounded($0, 3))" } ?? "assumed"
                } else {
                    how = "its name"
                }
                if unit == .degPerS { scale = .pi / 180 }
                said.append("\(names) rotation rate in \(unit == .degPerS ? "deg/s" : "rad/s") (\(how))")
            } else {
                var gravity: Bool? = sensor == .gravity ? true : (sensor == .user ? false : nil)
                var how = "its name"
                if unit == nil {
                    if let m = mean {
                        if DataChecks.includesGravity(meanG: m / DataChecks.g) == true {
                            unit = .si; gravity = gravity ?? true; how = "mean magnitude \(NumberText.rounded(m, 3))"
                        } else if DataChecks.includesGravity(meanG: m) == true {
                            unit = .g; gravity = gravity ?? true; how = "mean magnitude \(NumberText.rounded(m, 3))"
                        } else {
                            // neither about 1 G nor about 9.8 m/s²: no gravity; a mean over 0.6
                            // or a peak over 4 is no G reading of acceleration without gravity
                            unit = (m > 0.6 || (peak ?? 0) > 4) ? .si : .g
                            gravity = gravity ?? false
                            how = "mean magnitude \(NumberText.rounded(m, 3)), peak \(NumberText.rounded(peak ?? 0, 3))"
                        }
                    } else {
                        unit = .si; how = "assumed: no data to judge"
                    }
                }
                if unit == .degPerS || unit == .radPerS { unit = .si }
                if gravity == nil {
                    let mG = mean.map { $0 / (unit == .si ? DataChecks.g : 1) }
                    gravity = DataChecks.includesGravity(meanG: mG) ?? true
                    if let m = mean { how += how == "its name" ? "; mean magnitude \(NumberText.rounded(m, 3))" : "" }
                }
                switch sensor {
                case .user: base = .userX
                case .gravity: base = .gravityX
                default: base = gravity == true ? .accelX : .userX
                }
                if unit == .si { scale = 1 / DataChecks.g }
                let what =
                    base == .accelX
                    ? "acceleration with gravity (accel.*)"
                    : base == .userX ? "acceleration without gravity (user.*)" : "gravity (gravity.*)"
                said.append("\(names) \(what) in \(unit == .si ? "m/s²" : "G") (\(how))")
            }
            for (axis, c) in set.cols.enumerated() {
                let q = base.rawValue + axis
                guard l.slots.firstIndex(of: Int8(q)) == nil else { continue }
                l.slots[c] = Int8(q)
                l.scales[q] = scale
                l.groups |= base.group.bit
                l.lastNeeded = max(l.lastNeeded, c)
            }
            setIndex += 1
        }
        guard l.groups != 0 else { return .refused("No axis columns SensorWah reads.") }
        l.lineTimeGroups = l.groups
        return .layout(l, notes: ["assumed: " + said.joined(separator: "; ")])
    }

    static func unitName(_ u: Double) -> String {
        switch u {
        case 1: return "s"
        case 1e-3: return "ms"
        case 1e-6: return "µs"
        case 1e-9: return "ns"
        default: return "\(u) s"
        }
    }

    /// The unit of a time column from its values: epoch-like magnitudes first, else the unit
    /// that gives a plausible rate (1 to 2000 Hz; nearest 100 Hz when several do).
    static func timeUnitFromData(_ t: [Double]) -> (Double, String)? {
        guard let first = t.first else { return nil }
        let a = abs(first)
        for (lo, u) in [(1e9, 1.0), (1e12, 1e-3), (1e15, 1e-6), (1e18, 1e-9)] where a >= lo && a < lo * 10 {
            // an epoch clock (2001 to 2286): only if the rate agrees
            if let d = DataChecks.medianStep(t), !(1...2000).contains(1 / (d * u)) { break }
            return (u, "epoch-like values")
        }
        guard let d = DataChecks.medianStep(t) else { return nil }
        var best: (Double, Double)? = nil
        for u in [1.0, 1e-3, 1e-6, 1e-9] {
            let hz = 1 / (d * u)
            guard hz >= 1 && hz <= 2000 else { continue }
            let distance = hz > 100 ? hz / 100 : 100 / hz
            if best == nil || distance < best!.1 { best = (u, distance) }
        }
        guard let (u, _) = best else { return nil }
        let hz = 1 / (d * u)
        return (u, "a rate of \(NumberText.rounded(hz, 1)) Hz")
    }
}
