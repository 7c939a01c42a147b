/// Which sensor a one-sensor file holds, when its header does not say (Sensor Logger writes
/// the same `time,seconds_elapsed,z,y,x` header for every sensor; phyphox may write plain
/// `X (m/s^2)` columns). The raw values name the mapping sources the sensor feeds.
public enum LoggedSensor: String, CaseIterable, Sendable {
    /// Acceleration without gravity (m/s^2 in the file): feeds `user.*`.
    case userAcceleration = "user"
    /// Acceleration including gravity (m/s^2): feeds `accel.*`.
    case totalAcceleration = "accel"
    /// The gravity vector (m/s^2): feeds `gravity.*`.
    case gravity
    /// Rotation rate (rad/s): feeds `gyro.*`.
    case gyroscope = "gyro"
    /// Attitude (roll, pitch, yaw in rad): feeds `pitch`, `roll`, `yaw`.
    case orientation

    public var label: String {
        switch self {
        case .userAcceleration: return "acceleration without gravity (user.*)"
        case .totalAcceleration: return "acceleration with gravity (accel.*)"
        case .gravity: return "gravity (gravity.*)"
        case .gyroscope: return "rotation rate (gyro.*)"
        case .orientation: return "orientation (pitch, roll, yaw)"
        }
    }

    /// The sensor a file holds, from its name (a path is fine; case and extension ignored).
    /// Sensor Logger's names: `Accelerometer.csv` is acceleration WITHOUT gravity (Sensor
    /// Logger's own definition), `TotalAcceleration.csv` includes it, `Gravity.csv`,
    /// `Gyroscope.csv`, `Orientation.csv`. phyphox export names starting with "Acceleration
    /// with g", "Acceleration without g", "Linear Acceleration" or "Gyroscope" are understood
    /// too. Uncalibrated files (`AccelerometerUncalibrated`: G on iOS but m/s^2 on Android)
    /// and every other name give nil.
    public static func fromFileName(_ name: String) -> LoggedSensor? {
        var base = Substring(name)
        if let slash = base.lastIndex(where: { $0 == "/" || $0 == "\\" }) { base = base[base.index(after: slash)...] }
        if let dot = base.firstIndex(of: ".") { base = base[..<dot] }
        let key = String(base.lowercased().filter { $0.isLetter || $0.isNumber })
        if key.contains("uncalibrated") { return nil }
        switch key {
        case "accelerometer": return .userAcceleration
        case "totalacceleration": return .totalAcceleration
        case "gravity": return .gravity
        case "gyroscope": return .gyroscope
        case "orientation": return .orientation
        default: break
        }
        // phyphox: "<experiment> <date>.csv"
        if key.hasPrefix("accelerationwithoutg") || key.hasPrefix("linearacceleration") { return .userAcceleration }
        if key.hasPrefix("accelerationwithg") { return .totalAcceleration }
        if key.hasPrefix("gyroscope") { return .gyroscope }
        return nil
    }

    var base: Quantity {
        switch self {
        case .userAcceleration: return .userX
        case .totalAcceleration: return .accelX
        case .gravity: return .gravityX
        case .gyroscope: return .gyroX
        case .orientation: return .pitch
        }
    }

    var scaleFromSI: Double { self == .gyroscope || self == .orientation ? 1 : 1 / HyperIMUColumns.standardGravity }
}

/// A header line cut into fields (rare path: allocation is fine).
struct HeaderFields: Sendable {
    let text: String
    let separator: UInt8
    /// Fields with spaces, quotes and a byte-order mark trimmed, units kept.
    let raw: [Substring]
    /// Names without the `(unit)` suffix.
    let names: [Substring]
    /// The text inside a trailing `(unit)`, or empty.
    let units: [Substring]
    /// A `{...}` line: `names` are its keys.
    let isJSON: Bool

