/// SensorLog (iPhone, iPad, Apple Watch): a header of `name(unit)` columns, or one JSON object
/// per line. Columns are matched by name with the unit stripped; every other column is ignored.
extension DialectRecognizer {
    static let sensorLog = DialectRecognizer(
        format: .sensorlog, name: "SensorLog",
        expects:
            "name(unit) columns such as loggingTime(txt), accelerometerTimestamp_sinceReboot(s), accelerometerAccelerationX(G)",
        sample:
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)",
        headerless: false,
        rule:
            "two or more SensorLog column names (units stripped), e.g. loggingTime and accelerometerAccelerationX; header-less: 82 or 5 fields with an ISO date first",
        confidence: 0.9,
        test: { h in
            guard !h.isJSON else { return false }
            let known = h.names.filter { SensorLogColumns.role(of: $0) != nil || SensorLogColumns.isKnownNonMotion($0) }
                .count
            // words any table may have (label columns added to another app's file) do not
            // make a SensorLog header alone
            let distinctive = h.names.contains { n in
                SensorLogColumns.role(of: n) != nil
                    || (SensorLogColumns.isKnownNonMotion(n) && n != "label" && n != "activity" && n != "deviceID")
            }
            return distinctive && (known >= 2 || (known >= 1 && h.names.count <= 2))
        },
        build: { h, _ in
            let l = SensorParser.sensorLogLayout(h.names, separator: h.separator)
            if l.valid { return .layout(l, notes: []) }
            return .refused(
                "This is a SensorLog header, but it has no motion column with its timestamp (for example accelerometerTimestamp_sinceReboot with accelerometerAccelerationX, or loggingTime with motionUserAccelerationX)."
            )
        })

    static let sensorLogJSON = DialectRecognizer(
        format: .sensorlog, name: "SensorLog JSON",
        expects:
            "one JSON object per line with SensorLog keys without units, e.g. {\"loggingTime\":...,\"motionUserAccelerationX\":...}",
        sample:
            "{\"loggingTime\":\"2024-04-09T12:44:46.093+02:00\",\"accelerometerTimestamp_sinceReboot\":\"12.5\",\"accelerometerAccelerationX\":\"0.01\"}",
        headerless: true,
        rule: "a JSON object per line with SensorLog keys",
        confidence: 0.9,
        test: { h in
            h.isJSON
                && h.names.contains { SensorLogColumns.role(of: $0) != nil || SensorLogColumns.isKnownNonMotion($0) }
        },
        build: { _, _ in .refused("SensorLog JSON has no header line.") })
}

extension SensorParser {
    static func sensorLogLayout(_ rawNames: [Substring], separator: UInt8) -> ColumnLayout {
        var l = ColumnLayout()
        l.separator = separator
        l.dialect = .sensorlog
        l.decimalComma = separator == 0x3B || separator == 0x09
        let names = rawNames.map(columnName)
        l.columnCount = names.count
        l.slots = .init(repeating: ColumnLayout.ignore, count: names.count)
        let hasRawGyro =
            names.contains("gyroRotationX") || names.contains("gyroRotationY") || names.contains("gyroRotationZ")
        l.gyroFromMotion = !hasRawGyro
        for (i, name) in names.enumerated() {
            guard let role = SensorLogColumns.role(of: name) else { continue }
            switch role {
            case .timestamp(let g):
                l.slots[i] = ColumnLayout.timestampBase + Int8(g.rawValue)
                l.timestampGroups |= g.bit
            case .value(let q):
                l.slots[i] = Int8(q.rawValue)
                l.groups |= q.group.bit
            case .motionRate(let axis):
                l.slots[i] = ColumnLayout.motionRateBase + Int8(axis)
                l.groups |= SensorGroup.motion.bit
                if l.gyroFromMotion { l.groups |= SensorGroup.gyro.bit }
            }
            l.lastNeeded = i
        }
        if l.timestampGroups == 0, let t = names.firstIndex(of: "loggingTime"), l.groups != 0 {
            // A subset without any `*_sinceReboot` column: every group is timed by the row's
            // `loggingTime` (ISO-8601 with milliseconds). Never mixed with the sinceReboot
            // clock, whose origin is unrelated.
            l.slots[t] = ColumnLayout.lineTimestamp
            l.lineTimeKind = .iso8601
            l.hasLineTimeColumn = true
            l.lineTimeGroups = l.groups
            l.lastNeeded = max(l.lastNeeded, t)
        } else {
            // a group without its timestamp column cannot be timed
            l.groups &= l.timestampGroups | (l.gyroFromMotion && l.timestampGroups & 4 != 0 ? 2 : 0)
        }
        return l
    }
}
