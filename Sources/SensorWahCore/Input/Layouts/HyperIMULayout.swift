/// HyperIMU (Android): `@` comment lines, then an optional header of `sensor.x` columns and an
/// optional epoch-ms timestamp first.
extension DialectRecognizer {
    static let hyperIMU = DialectRecognizer(
        format: .hyperimu, name: "HyperIMU",
        expects:
            "optional timestamp, then sensor.x/.y/.z columns, e.g. timestamp,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z",
        sample:
            "timestamp,MPL_Gyroscope.x,MPL_Gyroscope.y,MPL_Gyroscope.z,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z",
        headerless: false,
        rule: "a column named sensor.x, sensor.y or sensor.z",
        confidence: 0.7,
        test: { h in
            guard !h.isJSON else { return false }
            return h.names.contains { n in
                guard let dot = n.lastIndex(of: "."), dot != n.startIndex else { return false }
                let axis = n[n.index(after: dot)...].lowercased()
                return axis == "x" || axis == "y" || axis == "z"
            }
        },
        build: { h, _ in SensorParser.hyperIMUVerdict(h.names, separator: h.separator) })
}

extension SensorParser {
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
                if base == .yaw { q = [Quantity.yaw, .pitch, .roll][axis].rawValue }  // azimuth, pitch, roll
                if used.contains(q) { continue }  // first sensor of a kind wins
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
                return .refused(
                    "This HyperIMU header names its sensors by chip (\(ambiguousText)): such a chip holds both an accelerometer and a gyroscope, so its columns cannot be told apart. Rename the sensors in HyperIMU, or record with sensor names that say Accelerometer or Gyroscope."
                )
            }
            return .refused(
                "This HyperIMU header has no accelerometer, gyroscope, linear-acceleration, gravity or orientation column SensorWah recognises."
            )
        }
        // a text column that may hold separators (NMEA sentences) before a motion column shifts fields
        if textColumns.contains(where: { $0 < l.lastNeeded }) { l.strictFieldCount = true }
        l.lineTimeGroups = 7
        var notes: [String] = []
        if !ambiguous.isEmpty {
            notes.append(
                "columns of \(ambiguousText) left out: the chip name does not say whether they are accelerometer or gyroscope"
            )
        }
        return .layout(l, notes: notes)
    }

    static func hyperIMULayout(_ rawNames: [Substring], separator: UInt8) -> ColumnLayout? {
        if case .layout(let l, _) = hyperIMUVerdict(rawNames, separator: separator) { return l }
        return nil
    }
}
