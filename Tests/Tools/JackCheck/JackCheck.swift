import ArgumentParser
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahJack
#if canImport(Glibc)
import Glibc
#endif

/// `sensorwah-jack-check`: test and benchmark machinery, never installed. Runs the JACK client
/// of `sensorwah --wah` (the same engine, outputs and callback) with a synthetic pedal sweep
/// instead of a sensor log, for the real-time audit (`SENSORWAH_RT_AUDIT`, see RTAudit.swift),
/// the integration tests and tools/jack-bench (`SENSORWAH_JACK_TIMING=1` prints the worst
/// callback time). Sends the mapping's target as a triangle sweep at a fixed message rate.
@main
struct JackCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensorwah-jack-check",
        abstract: "Run SensorWah's JACK client with a synthetic pedal sweep (tests, audit, benchmarks)."
    )

    @Option(help: "How long to run, in seconds.")
    var seconds = 10.0
    @Option(help: "Messages per second.")
    var rate = 200.0
    @Option(help: "Seconds for one heel-toe-heel sweep.")
    var sweepPeriod = 2.0
    @Option(help: ArgumentHelp("Hold the pedal at this value (0...127, or 0...16383 for 14-bit targets) instead of sweeping.", valueName: "VALUE"))
    var hold: Int?
    @Flag(help: "Send the stream to the JACK MIDI port midi_out.")
    var midiJack = false
    @Flag(help: "Register control_in, the Program Change input of `listen` with scenes (what arrives is counted, not taken).")
    var controlIn = false
    @Flag(help: "Also print the stream as JSON lines on stdout.")
    var midiStdout = false
    @Flag(help: "Run the wah on JACK audio.")
    var wah = false
    @Option(help: "Audio channels through the wah: 1 or 2.")
    var channels = 1
    @Option(name: .customLong("jack-connect"), help: "Port connections, as for sensorwah (repeatable).")
    var jackConnect: [String] = []
    @Option(name: .customLong("jack-server"), help: "JACK server name.")
    var jackServer: String?
    @Option(help: "The wah's voice: svf or crybaby.")
    var voice = WahVoice.svf.rawValue
    @Option(name: .customLong("wah-mode"), help: "What moves the pedal: sensor, envelope or both.")
    var wahMode = WahMode.sensor.rawValue
    @Flag(help: "Measure line-to-audio instead of sweeping: lines over loopback TCP to the real listener, the first process cycle that sees each pedal change (see LineToAudio.swift); runs --seconds.")
    var lineToAudio = false
    @Option(name: .customLong("map"), help: "The mapping whose target is swept (default: sensorwah's default mapping).")
    var map: String?

    func validate() throws {
        guard seconds > 0, seconds.isFinite else { throw ValidationError("--seconds must be positive") }
        guard rate > 0, rate <= 20_000 else { throw ValidationError("--rate must be in 0...20000") }
        guard sweepPeriod > 0, sweepPeriod.isFinite else { throw ValidationError("--sweep-period must be positive") }
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels must be 1 or 2") }
        guard WahVoice(rawValue: voice) != nil else { throw ValidationError("--voice must be svf or crybaby") }
        guard WahMode(rawValue: wahMode) != nil else { throw ValidationError("--wah-mode must be sensor, envelope or both") }
    }

    func run() throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "sensorwah.jack-check")
        let mapping: Mapping
        do { mapping = try map.map { try Mapping(parsing: $0) } ?? .default } catch { throw ValidationError("--map: \(error)") }
        var connections: [JackConnection] = []
        for text in jackConnect {
            do { connections += try JackConnection.parse(text) } catch { throw ValidationError("--jack-connect: \(error.message)") }
        }
        Shutdown.installHandlers()
        if lineToAudio {
            try LineToAudio.run(server: jackServer, seconds: seconds, channels: channels, logger: logger)
            return
        }

        var c = JackEngineConfiguration()
        c.serverName = jackServer
        c.channels = wah ? channels : 0
        c.midiOut = midiJack
        c.controlIn = controlIn
        c.wah.voice = WahVoice(rawValue: voice) ?? .svf
        c.wah.mode = WahMode(rawValue: wahMode) ?? .sensor
        c.connections = connections
        c.initialPedal = PedalAutomation.pedal(value: mapping.rest, of: mapping.target)
        c.measureCallbackTime = getenv("SENSORWAH_JACK_TIMING") != nil
        let audit = try RTAudit.fromEnvironment()
        c.hooks = audit?.hooks
        let session = JackSession(engine: JackEngine(configuration: c, logger: logger), logger: logger)
        session.onStop = { engine in audit?.report(engine: engine) }
        var outputs = session.start(midi: midiJack, wahTarget: wah ? mapping.target : nil)
        if midiStdout { outputs.append(JSONOutput()) }

        let sweep = ControllerSweep(target: mapping.target, period: sweepPeriod, rate: rate, hold: hold)
        sweep.run(seconds: seconds, outputs: outputs)
        for o in outputs { o.close() }
    }
}
