import ArgumentParser
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
#if canImport(Glibc)
import Glibc
#endif

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a recorded sensor log through the mappings with its original timing.",
        discussion: """
        Timing comes from the sensor timestamps in the file. Gaps longer than --max-gap are \
        shortened; a timestamp that jumps back by more than a second starts a new take.

        Examples:
          sensorwah replay Recordings/wrist-wah-phone.csv
          sensorwah replay take.csv --speed 0.5 --loop
          sensorwah replay take.csv --fast --midi stdout > cc.jsonl
          sensorwah replay "Sensor Logger export/"
              one CSV per sensor, merged on time
        """
    )

    @Argument(help: ArgumentHelp("A sensor log, or several files or a folder: files whose times overlap are one recording and are merged on time (Sensor Logger writes one CSV per sensor); the others are takes, played one after another in the order given.", valueName: "LOG"))
    var files: [String]
    @OptionGroup(title: "Playback") var playback: PlaybackOptions
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Mapping") var mapping: MappingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Live view") var monitor: MonitorOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func run() throws {
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.replay")
        let mappings = try output.jack.resolve(mapping.mappings() + output.jack.switchMappings())
        let paths = try Wiring.recordingPaths(files)
        let motion = try mapping.motionSettings()
        Shutdown.installHandlers(hangupStops: true)
        Shutdown.installRezeroSignal()
        for m in mappings { logger.info("mapping: \(m.summary)") }
        let outs = try Wiring.outputs(output, mappings: mappings, logger: logger)
        let live = LiveControl()   // the live view's solo
        var pipeline = Pipeline(mappings: mappings, outputs: outs, control: live)
        let view = Wiring.liveView(monitor, title: "replay", output: output, scenes: [mappings], outputs: outs, control: live)
        var replay = FileReplay(paths: paths, parserOptions: input.parserOptions(), maxLineLength: input.maxLine,
                                timing: playback.timing, motion: motion)
        // --fast on a terminal: a progress line (not when the JSON stream goes to the same terminal)
        let progress = ProgressLine("replay", enabled: view == nil && playback.fast && isatty(2) == 1
                                    && !(isatty(1) == 1 && output.destinations.contains(.stdout)))
        if progress.enabled { replay.progress = progress.update }
        if let v = view { replay.monitor = MonitorFeed(board: v.board); v.start() }
        if let sources = try Wiring.oscSources(output.network) {
            // one file: its name is the sender; merged files play as one sender, "replay"
            let name = paths.count == 1 ? (paths[0].split(separator: "/").last.map(String.init) ?? paths[0]) : "replay"
            replay.afterFrame = { frame, _ in sources.send(frame, sender: name) }
        }
        let result: FileReplay.Result
        do { result = try replay.run(into: &pipeline) } catch { view?.stop(); progress.finish(); throw RuntimeFailure("\(error)") }
        view?.stop()
        progress.finish()
        pipeline.finish()
        var summary = Summary(source: files.joined(separator: " "), format: result.format, parser: result.parser, mapper: pipeline.mapper.stats,
                              gapsShortened: result.gapsShortened, elapsed: result.elapsed)
        if paths.count > 1 && result.takes == 1 { summary.notes.append("\(paths.count) files merged on their time column") }
        summary.notes += result.notes
        printError(summary.text)
    }
}