    init(_ line: String) {
        text = line
        var t = Substring(line)
        while let f = t.first, f == " " || f == "\t" || f == "\u{FEFF}" { t = t.dropFirst() }
        if t.first == "{" {
            isJSON = true
            separator = 0x2C
            var keys: [Substring] = []
            var bytes = Array(t.utf8)
            bytes.withUnsafeBufferPointer { b in
                _ = JSONScan.members(b.baseAddress!, b.count) { k, kn, _, _, _ in
                    keys.append(Substring(String(decoding: UnsafeBufferPointer(start: k, count: kn), as: UTF8.self)))
                    return true
                }
            }
            bytes.removeAll()
            raw = keys; names = keys; units = keys.map { _ in "" }
            return
        }
        isJSON = false
        let sep = SensorParser.detectSeparator(line)
        separator = sep
        let fields = line.split(separator: Character(Unicode.Scalar(sep)), omittingEmptySubsequences: false)
        raw = fields.map { f in
            var s = f
            while let c = s.first, c == " " || c == "\"" || c == "\u{FEFF}" || c == "\t" { s = s.dropFirst() }
            while let c = s.last, c == " " || c == "\"" || c == "\r" || c == "\t" { s = s.dropLast() }
            return s
        }
        names = fields.map(columnName)
        units = raw.map { f in
            guard f.last == ")", let open = f.lastIndex(of: "(") else { return "" }
            return f[f.index(after: open)..<f.index(before: f.endIndex)]
        }
    }

    /// Two or more fields and none of them a number: a header, not a data row.
    var looksLikeHeader: Bool {
        guard raw.count >= 2 || isJSON else { return false }
        for f in raw where !f.isEmpty {
            var s = String(f)
            let v = s.withUTF8 { parseField($0.baseAddress!, $0.count) }
            if case .number = v { return false }
        }
        return true
    }

    func index(_ name: String) -> Int? { names.firstIndex { $0.lowercased() == name } }
}

enum HeaderVerdict {
    case layout(ColumnLayout, notes: [String])
    case refused(String)
}

/// One row of the detection table: how a dialect recognises its header (or, for dialects
/// without a header, its rows), described for people and tested as data.
public struct DialectRecognizer: Sendable {
    public let format: SensorFormat
    /// The app, for messages.
    public let name: String
    /// What the header (or row) must look like, for messages.
    public let expects: String
    /// A typical header (or row) of the dialect.
    public let sample: String
    /// Recognised per row (no header line): Sensorstream rows, SensorLog JSON objects.
    public let headerless: Bool
    let test: @Sendable (HeaderFields) -> Bool
    let build: @Sendable (HeaderFields, ParserOptions) -> HeaderVerdict

    /// True when this entry recognises `line` as its header (or row).
    public func recognizes(_ line: String) -> Bool { test(HeaderFields(line)) }
}

