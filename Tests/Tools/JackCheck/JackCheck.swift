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
    @Option(
        help: ArgumentHelp(
            "Hold the pedal at this value (0...127, or 0...16383 for 14-bit targets) instead of sweeping.",
            valueName: "VALUE"))
    var hold: Int?
    @Flag(help: "Send the stream to the JACK MIDI port midi_out.")
    var midiJack = false
    @Flag(
        help:
            "Register control_in, the Program Change input of `listen` with scenes (what arrives is counted, not taken)."
    )
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
    @Flag(
        help:
            "Measure line-to-audio instead of sweeping: lines over loopback TCP to the real listener, the first process cycle that sees each pedal change (see LineToAudio.swift); runs --seconds."
    )
    var lineToAudio = false
    @Option(name: .customLong("map"), help: "The mapping whose target is swept (default: sensorwah's default mapping).")
    var map: String?
    @Option(
        name: .customLong("fx"), help: "The effect chain the engine runs (as sensorwah --fx; default: the wah alone).")
    var fx: String?
    @Option(
        name: .customLong("fx-map"),
        help:
            "An fx= mapping swept as well, e.g. \"tilt.y fx=tremolo.rate to=1..8\" (its own triangle, period --fx-period)."
    )
    var fxMap: String?
    @Option(help: "Seconds for one sweep of the --fx-map parameter.")
    var fxPeriod = 1.0
    @Option(
        name: .customLong("scene-fx"),
        help:
            "A second chain, switched to and back every --scene-every seconds (a scene's change of chain, crossfaded in the callback)."
    )
    var sceneFx: String?
    @Option(help: "Seconds between changes of chain (with --scene-fx).")
    var sceneEvery = 0.5
    @Option(
        name: .customLong("fx-cc"),
        help: "CC=EFFECT.PARAM: a Control Change on control_in moves a parameter (as sensorwah --fx-cc; repeatable).")
    var fxCC: [String] = []
    @Flag(
        help:
            "Feed the engine from the real listener with the --web control page (lines over loopback TCP from a sender thread, see ListenWithPage.swift) instead of the sweep; runs --seconds."
    )
    var listenWeb = false

    func validate() throws {
        guard seconds > 0, seconds.isFinite else { throw ValidationError("--seconds must be positive") }
        guard rate > 0, rate <= 20_000 else { throw ValidationError("--rate must be in 0...20000") }
        guard sweepPeriod > 0, sweepPeriod.isFinite else { throw ValidationError("--sweep-period must be positive") }
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels must be 1 or 2") }
        guard WahVoice(rawValue: voice) != nil else { throw ValidationError("--voice must be svf or crybaby") }
        guard WahMode(rawValue: wahMode) != nil else {
            throw ValidationError("--wah-mode must be sensor, envelope or both")
        }
    }

    func run() throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "sensorwah.jack-check")
        let mapping: Mapping
        do { mapping = try map.map { try Mapping(parsing: $0) } ?? .default } catch {
            throw ValidationError("--map: \(error)")
        }
        var connections: [JackConnection] = []
        for text in jackConnect {
            do { connections += try JackConnection.parse(text) } catch {
                throw ValidationError("--jack-connect: \(error.message)")
            }
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
        var chains: [EffectChainSpec] = []
        do {
            chains = [try fx.map { try EffectChainSpec(parsing: $0) } ?? .wahOnly]
            if let second = sceneFx { chains.append(try EffectChainSpec(parsing: second)) }
        } catch { throw ValidationError("--fx / --scene-fx: \(error)") }
        c.chains = chains
        for b in fxCC {
            let parts = b.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let cc = Int(parts[0]) else {
                throw ValidationError("--fx-cc '\(b)': CC=EFFECT.PARAM")
            }
            c.effectControllers.append((cc, String(parts[1])))
        }
        // the --fx-map sweep's target, resolved against each chain (the second chain's slot
        // when it runs)
        var fxTargets: [Target] = []
        if let text = fxMap {
            for chain in chains {
                var m = [try Mapping(parsing: text)]
                do { try Mapping.resolveEffectTargets(&m, chain: chain) } catch {
                    throw ValidationError("--fx-map: \(error)")
                }
                fxTargets.append(m[0].target)
            }
        }
        c.measureCallbackTime = getenv("SENSORWAH_JACK_TIMING") != nil
        let audit = try RTAudit.fromEnvironment()
        c.hooks = audit?.hooks
        let session = JackSession(engine: JackEngine(configuration: c, logger: logger), logger: logger)
        session.onStop = { engine in audit?.report(engine: engine) }
        var outputs = session.start(
            midi: midiJack, wahTarget: wah ? mapping.target : nil, sceneChains: chains.indices.map { $0 })
        if midiStdout { outputs.append(JSONOutput()) }

        let sweep = ControllerSweep(target: mapping.target, period: sweepPeriod, rate: rate, hold: hold)
        if listenWeb {
            // the output thread's pump closes the outputs when it stops
            try ListenWithPage.run(outputs: outputs, mapping: mapping, seconds: seconds, logger: logger)
            return
        }
        if fxTargets.isEmpty && sceneFx == nil {
            sweep.run(seconds: seconds, outputs: outputs)
        } else {
            // the pedal's sweep, the fx= parameter's sweep and the changes of chain, interleaved
            let start = monotonicSeconds()
            var k = 0, scene = 0
            var nextScene = sceneEvery
            while !Shutdown.isRequested {
                let t = Double(k) / rate
                if t >= seconds { break }
                sleep(until: start + t)
                let pedal = MappedEvent(target: mapping.target, value: sweep.value(at: t), time: t)
                for o in outputs { o.send(pedal) }
                if sceneFx != nil && t >= nextScene {
                    scene = 1 - scene
                    nextScene += sceneEvery
                    let c = EffectControl(time: t, .scene(scene))
                    for o in outputs { o.send(c) }
                }
                if scene < fxTargets.count {
                    let target = fxTargets[scene]
                    let fxSweep = ControllerSweep(target: target, period: fxPeriod, rate: rate)
                    let e = MappedEvent(target: target, value: fxSweep.value(at: t), time: t)
                    for o in outputs { o.send(e) }
                }
                k += 1
            }
        }
        for o in outputs { o.close() }
    }
}
