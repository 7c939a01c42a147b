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
        """
    )

    @Argument(help: "A sensor log (SensorLog CSV, HyperIMU, Sensorstream).")
    var file: String
    @OptionGroup var playback: PlaybackOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var mapping: MappingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.replay")
        let mappings = try mapping.mappings() + output.jack.switchMappings()
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else {
            throw RuntimeFailure("cannot open '\(file)': \(String(cString: strerror(errno)))")
        }
        close(fd)
        let motion = try mapping.motionSettings()
        Shutdown.installHandlers()
        Shutdown.installRezeroSignal()
        for m in mappings { logger.info("mapping: \(m.summary)") }
        var pipeline = Pipeline(mappings: mappings, outputs: try Wiring.outputs(output, mappings: mappings, logger: logger))
        let replay = FileReplay(path: file, parserOptions: input.parserOptions(), maxLineLength: input.maxLine,
                                timing: playback.timing, motion: motion)
        let result: FileReplay.Result
        do { result = try replay.run(into: &pipeline) } catch { throw RuntimeFailure("\(error)") }
        pipeline.finish()
        let summary = Summary(source: file, format: result.format, parser: result.parser, mapper: pipeline.mapper.stats,
                              gapsShortened: result.gapsShortened, elapsed: result.elapsed)
        printError(summary.text)
    }
}
