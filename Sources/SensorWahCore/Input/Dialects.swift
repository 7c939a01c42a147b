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
    /// The sensor word may be anywhere in the name (a prefix or suffix added by the user).
    /// Sensor Logger's names: `Accelerometer.csv` is acceleration WITHOUT gravity (Sensor
    /// Logger's own definition), `TotalAcceleration.csv` includes it, `Gravity.csv`,
    /// `Gyroscope.csv`, `Orientation.csv`. phyphox export names starting with "Acceleration
    /// with g", "Acceleration without g", "Linear Acceleration" or "Gyroscope" are understood
    /// too. Uncalibrated files (`AccelerometerUncalibrated`: G on iOS but m/s^2 on Android)
    /// and every other name give nil.
    public static func fromFileName(_ name: String) -> LoggedSensor? {
        var base = Substring(name)
        if let slash = base.lastIndex(where: { $0 == "/" || $0 == "\\" }) { base = base[base.index(after: slash)...] }
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
        // the sensor word anywhere in the name: `walk1_Accelerometer`, `Accelerometer 3`,
        // `2023-06-09 12-44 run_Gyroscope`; longer words first
        let key = String(base.lowercased().filter { $0.isLetter || $0.isNumber })
        if key.contains("uncalibrated") { return nil }
        if key.contains("accelerationwithoutg") || key.contains("linearacceleration")
            || key.contains("linearaccelerometer")
        {
            return .userAcceleration
        }
        if key.contains("accelerationwithg") || key.contains("totalacceleration") { return .totalAcceleration }
        if key.contains("accelerometer") { return .userAcceleration }
        if key.contains("gravity") { return .gravity }
        if key.contains("gyroscope") { return .gyroscope }
        if key.contains("orientation") { return .orientation }
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
    /// Fields with spaces, quotes and a byte-order mark trimmed, units kept; without the
    /// leading index columns of a re-saved table (`leading` of them, kept in `allRaw`).
    let raw: [Substring]
    var leading = 0
    var allRaw: [Substring] = []
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
            raw = keys; allRaw = keys; names = keys; units = keys.map { _ in "" }
            return
        }
        isJSON = false
        let sep = SensorParser.detectSeparator(line)
        separator = sep
        let fields = line.split(separator: Character(Unicode.Scalar(sep)), omittingEmptySubsequences: false)
        let trimmed = fields.map { f in
            var s = f
            while let c = s.first, c == " " || c == "\"" || c == "\u{FEFF}" || c == "\t" { s = s.dropFirst() }
            while let c = s.last, c == " " || c == "\"" || c == "\r" || c == "\t" { s = s.dropLast() }
            return s
        }
        // a re-saved table's leading index columns (pandas: an empty name, or `Unnamed: 0`)
        var k = 0
        while k < trimmed.count - 2, trimmed[k].isEmpty || trimmed[k].lowercased().hasPrefix("unnamed:") { k += 1 }
        if k > 0 && trimmed[k...].allSatisfy({ $0.isEmpty }) { k = 0 }
        leading = k
        allRaw = trimmed
        raw = Array(trimmed[k...])
        names = fields[k...].map(columnName)
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
