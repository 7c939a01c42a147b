/// Sensor Logger (Kelvin Choi, iOS and Android): one CSV per sensor, `time,seconds_elapsed,z,y,x`
/// in m/s² or rad/s, `time` in epoch ns; which sensor comes from the file name (or `--sensor`).
extension DialectRecognizer {
    static let sensorLogger = DialectRecognizer(
        format: .sensorlogger, name: "Sensor Logger",
        expects:
            "one CSV per sensor: time,seconds_elapsed,z,y,x (the sensor comes from the file name) or time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw",
        sample: "time,seconds_elapsed,z,y,x",
        headerless: false,
        rule: "first columns time, seconds_elapsed; the sensor from the file name",
        confidence: 0.9,
        test: { h in
            !h.isJSON && h.names.count >= 3 && h.names[0].lowercased() == "time"
                && h.names[1].lowercased() == "seconds_elapsed"
        },
        build: { h, o in SensorParser.sensorLoggerVerdict(h, o) })
}

extension SensorParser {
    static func sensorLoggerVerdict(_ h: HeaderFields, _ o: ParserOptions) -> HeaderVerdict {
        var l = ColumnLayout(columnsOf: h, dialect: .sensorlogger)
        let hasXYZ = ["x", "y", "z"].allSatisfy { h.index($0) != nil }
        let hasAttitude = ["roll", "pitch", "yaw"].allSatisfy { h.index($0) != nil }
        let names = ["Accelerometer", "TotalAcceleration", "Gravity", "Gyroscope", "Orientation"].map { "\($0).csv" }
            .joined(separator: ", ")
        let sensor: LoggedSensor
        var notes: [String] = []
        if hasAttitude {
            if let s = o.sensor, s != .orientation {
                return .refused(
                    "This Sensor Logger file has roll, pitch and yaw columns (Orientation), but the file was said to hold \(s.label)."
                )
            }
            sensor = .orientation
        } else if hasXYZ {
            // the file name (a word anywhere in it), checked against the data; --sensor wins
            let rows = o.preview?.rows(under: h) ?? []
            let m = DataChecks.mean(
                DataChecks.magnitudes(rows, (h.index("x")!, h.index("y")!, h.index("z")!), decimalComma: l.decimalComma)
            )
            let (decided, note) = DataChecks.sensor(
                explicit: o.sensor, fileName: o.preview?.fileName, meanMagnitudeSI: m)
            guard let s = decided else {
                return .refused(
                    "This is a Sensor Logger file (one CSV per sensor), but neither its name nor its data says which sensor it holds: name the file after the sensor (\(names)) or pass --sensor \(LoggedSensor.allCases.map(\.rawValue).joined(separator: "|"))."
                )
            }
            guard s != .orientation else {
                return .refused(
                    "This Sensor Logger file has x, y and z columns, but the file was said to hold orientation (roll, pitch, yaw)."
                )
            }
            if let note { notes.append(note) }
            sensor = s
        } else {
            return .refused(
                "This Sensor Logger file is not a motion sensor SensorWah reads (x, y, z or roll, pitch, yaw columns; files \(names))."
            )
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
        return .layout(l, notes: notes)
    }
}
