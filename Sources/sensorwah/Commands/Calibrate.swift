import ArgumentParser
import Atomics
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Trace your comfortable range of movement and write it into a mapping (range= and centre=).",
        discussion: """
            Hold your rest pose for the first moments (it becomes the centre), then move through \
            the range you want the controller to cover. SensorWah listens as `listen` would (the \
            --config file's inputs), or reads a recording with --from, and writes range= and \
            centre= into mapping N of the --config file (a running `listen --config` picks it up).

            Examples:
              sensorwah calibrate 1 --config rig.yaml                   live, 6 seconds
              sensorwah calibrate 2 --config rig.yaml --seconds 10
              sensorwah calibrate 1 --config rig.yaml --from take.csv   from a recording
            """
    )

    @Argument(help: ArgumentHelp("Which mapping (1 = the first).", valueName: "N"))
    var index = 1
    @Option(help: ArgumentHelp("Read this recording instead of listening.", valueName: "LOG"))
    var from: String?
    @Option(help: ArgumentHelp("How long to trace, in seconds (live).", valueName: "SECONDS"))
    var seconds = 6.0
    @Option(help: ArgumentHelp("The first seconds are the rest pose.", valueName: "SECONDS"))
    var restSeconds = 1.5
    @Flag(help: "Print the result without writing the configuration file.")
    var dryRun = false
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Mapping") var mapping: MappingOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        guard (1...1000).contains(index) else { throw ValidationError("the mapping number counts from 1") }
        guard seconds.isFinite, seconds >= 1, seconds <= 600 else {
            throw ValidationError("--seconds must be 1 to 600")
        }
        guard restSeconds.isFinite, restSeconds >= 0, restSeconds < seconds else {
            throw ValidationError("--rest-seconds must be 0 or more and shorter than --seconds")
        }
    }

    func run() throws {
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.calibrate")
        let m = try mapping.mapping(number: index)
        guard !m.source.isTriggerSource, !m.target.isTrigger else {
            throw ValidationError("mapping \(index) is played by a gesture; only a continuous source has a range")
        }
        var cal = RangeCalibration(restSeconds: restSeconds)
        if let log = from {
            let export = FileExport(
                path: log, parserOptions: input.parserOptions(), maxLineLength: input.maxLine,
                motion: try mapping.motionSettings())
            do {
                _ = try export.forEachFrame { f in
                    let g = m.source.group
                    if f.has(g) { cal.add(m.source.read(f), at: f.time(g)) }
                }
            } catch { throw RuntimeFailure("\(error)") }
        } else {
            cal = try live(m, cal, logger: logger)
        }
        let r: RangeCalibration.Result
        do { r = try cal.result() } catch { throw RuntimeFailure("\(error)") }
        var tuned = m
        tuned.inputMin = r.min
        tuned.inputMax = r.max
        if m.bipolar { tuned.centre = r.centre }
        let n = { (v: Double) in v == v.rounded() ? String(Int(v)) : String(v) }
        printError(
            "sensorwah calibrate: mapping \(index) (\(m.source)): \(cal.samples) readings -> range=\(n(r.min))..\(n(r.max))\(m.bipolar ? " centre=\(n(r.centre))" : "")"
        )
        if dryRun { return }
        guard let path = global.config else {
            print(tuned.syntax)
            printError("  (no --config file to write: the mapping above has the new range)")
            return
        }
        do {
            try ConfigEditor.setRange(
                in: path, mapping: index, min: r.min, max: r.max, centre: m.bipolar ? r.centre : nil)
        } catch { throw RuntimeFailure("\(error)") }
        printError("  written to \(path)")
    }

    /// Listens like `listen` (the --config file's inputs) and traces the mapping's source.
    func live(_ m: Mapping, _ start: RangeCalibration, logger: Logger) throws -> RangeCalibration {
        Shutdown.installHandlers()
        var listenArgs: [String] = []
        if let c = global.config {
            listenArgs = try ConfigArguments(argv: ["listen", "--config", c]).arguments.dropFirst().map { $0 }
        }
        let l: Listen
        do { l = try Listen.parse(listenArgs) } catch { throw RuntimeFailure(Listen.message(for: error)) }
        let config = try Wiring.listenerConfiguration(l, scenes: [], startScene: 0, live: LiveControl())
        let box = CalibrationBox(start)
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 10)  // nothing is sent: the mapping only is traced
        let listener = Listener(configuration: config, mappings: [m], queue: queue, wake: {}, logger: logger)
        let g = m.source.group
        listener.setFrameTap { _, f in
            guard f.has(g) else { return }
            let v = m.source.read(f)
            box.cal.add(v, at: f.time(g))
            _ = box.first.compareExchange(expected: 0, desired: monotonicNanos(), ordering: .relaxed)
        }
        do { try listener.start() } catch {
            _ = listener.stop()
            throw RuntimeFailure("cannot listen: \(error)")
        }
        printError(
            "calibrate: waiting for the sensor ... hold your rest pose for \(restSeconds) s, then move through your comfortable range"
        )
        var announced = false
        while !Shutdown.isRequested {
            usleep(50_000)
            let first = box.first.load(ordering: .relaxed)
            guard first > 0 else { continue }
            let elapsed = Double(monotonicNanos() &- first) / 1e9
            if !announced && elapsed >= restSeconds {
                printError(
                    "calibrate: now move through your comfortable range (\(Int((seconds - restSeconds).rounded())) s)")
                announced = true
            }
            if elapsed >= seconds { break }
        }
        _ = listener.stop()
        return box.cal
    }
}

/// The calibration, filled on the network thread and read after the listener has stopped;
/// while it runs the main thread only reads when the first reading came (an atomic).
final class CalibrationBox: @unchecked Sendable {
    var cal: RangeCalibration
    let first = ManagedAtomic<UInt64>(0)
    init(_ c: RangeCalibration) { cal = c }
}
