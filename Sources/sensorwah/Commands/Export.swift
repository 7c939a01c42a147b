import ArgumentParser
import Foundation
import SensorWahCore
import SensorWahEngine
import SensorWahIO
#if canImport(Glibc)
    import Glibc
#endif

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write chosen sources of a sensor log, raw or derived, as a CSV table.",
        discussion: """
            One row per frame: `t` (seconds of sensor time) and one column per source in the \
            source's units (G, rad/s, degrees for tilt.pitch/roll, gesture strength on the frame \
            a gesture fires). `SOURCE@MS` smooths a column like a mapping's smooth=MS.

            `--list-gestures` lists the gestures instead, one row per gesture that fired: \
            `time,gesture,strength` (seconds since the first sample; strength in the gesture's \
            units: a flick's peak rotation rate in rad/s, or 3 x its peak acceleration in G when the \
            accelerometer found it; shake and tap in G; a taught gesture, gesture:NAME, its match \
            quality 0.5-1). Tune the gesture settings on a take of your own: count the rows against \
            the strokes you made, and try other values with `--gesture-setting NAME=VALUE` \
            (docs/gestures.md). `--gestures FILE` adds the gestures and poses taught by example \
            (`sensorwah teach`): sources gesture:NAME, gesture:NAME.progress, pose:NAME.

            Examples:
              sensorwah export Recordings/wrist-wah-phone.csv \\
                  --sources tilt.pitch,tilt.roll,pitch,roll
              sensorwah export take.csv --sources accel.x,tilt.x,tilt.x@40,flick,tap -o \\
                  take-tilt.csv
              sensorwah export take.csv --list-gestures
              sensorwah export take.csv --list-gestures \\
                  --gesture-setting flickAccelThreshold=2.5
              sensorwah export take.csv --gestures moves.yaml \\
                  --sources gesture:forehand,gesture:forehand.progress
              sensorwah export watch.csv \\
                  --columns accelerometerTimestamp_sinceReboot,accelerometerAccelerationX,accelerometerAccelerationY,accelerometerAccelerationZ \\
                  --list-gestures
            """
    )

    @Argument(help: "A sensor log (SensorLog CSV, HyperIMU, Sensorstream, ...).")
    var file: String
    @Option(
        help: ArgumentHelp(
            "Comma-separated sources: accel.x, gyro.z, tilt.x, tilt.pitch, zero.x, flick, shake, tap, accel.mag, ... (SOURCE@MS: smoothed).",
            valueName: "LIST"))
    var sources: String?
    @Flag(
        name: .customLong("list-gestures"),
        help:
            "List the gestures that fire (flick, shake, tap, and the taught ones), one row each: time,gesture,strength."
    )
    var gestures = false
    @Option(
        name: .customLong("gestures"),
        help: ArgumentHelp(
            "Gestures and poses taught by example (a file `sensorwah teach` writes): sources gesture:NAME, gesture:NAME.progress, pose:NAME.",
            valueName: "FILE"))
    var gesturesFile: String?
    @Option(
        name: .customLong("gesture-setting"), parsing: .singleValue,
        help: ArgumentHelp(
            "Try another gesture setting on this take, NAME=VALUE (repeatable; seconds, G, rad/s): flickAccelThreshold=2.5, shakeMinDuration=1, ... (docs/gestures.md lists them).",
            valueName: "NAME=VALUE"))
    var gestureSettings: [String] = []
    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp("Write the table here instead of stdout.", valueName: "FILE"))
    var output: String?
    @OptionGroup(title: "Input") var input: InputOptions
    @Option(help: ArgumentHelp("Where tilt.* comes from: fused or device.", valueName: "fused|device"))
    var tiltSource = "fused"
    @OptionGroup(title: "General") var global: GlobalOptions

    func columns() throws -> [ExportColumn] {
        let specs = (sources ?? "").split(separator: ",").map { String($0) }
        guard !specs.isEmpty else {
            throw ValidationError("--sources needs at least one source, e.g. --sources tilt.x,accel.x")
        }
        var columns = try specs.map { spec in
            do { return try ExportColumn(parsing: spec) } catch let e as MappingSyntaxError {
                throw ValidationError("--sources: \(e.message)")
            }
        }
        // taught gestures and poses: their slots in the model
        var probe = columns.map { Mapping(source: $0.source, target: .controlChange(channel: 0, controller: 0)) }
        if let error = LearnedModel.resolve(&probe, against: try learnedModel(), file: gesturesFile) {
            throw ValidationError("--sources: \(error)")
        }
        for i in columns.indices { columns[i].source = probe[i].source }
        return columns
    }

    func learnedModel() throws -> LearnedModel? {
        guard let path = gesturesFile else { return nil }
        do { return try GestureModelFile.read(path) } catch let p as GestureModelFile.Problem {
            throw RuntimeFailure(p.description)
        }
    }

    func gestureSettingsValue() throws -> GestureSettings { try GestureSettings.parsing(gestureSettings) }

    func validate() throws {
        _ = try gestureSettingsValue()
        if gestures {
            guard sources == nil else {
                throw ValidationError("--list-gestures lists the gestures by itself: leave out --sources")
            }
        } else {
            _ = try columns()
        }
        guard TiltSource(rawValue: tiltSource.lowercased()) != nil else {
            throw ValidationError("--tilt-source '\(tiltSource)': fused or device")
        }
    }

    func run() throws {
        var motion = MotionSettings()
        motion.tiltSource = TiltSource(rawValue: tiltSource.lowercased()) ?? .fused
        motion.gestures = try gestureSettingsValue()
        motion.learned = try learnedModel()
        let export = FileExport(
            path: file, parserOptions: input.parserOptions(), maxLineLength: input.maxLine, motion: motion)
        var fd: Int32 = 1
        if let o = output {
            fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw RuntimeFailure("cannot write '\(o)': \(String(cString: strerror(errno)))") }
        }
        defer { if fd != 1 { close(fd) } }
        let stats: ParserStats
        do {
            stats =
                gestures
                ? try Self.listGestures(export, learned: motion.learned, to: fd)
                : try export.run(columns: try columns(), to: fd)
        } catch { throw RuntimeFailure("\(error)") }
        guard stats.frames > 0 else {
            throw RuntimeFailure("'\(file)': no sensor frames (\(stats.totalSkipped) rows skipped)")
        }
        printError("export: \(stats.frames) rows from \(file)\(output.map { " to \($0)" } ?? "")")
    }

    /// `--list-gestures`: one `time,gesture,strength` row per gesture that fired.
    static func listGestures(_ export: FileExport, learned: LearnedModel?, to fd: Int32) throws -> ParserStats {
        var text = "time,gesture,strength\n"
        let taught = learned?.gestures.classes.map(\.name) ?? []
        let stats = try export.forEachFrame { f in
            for g in Gesture.allCases where f[g.quantity] > 0 {
                text += "\(NumberText.printf(f.time(.derived), 4)),\(g),\(NumberText.printf(f[g.quantity], 3))\n"
            }
            for (c, name) in taught.enumerated() where c < SensorFrame.learnedGestures && f.learned[c] > 0 {
                text +=
                    "\(NumberText.printf(f.time(.derived), 4)),gesture:\(name),\(NumberText.printf(f.learned[c], 3))\n"
            }
        }
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 {
                if errno == EINTR { continue };
                throw RuntimeFailure("cannot write: \(String(cString: strerror(errno)))")
            }
            off += n
        }
        return stats
    }
}
