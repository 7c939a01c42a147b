/// phyphox CSV export: a quoted header `"Time (s)","Linear Acceleration x (m/s^2)",...`, comma,
/// tab, or semicolon with decimal comma.
extension DialectRecognizer {
    static let phyphox = DialectRecognizer(
        format: .phyphox, name: "phyphox",
        expects:
            "\"Time (s)\" then columns with units, e.g. \"Linear Acceleration x (m/s^2)\", \"Acceleration x (m/s^2)\", \"Gyroscope x (rad/s)\"",
        sample:
            "\"Time (s)\",\"Linear Acceleration x (m/s^2)\",\"Linear Acceleration y (m/s^2)\",\"Linear Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"",
        headerless: false,
        rule: "first column \"Time (s)\", then columns with a phyphox unit (m/s^2, rad/s, deg/s)",
        confidence: 0.9,
        test: { h in
            guard !h.isJSON, h.names.count >= 2, h.names[0].lowercased() == "time", h.units[0] == "s" else {
                return false
            }
            return h.units.dropFirst().contains { PhyphoxUnit($0) != .other }
        },
        build: { h, o in SensorParser.phyphoxVerdict(h, o) })
}

extension SensorParser {
    static func phyphoxVerdict(_ h: HeaderFields, _ o: ParserOptions) -> HeaderVerdict {
        var l = ColumnLayout(columnsOf: h, dialect: .phyphox)
        var ambiguous: [Substring] = []
        var used = Set<Int>()
        var notes: [String] = []
        // plain `X (m/s^2)` columns: the file name and the data say whether gravity is included
        var plain: LoggedSensor? = nil
        let plainColumns = h.names.indices.filter { i in
            i > 0 && PhyphoxUnit(h.units[i]) == .acceleration && ["x", "y", "z"].contains(h.names[i].lowercased())
        }
        if plainColumns.count == 3 {
            let rows = o.preview?.rows(under: h) ?? []
            let m = DataChecks.mean(
                DataChecks.magnitudes(
                    rows, (plainColumns[0], plainColumns[1], plainColumns[2]), decimalComma: l.decimalComma))
            let (s, note) = DataChecks.sensor(explicit: o.sensor, fileName: o.preview?.fileName, meanMagnitudeSI: m)
            plain = s
            if let note { notes.append(note) }
        } else {
            plain = o.sensor
        }
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
                switch plain {
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
            return .refused(
                "This phyphox file's columns \(ambiguous.map { "\"\($0)\"" }.joined(separator: ", ")) are in m/s^2 but do not say whether gravity is included: export \"Acceleration with g\" or \"Linear Acceleration\", name the file after the experiment (\"Acceleration with g ...csv\", \"Acceleration without g ...csv\"), or pass --sensor \(LoggedSensor.allCases.map(\.rawValue).joined(separator: "|"))."
            )
        }
        guard l.groups != 0 else {
            return .refused("This phyphox file has no acceleration (m/s^2) or rotation-rate (rad/s) x, y, z columns.")
        }
        l.lineTimeGroups = l.groups
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
