import ArgumentParser
import Atomics
import Logging
import SensorWahALSA
import SensorWahCore
#if canImport(Glibc)
import Glibc
#endif

enum MIDIDestination: String, ExpressibleByArgument, CaseIterable {
    case stdout
    case alsa
    case jack
    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

struct OutputOptions: ParsableArguments {
    @Option(name: .customLong("midi"), help: ArgumentHelp(
        "Where MIDI goes (repeatable): stdout (one JSON line per message), alsa (ALSA sequencer port, default SensorWah:out), jack (JACK MIDI port sensorwah:midi_out).",
        valueName: "OUTPUT"))
    var midi: [MIDIDestination] = []
    @Option(help: ArgumentHelp("ALSA sequencer client name (--midi alsa).", valueName: "NAME"))
    var alsaClient = "SensorWah"
    @Option(help: ArgumentHelp("ALSA sequencer port name (--midi alsa).", valueName: "NAME"))
    var alsaPort = "out"
    @Option(help: ArgumentHelp("Connect the ALSA port to CLIENT[:PORT], by number or name (repeatable); one that is not there yet is connected when it appears.", valueName: "CLIENT[:PORT]"))
    var alsaConnect: [String] = []

    func validate() throws {
        for s in alsaConnect {
            do { _ = try ALSAAddressSpec(parsing: s) } catch { throw ValidationError("--alsa-connect '\(s)': \(error)") }
        }
    }

    @OptionGroup var jack: JackOptions

    /// Every output asked for. One that cannot start (no sequencer, no JACK server) logs one
    /// error line and the others run in full.
    func makeOutputs(logger: Logger, mappings: [Mapping]) throws -> [any MIDIOutput] {
        // stdout is the default unless another MIDI output or the wah was asked for
        let wanted = midi.isEmpty && !jack.wah ? [.stdout] : midi
        var outs: [any MIDIOutput] = []
        for d in Set(wanted).sorted(by: { $0.rawValue < $1.rawValue }) {
            switch d {
            case .stdout: outs.append(JSONOutput())
            case .alsa:
                // no sequencer: one clear error line, and every other output keeps running
                do { outs.append(try ALSAMIDIOutput(clientName: alsaClient, portName: alsaPort, connect: alsaConnect, logger: logger)) }
                catch { logger.error("\(error)") }
            case .jack:
                break   // below, with the wah: one JACK client serves both
            }
        }
        outs += try jack.makeOutputs(midiJack: wanted.contains(.jack), mappings: mappings, logger: logger)
        return outs
    }
}

/// Set by SIGINT/SIGTERM; the loops poll it.
let stopRequested = ManagedAtomic<Bool>(false)

func installStopHandlers() {
    let handler: @convention(c) (Int32) -> Void = { _ in stopRequested.store(true, ordering: .relaxed) }
    signal(SIGINT, handler)
    signal(SIGTERM, handler)
    signal(SIGPIPE, SIG_IGN)
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Sleeps until the monotonic clock reads `deadline` (seconds); returns early on a stop request.
func sleep(until deadline: Double) {
    while !stopRequested.load(ordering: .relaxed) {
        let now = monotonicSeconds()
        if now >= deadline { return }
        let wait = min(deadline - now, 0.1)
        var ts = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - Double(Int(wait))) * 1e9))
        nanosleep(&ts, nil)
    }
}

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

    func validate() throws {
        guard input.maxLine >= 64 else { throw ValidationError("--max-line must be at least 64") }
    }

    func run() throws {
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.replay")
        let mappings = try mapping.mappings()
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else {
            throw ValidationError("cannot open '\(file)': \(String(cString: strerror(errno)))")
        }
        close(fd)
        installStopHandlers()
        for m in mappings { logger.info("mapping: \(m.summary)") }
        let outputs = try output.makeOutputs(logger: logger, mappings: mappings)
        var pipeline = Pipeline(mappings: mappings, outputs: outputs)
        var schedule = playback.schedule()
        let start = monotonicSeconds()
        var offset = 0.0
        var totals = ParserStats()
        var format = SensorFormat.auto
        repeat {
            var reader = FileLineSource(path: file, maxLineLength: input.maxLine)
            var parser = SensorParser(options: input.parserOptions())
            var frame = SensorFrame()
            var latest = 0.0
            let fast = playback.fast
            let passOffset = offset
            let ok = reader.forEachLine { line in
                if stopRequested.load(ordering: .relaxed) { return false }
                switch line {
                case .tooLong: parser.noteTooLong()
                case .line(let bytes):
                    guard parser.parse(bytes, into: &frame) == .frame else { return true }
                    if passOffset != 0 {
                        for g in 0..<3 { frame.times[g] += passOffset }
                    }
                    let t = frame.latestTime
                    latest = max(latest, t)
                    if !fast {
                        let due = schedule.due(t)
                        if start + due > monotonicSeconds() {
                            pipeline.flushOutputs()
                            sleep(until: start + due)
                        }
                    }
                    pipeline.process(frame)
                }
                return true
            }
            if !ok { throw ValidationError("cannot read '\(file)': \(String(cString: strerror(errno)))") }
            totals.add(parser.stats)
            format = parser.detectedFormat
            offset = latest + 0.01
            if parser.stats.frames == 0 { break }   // nothing to loop over
        } while playback.loop && !stopRequested.load(ordering: .relaxed)
        pipeline.finish()
        let summary = Summary(source: file, format: format, parser: totals, mapper: pipeline.mapper.stats,
                              gapsShortened: schedule.gapsShortened, elapsed: monotonicSeconds() - start)
        printError(summary.text)
    }
}


