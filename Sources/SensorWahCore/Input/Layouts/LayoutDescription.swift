/// What the current layout reads, for `sensorwah inspect` (rare path).
public struct ColumnUse: Sendable, Equatable {
    /// 0-based column index and its name in the header (or `--columns`; "column N" without).
    public var index: Int
    public var name: String
    /// The source it feeds (`accel.x`, `gyro.z`, `time`, ...).
    public var feeds: String
    /// Its unit as read, and what it is converted to.
    public var unit: String
}

extension Quantity {
    /// The mapping source name of a quantity (`accel.x`, `quat.w`, ...): the mapper's own.
    var sourceName: String { Source.axis(self).description }
}

extension ColumnLayout {
    /// A layout for `h`'s columns, every one ignored until the layout's builder assigns it;
    /// a decimal comma where the separator is a semicolon or a tab.
    init(columnsOf h: HeaderFields, dialect: SensorFormat) {
        self.init()
        separator = h.separator
        self.dialect = dialect
        columnCount = h.names.count
        slots = .init(repeating: ColumnLayout.ignore, count: h.names.count)
        decimalComma = h.separator == 0x3B || h.separator == 0x09
    }
}

extension SensorParser {
    /// The columns the current layout reads: what each feeds and in which unit.
    public var columnsUsed: [ColumnUse] {
        let names: [String] = acceptedHeader.map { $0.allRaw.map(String.init) } ?? options.fallbackColumns ?? []
        var out: [ColumnUse] = []
        for (i, code) in layout.slots.enumerated() where code != ColumnLayout.ignore {
            let name = i < names.count ? names[i] : "column \(i + 1)"
            let feeds: String, unit: String
            if code < ColumnLayout.timestampBase, let q = Quantity(rawValue: Int(code)) {
                feeds = q.sourceName
                let s = layout.scales[Int(code)]
                switch q.group {
                case .gyro where q.rawValue <= Quantity.gyroZ.rawValue:
                    unit = abs(s - .pi / 180) < 1e-12 ? "deg/s, converted to rad/s" : "rad/s"
                default:
                    if (Quantity.pitch.rawValue...Quantity.yaw.rawValue).contains(q.rawValue) {
                        unit = abs(s - .pi / 180) < 1e-12 ? "degrees, converted to rad" : "rad"
                    } else if q.rawValue >= Quantity.quatX.rawValue {
                        unit = "unit quaternion"
                    } else if q.rawValue >= Quantity.rateX.rawValue && q.rawValue <= Quantity.rateZ.rawValue {
                        unit = "rad/s"
                    } else {
                        unit = abs(s - 1 / HyperIMUColumns.standardGravity) < 1e-12 ? "m/s², converted to G" : "G"
                    }
                }
            } else if code < ColumnLayout.motionRateBase {
                let g = SensorGroup(rawValue: Int(code - ColumnLayout.timestampBase))
                feeds = "time of the \(g?.name ?? "?") samples"
                unit = "s"
            } else if code < ColumnLayout.lineTimestamp {
                feeds =
                    "rate." + ["x", "y", "z"][Int(code - ColumnLayout.motionRateBase)]
                    + (layout.gyroFromMotion
                        ? " and gyro." + ["x", "y", "z"][Int(code - ColumnLayout.motionRateBase)] : "")
                unit = "rad/s"
            } else {
                feeds = "time (every sample of the row)"
                switch layout.lineTimeKind {
                case .iso8601: unit = "ISO 8601 date and time"
                case .clock: unit = "seconds or a time of day"
                case .number: unit = Self.unitName(layout.lineTimestampScale)
                }
            }
            out.append(ColumnUse(index: i, name: name, feeds: feeds, unit: unit))
        }
        return out
    }

    /// The column count of the current layout (0 when none).
    public var layoutColumnCount: Int { layout.columnCount }
}