extension SensorParser {
    /// The detection table, in the order it is consulted. Each entry recognises its own
    /// dialect's header and no other entry's (a test walks it row by row). A recognised
    /// header may still be refused by its builder (Sensor Logger without a sensor hint, an
    /// ambiguous unit or chip name); an unrecognised one is refused with `refusal` set.
    public static let dialects: [DialectRecognizer] = [
        DialectRecognizer(
            format: .sensorlog, name: "SensorLog",
            expects: "name(unit) columns such as loggingTime(txt), accelerometerTimestamp_sinceReboot(s), accelerometerAccelerationX(G)",
            sample: "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)",
            headerless: false,
            test: { h in
                guard !h.isJSON else { return false }
                let known = h.names.filter { SensorLogColumns.role(of: $0) != nil || SensorLogColumns.isKnownNonMotion($0) }.count
                return known >= 2 || (known >= 1 && h.names.count <= 2)
            },
            build: { h, _ in
                let l = SensorParser.sensorLogLayout(h.names, separator: h.separator)
                if l.valid { return .layout(l, notes: []) }
                return .refused("This is a SensorLog header, but it has no motion column with its timestamp (for example accelerometerTimestamp_sinceReboot with accelerometerAccelerationX, or loggingTime with motionUserAccelerationX).")
            }),
        DialectRecognizer(
            format: .sensorlog, name: "SensorLog JSON",
            expects: "one JSON object per line with SensorLog keys without units, e.g. {\"loggingTime\":...,\"motionUserAccelerationX\":...}",
            sample: "{\"loggingTime\":\"2024-04-09T12:44:46.093+02:00\",\"accelerometerTimestamp_sinceReboot\":\"12.5\",\"accelerometerAccelerationX\":\"0.01\"}",
            headerless: true,
            test: { h in h.isJSON && h.names.contains { SensorLogColumns.role(of: $0) != nil || SensorLogColumns.isKnownNonMotion($0) } },
            build: { _, _ in .refused("SensorLog JSON has no header line.") }),
        DialectRecognizer(
            format: .sensorlogger, name: "Sensor Logger",
            expects: "one CSV per sensor: time,seconds_elapsed,z,y,x (the sensor comes from the file name) or time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw",
            sample: "time,seconds_elapsed,z,y,x",
            headerless: false,
            test: { h in
                !h.isJSON && h.names.count >= 3 && h.names[0].lowercased() == "time" && h.names[1].lowercased() == "seconds_elapsed"
            },
            build: { h, o in SensorParser.sensorLoggerVerdict(h, o) }),
        DialectRecognizer(
            format: .phyphox, name: "phyphox",
            expects: "\"Time (s)\" then columns with units, e.g. \"Linear Acceleration x (m/s^2)\", \"Acceleration x (m/s^2)\", \"Gyroscope x (rad/s)\"",
            sample: "\"Time (s)\",\"Linear Acceleration x (m/s^2)\",\"Linear Acceleration y (m/s^2)\",\"Linear Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"",
            headerless: false,
            test: { h in
                guard !h.isJSON, h.names.count >= 2, h.names[0].lowercased() == "time", h.units[0] == "s" else { return false }
                return h.units.dropFirst().contains { PhyphoxUnit($0) != .other }
            },
            build: { h, o in SensorParser.phyphoxVerdict(h, o) }),
        DialectRecognizer(
            format: .physicstoolbox, name: "Physics Toolbox Sensor Suite",
            expects: "time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz (gF in G, a in m/s^2, w in rad/s)",
            sample: "time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz,",
            headerless: false,
            test: { h in
                guard !h.isJSON, h.names.count >= 2, h.names[0].lowercased() == "time", h.units[0].isEmpty,
                      h.names[1].lowercased() != "seconds_elapsed" else { return false }
                return h.names.contains { PhysicsToolboxColumns.role($0) != nil }
            },
            build: { h, _ in SensorParser.physicsToolboxVerdict(h) }),
        DialectRecognizer(
            format: .hyperimu, name: "HyperIMU",
            expects: "optional timestamp, then sensor.x/.y/.z columns, e.g. timestamp,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z",
            sample: "timestamp,MPL_Gyroscope.x,MPL_Gyroscope.y,MPL_Gyroscope.z,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z",
            headerless: false,
            test: { h in
                guard !h.isJSON else { return false }
                return h.names.contains { n in
                    guard let dot = n.lastIndex(of: "."), dot != n.startIndex else { return false }
                    let axis = n[n.index(after: dot)...].lowercased()
                    return axis == "x" || axis == "y" || axis == "z"
                }
            },
            build: { h, _ in SensorParser.hyperIMUVerdict(h.names, separator: h.separator) }),
        DialectRecognizer(
            format: .sensorstream, name: "Sensorstream IMU+GPS",
            expects: "no header; rows timestamp, 3, ax, ay, az, 4, gx, gy, gz, ... (sensor id then three values)",
            sample: "890.71558, 3, 0.297, 0.000, 9.80665, 4, 0.1, 0.2, 0.3",
            headerless: true,
            test: { h in !h.isJSON && SensorParser.looksLikeSensorstream(h.text) },
            build: { _, _ in .refused("Sensorstream rows have no header.") }),
    ]

    /// The dialect entries that recognise `line` (a test and diagnostic aid).
    public static func recognizers(of line: String) -> [DialectRecognizer] {
        let h = HeaderFields(line)
        return dialects.filter { $0.test(h) }
    }

