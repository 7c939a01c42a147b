import ArgumentParser
import Logging
import SensorWahConsole
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

    @Argument(
        help: ArgumentHelp(
            "A sensor log, or several files or a folder: files whose times overlap are one recording and are merged on time (Sensor Logger writes one CSV per sensor); the others are takes, played one after another in the order given.",
            valueName: "LOG"))
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
        // every output failing in the middle of the run (stdout's reader gone, the JACK server
        // gone) is said once per failure and counted. A failure for good (a closed pipe: what
        // `replay LOG --midi stdout | head` does) ends the replay there, as it ends any command
        // writing into a pipeline, instead of playing the rest of the file into nothing; one
        // that can heal (JACK reconnects when a server returns) lets it go on, as listen does.
        // Either way the exit status is 1.
        let watch = DeliveryWatch(outs)
        watch.onFailure = { text, final in
            if final {
                logger.error(
                    "every output has failed: \(text); nothing can be delivered any more, so the replay stops (exit status 1)"
                )
            } else {
                logger.error(
                    "every output has failed: \(text); messages go nowhere until one delivers again (the replay goes on, and ends with exit status 1)"
                )
            }
        }
        watch.onRecovery = { logger.notice("an output delivers again") }
        let live = LiveControl()  // the live view's solo, re-zero and quit
        var pipeline = Pipeline(mappings: mappings, outputs: outs, control: live)
        let view = Wiring.liveView(
            monitor, title: "replay", output: output, scenes: [mappings], outputs: outs, control: live)
        var replay = FileReplay(
            paths: paths, parserOptions: input.parserOptions(), maxLineLength: input.maxLine,
            timing: playback.timing, motion: motion)
        // --fast on a terminal: a progress line (not when the JSON stream goes to the same terminal)
        let progress = ProgressLine(
            "replay",
            enabled: view == nil && playback.fast && isatty(2) == 1
                && !(isatty(1) == 1 && output.destinations.contains(.stdout)))
        if progress.enabled { replay.progress = progress.update }
        if let v = view { replay.monitor = MonitorFeed(board: v.board); replay.control = live; v.start() }
        replay.shouldStop = { watch.shouldStop() }
        if let sources = try Wiring.oscSources(output.network) {
            // one file: its name is the sender; merged files play as one sender, "replay"
            let name = paths.count == 1 ? (paths[0].split(separator: "/").last.map(String.init) ?? paths[0]) : "replay"
            replay.afterFrame = { frame, _ in sources.send(frame, sender: name) }
        }
        let result: FileReplay.Result
        do { result = try replay.run(into: &pipeline) } catch {
            view?.stop(); progress.finish(); throw RuntimeFailure("\(error)")
        }
        view?.stop()
        progress.finish()
        let stopped = watch.failedForGood
        pipeline.finish(beforeClosing: { watch.check() })
        var summary = Summary(
            source: files.joined(separator: " "), format: result.format, parser: result.parser,
            mapper: pipeline.mapper.stats,
            gapsShortened: result.gapsShortened, elapsed: result.elapsed)
        if paths.count > 1 && result.takes == 1 {
            summary.notes.append("\(paths.count) files merged on their time column")
        }
        summary.notes += result.notes
        var text = summary.text
        if watch.undelivered > 0 || watch.failures > 0 {
            text +=
                "\n  messages delivered nowhere, every output having failed: \(watch.undelivered) (\(watch.failureText))"
            if stopped { text += "; the replay stopped there" }
        }
        printError(text)
        if watch.failures > 0 { throw ExitCode(1) }
    }
}