/// Frames in, MIDI out: the mapper and the outputs, on one thread.
struct Pipeline {
    var mapper: Mapper
    let outputs: [any MIDIOutput]

    init(mappings: [Mapping], outputs: [any MIDIOutput]) {
        self.mapper = Mapper(mappings: mappings)
        self.outputs = outputs
    }

    @inline(__always)
    mutating func process(_ frame: borrowing SensorFrame, sender: String? = nil) {
        let outs = outputs
        mapper.process(frame, sender: sender) { e in
            for o in outs { o.send(e) }
        }
    }

    func flushOutputs() { for o in outputs { o.flush() } }

    /// End of the stream: held-back changes go out, then every controller its rest value.
    mutating func finish() {
        let outs = outputs
        mapper.flush { e in for o in outs { o.send(e) } }
        mapper.rest(at: mapper.latestTime) { e in for o in outs { o.send(e) } }
        for o in outputs { o.close() }
    }
}

struct Summary {
    var source: String
    var format: SensorFormat
    var parser: ParserStats
    var mapper: MapperStats
    var gapsShortened = 0
    var elapsed: Double
    var showElapsed = true

    var text: String {
        var s = "sensorwah: \(source) (\(format.rawValue))\n"
        s += "  rows read \(parser.rows), frames used \(parser.frames)"
        if parser.held > 0 { s += ", repeated samples (held) \(parser.held)" }
        s += ", headers \(parser.headers)"
        if parser.comments > 0 { s += ", comments \(parser.comments)" }
        s += "\n"
        let skipped = parser.totalSkipped
        if skipped > 0 {
            s += "  rows skipped \(skipped):"
            var parts: [String] = []
            for r in SkipReason.allCases where parser.skipped(r) > 0 { parts.append(" \(parser.skipped(r)) \(r.label)") }
            s += parts.joined(separator: ",") + "\n"
        } else {
            s += "  rows skipped 0\n"
        }
        if parser.fieldCountMismatch > 0 {
            s += "  rows with a field too many or too few, used (motion columns intact): \(parser.fieldCountMismatch)\n"
        }
        if parser.lateSamples > 0 { s += "  late samples dropped (timestamp went backwards): \(parser.lateSamples)\n" }
        if parser.clockRestarts > 0 { s += "  clock restarts (timestamp jumped back > 1 s): \(parser.clockRestarts)\n" }
        if gapsShortened > 0 { s += "  long pauses shortened: \(gapsShortened)\n" }
        s += "  outliers dropped \(mapper.outliers) (\(mapper.outOfBounds) beyond the hard bound, \(mapper.implausibleJumps) implausible jumps)"
        if mapper.nonFinite > 0 { s += ", non-finite \(mapper.nonFinite)" }
        s += "\n  messages sent \(mapper.messages)"
        if mapper.rateLimited > 0 { s += " (\(mapper.rateLimited) changes delayed by the rate limit)" }
        if showElapsed { s += " in \((elapsed * 100).rounded() / 100) s" }
        return s
    }
}