    static func refusalMessage(_ h: HeaderFields, reason: String?, forced: SensorFormat) -> String {
        let shown = h.raw.prefix(16).map { "\"\($0)\"" }.joined(separator: ", ")
        let more = h.raw.count > 16 ? ", ... (\(h.raw.count - 16) more)" : ""
        var s = "header not understood: \(h.raw.count) column\(h.raw.count == 1 ? "" : "s") \(shown)\(more)."
        if let reason { s += " " + reason }
        s += " Known layouts: " + dialects.map { "\($0.name): \($0.expects)" }.joined(separator: "; ") + "."
        if forced != .auto { s += " The input format was set to \(forced.rawValue)." }
        s += " Rows under this header are skipped, never guessed: choose the layout with --format, or name the columns of a header-less SensorLog stream with --columns."
        return s
    }

    // MARK: - Builders

    static func sensorLoggerVerdict(_ h: HeaderFields, _ o: ParserOptions) -> HeaderVerdict {
        var l = ColumnLayout()
        l.separator = h.separator
        l.dialect = .sensorlogger
        l.columnCount = h.names.count
        l.slots = .init(repeating: ColumnLayout.ignore, count: h.names.count)
        l.decimalComma = h.separator == 0x3B || h.separator == 0x09
        let hasXYZ = ["x", "y", "z"].allSatisfy { h.index($0) != nil }
        let hasAttitude = ["roll", "pitch", "yaw"].allSatisfy { h.index($0) != nil }
        let names = ["Accelerometer", "TotalAcceleration", "Gravity", "Gyroscope", "Orientation"].map { "\($0).csv" }.joined(separator: ", ")
        let sensor: LoggedSensor
        if hasAttitude {
            if let s = o.sensor, s != .orientation {
                return .refused("This Sensor Logger file has roll, pitch and yaw columns (Orientation), but the file was said to hold \(s.label).")
            }
            sensor = .orientation
        } else if hasXYZ {
            guard let s = o.sensor else {
                return .refused("This is a Sensor Logger file (one CSV per sensor), but its header does not say which sensor it holds: name the file after the sensor (\(names)) or pass --sensor \(LoggedSensor.allCases.map(\.rawValue).joined(separator: "|")).")
            }
            guard s != .orientation else {
                return .refused("This Sensor Logger file has x, y and z columns, but the file was said to hold orientation (roll, pitch, yaw).")
            }
            sensor = s
        } else {
            return .refused("This Sensor Logger file is not a motion sensor SensorWah reads (x, y, z or roll, pitch, yaw columns; files \(names)).")
        }
        if sensor == .orientation {
            for (axisName, q) in [("pitch", Quantity.pitch), ("roll", .roll), ("yaw", .yaw)] {
                let i = h.index(axisName)!
                l.slots[i] = Int8(q.rawValue)
                l.lastNeeded = max(l.lastNeeded, i)
            }
        } else {
            for (axis, axisName) in ["x", "y", "z"].enumerated() {
                let i = h.index(axisName)!
                let q = sensor.base.rawValue + axis
                l.slots[i] = Int8(q)
                l.scales[q] = sensor.scaleFromSI
                l.lastNeeded = max(l.lastNeeded, i)
            }
        }
        l.groups = sensor.base.group.bit
        // `time` (epoch ns) is the same clock in every file of a recording and across devices:
        // it is what `FrameMerger` aligns on. `seconds_elapsed` only when `time` is absent.
        if let t = h.index("time") {
            l.slots[t] = ColumnLayout.lineTimestamp
            l.lineTimestampScale = 1e-9
            l.lastNeeded = max(l.lastNeeded, t)
        } else if let t = h.index("seconds_elapsed") {
            l.slots[t] = ColumnLayout.lineTimestamp
            l.lastNeeded = max(l.lastNeeded, t)
        }
        l.hasLineTimeColumn = true
        l.lineTimeGroups = l.groups
        return .layout(l, notes: [])
    }

