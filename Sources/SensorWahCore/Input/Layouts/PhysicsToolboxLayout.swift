/// Physics Toolbox Sensor Suite (Android): `time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz,`.
extension DialectRecognizer {
    static let physicsToolbox = DialectRecognizer(
        format: .physicstoolbox, name: "Physics Toolbox Sensor Suite",
        expects: "time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz (gF in G, a in m/s^2, w in rad/s)",
        sample: "time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz,",
        headerless: false,
        rule:
            "first column time (no unit), gFx/ax/wx columns, and a mark of the app: gF columns, a total (TgF, aT, wT) or a trailing comma",
        confidence: 0.8,
        test: { h in
            guard !h.isJSON, h.names.count >= 2, h.names[0].lowercased() == "time", h.units[0].isEmpty,
                h.names[1].lowercased() != "seconds_elapsed"
            else { return false }
            // its own marks: gF columns, a total (TgF, aT, wT) or the trailing empty column;
            // a bare `time,ax,ay,az` is the generic layout's
            let marked =
                h.names.contains { $0.hasPrefix("gF") || $0 == "TgF" || $0 == "aT" || $0 == "wT" } || h.raw.last == ""
            return marked && h.names.contains { PhysicsToolboxColumns.role($0) != nil }
        },
        build: { h, _ in SensorParser.physicsToolboxVerdict(h) })
}

extension SensorParser {
    static func physicsToolboxVerdict(_ h: HeaderFields) -> HeaderVerdict {
        var l = ColumnLayout(columnsOf: h, dialect: .physicstoolbox)
        for (i, name) in h.names.enumerated() {
            if i == 0 {
                l.slots[i] = ColumnLayout.lineTimestamp
                l.lineTimeKind = .clock
                l.hasLineTimeColumn = true
                l.lastNeeded = i
                continue
            }
            guard let (q, scale) = PhysicsToolboxColumns.role(name), l.slots.firstIndex(of: Int8(q.rawValue)) == nil
            else { continue }
            l.slots[i] = Int8(q.rawValue)
            l.scales[q.rawValue] = scale
            l.groups |= q.group.bit
            l.lastNeeded = max(l.lastNeeded, i)
        }
        guard l.groups != 0 else { return .refused("This Physics Toolbox file has no gF, a or w columns.") }
        l.lineTimeGroups = l.groups
        return .layout(l, notes: [])
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
