import ArgumentParser
import SensorWahCore
import SensorWahEngine
import SensorWahIO

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw what each mapping makes of a recording, as an SVG picture, to tune by looking.",
        discussion: """
        One panel per mapping over the recording's time in seconds: the raw reading and the \
        smoothed value (left axis, the source's units), the value sent to MIDI (right axis, \
        0-127), readings dropped as outliers (red dots) and gestures (dashed lines). The log \
        plays through the same pipeline as `replay --fast`, so the green line is exactly the \
        controller stream replay sends. Open the file in a web browser.

        Examples:
          sensorwah plot Recordings/wrist-wah-phone.csv -o wah.svg
          sensorwah plot take.csv --config rig.yaml -o take.svg
          sensorwah plot take.csv --map "tilt.x zero cc=11 smooth=80" -o smoother.svg
        """
    )

    @Argument(help: ArgumentHelp("A sensor log, or several files / a folder of one recording (as for replay).", valueName: "LOG"))
    var files: [String]
    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write the picture here (- for stdout).", valueName: "FILE.svg"))
    var output: String
    @OptionGroup var input: InputOptions
    @OptionGroup var mapping: MappingOptions
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let mappings = try mapping.mappings()
        let motion = try mapping.motionSettings()
        let paths = try Wiring.recordingPaths(files)
        // the output first: a file that cannot be written fails before a long log is read
        let out: WholeFileOutput
        do { out = try WholeFileOutput(output, example: "plot.svg") } catch { throw RuntimeFailure(error.description) }
        let trace = PlotTrace(mappings: mappings)
        var pipeline = Pipeline(mappings: mappings, outputs: [trace])
        var replay = FileReplay(paths: paths, parserOptions: input.parserOptions(), maxLineLength: input.maxLine,
                                timing: PlaybackTiming(fast: true), motion: motion)
        replay.afterFrame = { frame, mapper in trace.note(frame, mapper: mapper) }
        Shutdown.installHandlers()
        let result: FileReplay.Result
        do { result = try replay.run(into: &pipeline) } catch {
            out.abandon()
            throw RuntimeFailure("\(error)")
        }
        guard result.parser.frames > 0 else {
            out.abandon()
            throw RuntimeFailure("'\(files.joined(separator: " "))': no sensor frames (\(result.parser.totalSkipped) rows skipped)")
        }
        pipeline.finish()   // what replay sends at the end (held-back changes, rest values) is drawn too
        let title = files.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: " ")
        do { try out.write(PlotSVG.render(trace, title: title)) } catch { throw RuntimeFailure(error.description) }
        let outliers = trace.lanes.reduce(0) { $0 + $1.outliers.count }
        printError("plot: \(trace.frames) frames, \(mappings.count) mapping\(mappings.count == 1 ? "" : "s"), \(outliers) outlier\(outliers == 1 ? "" : "s"), \(trace.gestures.count) gesture\(trace.gestures.count == 1 ? "" : "s") -> \(output == "-" ? "stdout" : output)")
    }
}