    static func phyphoxVerdict(_ h: HeaderFields, _ o: ParserOptions) -> HeaderVerdict {
        var l = ColumnLayout()
        l.separator = h.separator
        l.dialect = .phyphox
        l.columnCount = h.names.count
        l.slots = .init(repeating: ColumnLayout.ignore, count: h.names.count)
        l.decimalComma = h.separator == 0x3B || h.separator == 0x09
        var ambiguous: [Substring] = []
        var used = Set<Int>()
        for (i, rawName) in h.names.enumerated() {
            let name = rawName.lowercased()
            let unit = PhyphoxUnit(h.units[i])
            if i == 0 {
                // the recogniser checked: "Time (s)"
                l.slots[i] = ColumnLayout.lineTimestamp
                l.hasLineTimeColumn = true
                l.lastNeeded = i
                continue
            }
            let words = name.split(separator: " ")
            guard let last = words.last, let axis = ["x": 0, "y": 1, "z": 2][String(last)] else { continue }
            let prefix = words.dropLast().joined(separator: " ")
            var base: Quantity?
            var scale = 1.0
            switch (prefix, unit) {
            case ("linear acceleration", .acceleration): base = .userX
            case ("acceleration", .acceleration): base = .accelX
            case ("gravity", .acceleration): base = .gravityX
            case ("gyroscope", .rotationRate), ("rotation rate", .rotationRate), ("", .rotationRate): base = .gyroX
            case ("gyroscope", .degreesPerSecond), ("rotation rate", .degreesPerSecond), ("", .degreesPerSecond):
                base = .gyroX; scale = .pi / 180
            case ("", .acceleration):
                switch o.sensor {
                case .userAcceleration?: base = .userX
                case .totalAcceleration?: base = .accelX
                case .gravity?: base = .gravityX
                default: ambiguous.append(h.raw[i])
                }
            default: break
            }
            guard let b = base else { continue }
            if b != .gyroX { scale = 1 / HyperIMUColumns.standardGravity }
            let q = b.rawValue + axis
            if used.contains(q) { continue }
            used.insert(q)
            l.slots[i] = Int8(q)
            l.scales[q] = scale
            l.groups |= b.group.bit
            l.lastNeeded = max(l.lastNeeded, i)
        }
        if !ambiguous.isEmpty {
            return .refused("This phyphox file's columns \(ambiguous.map { "\"\($0)\"" }.joined(separator: ", ")) are in m/s^2 but do not say whether gravity is included: export \"Acceleration with g\" or \"Linear Acceleration\", name the file after the experiment (\"Acceleration with g ...csv\", \"Acceleration without g ...csv\"), or pass --sensor \(LoggedSensor.allCases.map(\.rawValue).joined(separator: "|")).")
        }
        guard l.groups != 0 else {
            return .refused("This phyphox file has no acceleration (m/s^2) or rotation-rate (rad/s) x, y, z columns.")
        }
        l.lineTimeGroups = l.groups
        return .layout(l, notes: [])
    }

    static func physicsToolboxVerdict(_ h: HeaderFields) -> HeaderVerdict {
        var l = ColumnLayout()
        l.separator = h.separator
        l.dialect = .physicstoolbox
        l.columnCount = h.names.count
        l.slots = .init(repeating: ColumnLayout.ignore, count: h.names.count)
        l.decimalComma = h.separator == 0x3B || h.separator == 0x09
        for (i, name) in h.names.enumerated() {
            if i == 0 {
                l.slots[i] = ColumnLayout.lineTimestamp
                l.lineTimeKind = .clock
                l.hasLineTimeColumn = true
                l.lastNeeded = i
                continue
            }
            guard let (q, scale) = PhysicsToolboxColumns.role(name), l.slots.firstIndex(of: Int8(q.rawValue)) == nil else { continue }
            l.slots[i] = Int8(q.rawValue)
            l.scales[q.rawValue] = scale
            l.groups |= q.group.bit
            l.lastNeeded = max(l.lastNeeded, i)
        }
        guard l.groups != 0 else { return .refused("This Physics Toolbox file has no gF, a or w columns.") }
        l.lineTimeGroups = l.groups
        return .layout(l, notes: [])
    }

    static func hyperIMUVerdict(_ rawNames: [Substring], separator: UInt8) -> HeaderVerdict {
        var l = ColumnLayout()
        l.separator = separator
        l.dialect = .hyperimu
        let names = rawNames.map(columnName)
        l.columnCount = names.count
        l.slots = .init(repeating: ColumnLayout.ignore, count: names.count)
        l.decimalComma = separator == 0x3B || separator == 0x09
        var used = Set<Int>()
        var ambiguous: [String] = []
        var textColumns: [Int] = []
        for (i, name) in names.enumerated() {
            let lower = name.lowercased()
            if lower == "timestamp" || lower == "time" {
                l.slots[i] = ColumnLayout.lineTimestamp
                l.lineTimestampScale = 0.001
                l.timestampGroups = 7
                l.hasLineTimeColumn = true
                l.lastNeeded = max(l.lastNeeded, i)
                continue
            }
            if lower.contains("nmea") { textColumns.append(i) }
            guard let dot = name.lastIndex(of: ".") else { continue }
            let axisName = name[name.index(after: dot)...].lowercased()
            guard let axis = ["x": 0, "y": 1, "z": 2][axisName] else { continue }
            let sensor = name[..<dot]
            switch HyperIMUColumns.classify(sensor) {
            case .ignored: continue
            case .ambiguous:
                if !ambiguous.contains(String(sensor)) { ambiguous.append(String(sensor)) }
                continue
            case .quantity(let base, let scale):
                var q = base.rawValue + axis
                if base == .yaw { q = [Quantity.yaw, .pitch, .roll][axis].rawValue }   // azimuth, pitch, roll
                if used.contains(q) { continue }   // first sensor of a kind wins
                used.insert(q)
                l.slots[i] = Int8(q)
                l.scales[q] = scale
                l.groups |= Quantity(rawValue: q)!.group.bit
                l.lastNeeded = max(l.lastNeeded, i)
            }
        }
        let ambiguousText = ambiguous.map { "\"\($0)\"" }.joined(separator: ", ")
        guard l.groups != 0 else {
            if !ambiguous.isEmpty {
                return .refused("This HyperIMU header names its sensors by chip (\(ambiguousText)): such a chip holds both an accelerometer and a gyroscope, so its columns cannot be told apart. Rename the sensors in HyperIMU, or record with sensor names that say Accelerometer or Gyroscope.")
            }
            return .refused("This HyperIMU header has no accelerometer, gyroscope, linear-acceleration, gravity or orientation column SensorWah recognises.")
        }
        // a text column that may hold separators (NMEA sentences) before a motion column shifts fields
        if textColumns.contains(where: { $0 < l.lastNeeded }) { l.strictFieldCount = true }
        l.lineTimeGroups = 7
        var notes: [String] = []
        if !ambiguous.isEmpty {
            notes.append("columns of \(ambiguousText) left out: the chip name does not say whether they are accelerometer or gyroscope")
        }
        return .layout(l, notes: notes)
    }
}

/// Units phyphox writes in its column names.
enum PhyphoxUnit: Equatable {
    case acceleration, rotationRate, degreesPerSecond, other
    init(_ unit: Substring) {
        switch String(unit.lowercased().filter { $0 != " " }) {
        case "m/s^2", "m/s²", "m/s/s", "ms^-2", "m/s2": self = .acceleration
        case "rad/s", "rad/sec": self = .rotationRate
        case "deg/s", "°/s": self = .degreesPerSecond
        default: self = .other
        }
    }
}

/// Physics Toolbox Sensor Suite columns: gF (G-force, includes gravity) in G, a (linear
/// acceleration) in m/s^2, w (gyroscope) in rad/s. Totals (TgF, aT, wT) and other sensors are
/// left out.
enum PhysicsToolboxColumns {
    static func role(_ name: Substring) -> (Quantity, Double)? {
        switch name {
        case "gFx": return (.accelX, 1)
        case "gFy": return (.accelY, 1)
        case "gFz": return (.accelZ, 1)
        case "ax": return (.userX, 1 / HyperIMUColumns.standardGravity)
        case "ay": return (.userY, 1 / HyperIMUColumns.standardGravity)
        case "az": return (.userZ, 1 / HyperIMUColumns.standardGravity)
        case "wx": return (.gyroX, 1)
        case "wy": return (.gyroY, 1)
        case "wz": return (.gyroZ, 1)
        default: return nil
        }
    }
}
