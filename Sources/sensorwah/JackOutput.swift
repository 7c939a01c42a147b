import ArgumentParser
import Logging
import SensorWahCore
import SensorWahJack
#if canImport(Glibc)
import Glibc
#endif

/// JACK options shared by `listen` and `replay` (`@OptionGroup var jack: JackOptions`).
struct JackOptions: ParsableArguments {
    @Flag(help: "Run the wah on JACK audio: client 'sensorwah', ports in_1 -> out_1 (in_2 -> out_2 with --channels 2).")
    var wah = false
    @Option(help: "Audio channels through the wah: 1 or 2.")
    var channels = 1
    @Option(name: .customLong("jack-connect"), help: ArgumentHelp(
        "Connect ports whenever the client (re)connects: 'system' (physical capture -> in_N, out_N -> playback), or PORT=PEER pairs, e.g. out_1=system:playback_1,in_1=system:capture_1 (repeatable).",
        valueName: "CONNECTIONS"))
    var jackConnect: [String] = []
    @Option(name: .customLong("jack-server"), help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER or 'default').", valueName: "NAME"))
    var jackServer: String?
    @Option(name: .customLong("wah-map"), help: ArgumentHelp("Which --map drives the wah pedal, 1 = the first (7-bit: value/127, 14-bit and pitch bend: value/16383).", valueName: "INDEX"))
    var wahMap = 1
    @OptionGroup var tone: WahToneOptions

    func validate() throws {
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels must be 1 or 2") }
        guard wahMap >= 1 else { throw ValidationError("--wah-map counts from 1") }
        _ = try connections()
    }

    func connections() throws -> [JackConnection] {
        var out: [JackConnection] = []
        for text in jackConnect {
            do { out += try JackConnection.parse(text) } catch {
                throw ValidationError("--jack-connect: \(error.message)")
            }
        }
        return out
    }

    /// The JACK outputs for this run: `JackMIDIOutput` (with `--midi jack`) and `WahPedalOutput`
    /// (with `--wah`), sharing one client. Empty when neither is asked for. The client makes its
    /// first connection attempt here (one error line if no server runs; the run goes on).
    func makeOutputs(midiJack: Bool, mappings: [Mapping], logger: Logger) throws -> [any MIDIOutput] {
        guard midiJack || wah else { return [] }
        if wah && wahMap > mappings.count {
            throw ValidationError("--wah-map \(wahMap): there \(mappings.count == 1 ? "is 1 mapping" : "are \(mappings.count) mappings")")
        }
        var c = JackEngineConfiguration()
        c.serverName = jackServer
        c.channels = wah ? channels : 0
        c.midiOut = midiJack
        c.wah = tone.settings()
        c.connections = try connections()
        let pedalMapping = mappings[min(wahMap, mappings.count) - 1]
        c.initialPedal = PedalAutomation.pedal(value: pedalMapping.rest, of: pedalMapping.target)
        c.measureCallbackTime = getenv("SENSORWAH_JACK_TIMING") != nil
        let audit = try RTAudit.fromEnvironment()
        c.hooks = audit?.hooks
        let session = JackSession(engine: JackEngine(configuration: c, logger: logger), audit: audit, logger: logger)
        var outs: [any MIDIOutput] = []
        if midiJack { outs.append(JackMIDIOutput(session: session)) }
        if wah { outs.append(WahPedalOutput(session: session, target: pedalMapping.target)) }
        session.open(outputs: outs.count)
        if wah {
            logger.info("wah: pedal follows mapping \(wahMap) (\(pedalMapping.target)); \(tone.summary), \(channels) channel\(channels == 1 ? "" : "s")")
        }
        return outs
    }
}

/// One JACK client shared by the JACK outputs of a run; stopped when the last of them closes.
final class JackSession {
    let engine: JackEngine
    let audit: RTAudit?
    let logger: Logger
    private var open = 0

    init(engine: JackEngine, audit: RTAudit?, logger: Logger) {
        self.engine = engine
        self.audit = audit
        self.logger = logger
    }

    func open(outputs: Int) {
        open = outputs
        engine.start()
    }

    func closeOne() {
        open -= 1
        guard open == 0 else { return }
        engine.stop()
        audit?.report(engine: engine)
    }
}

/// `--midi jack`: the CC stream on the JACK MIDI port `midi_out`. `send` stamps each message
/// with the JACK time and hands it to the process callback through a lock-free ring; the
/// callback writes it at the frame offset that matches its arrival time, one period later.
final class JackMIDIOutput: MIDIOutput {
    let session: JackSession
    private var closed = false
    init(session: JackSession) { self.session = session }
    var name: String { "jack" }
    func send(_ e: MIDIEvent) { session.engine.send(e) }
    func flush() {}
    func close() {
        guard !closed else { return }
        closed = true
        session.closeOne()
    }
}

/// `--wah`: watches one mapping's target (channel + controller, or pitch bend) and stores the
/// pedal position (value / 127, or / 16383 for 14 bits) in an atomic the audio thread reads
/// every period; the wah smooths it at audio rate.
final class WahPedalOutput: MIDIOutput {
    let session: JackSession
    let target: Target
    private var closed = false
    init(session: JackSession, target: Target) {
        self.session = session
        self.target = target
    }
    var name: String { "wah" }
    func send(_ e: MIDIEvent) {
        if let p = PedalAutomation.pedal(of: e, for: target) { session.engine.setPedal(p) }
    }
    func flush() {}
    func close() {
        guard !closed else { return }
        closed = true
        session.closeOne()
    }
}

/// The wah's sound: shared by the JACK wah (`--wah`) and `render`.
struct WahToneOptions: ParsableArguments {
    @Option(name: .customLong("heel-hz"), help: ArgumentHelp("Wah centre frequency at the heel (pedal 0), Hz.", valueName: "HZ"))
    var heelHz = WahSettings().heelFrequency
    @Option(name: .customLong("toe-hz"), help: ArgumentHelp("Wah centre frequency at the toe (pedal 1), Hz.", valueName: "HZ"))
    var toeHz = WahSettings().toeFrequency
    @Option(name: .customLong("heel-q"), help: "Wah resonance at the heel.")
    var heelQ = WahSettings().heelQ
    @Option(name: .customLong("toe-q"), help: "Wah resonance at the toe.")
    var toeQ = WahSettings().toeQ
    @Option(help: "Wah dry/wet mix, 0 (dry) to 1 (wet).")
    var mix = WahSettings().mix
    @Flag(help: "Bypass the wah (audio passes through unchanged).")
    var bypass = false

    func validate() throws {
        for (name, v) in [("--heel-hz", heelHz), ("--toe-hz", toeHz)] where !(v.isFinite && v >= 10 && v <= 20_000) {
            throw ValidationError("\(name) must be between 10 and 20000 Hz")
        }
        for (name, v) in [("--heel-q", heelQ), ("--toe-q", toeQ)] where !(v.isFinite && v >= 0.1 && v <= 100) {
            throw ValidationError("\(name) must be between 0.1 and 100")
        }
        guard mix.isFinite && mix >= 0 && mix <= 1 else { throw ValidationError("--mix must be between 0 and 1") }
    }

    func settings() -> WahSettings {
        WahSettings(heelFrequency: heelHz, toeFrequency: toeHz, heelQ: heelQ, toeQ: toeQ, mix: mix, bypass: bypass)
    }

    var summary: String {
        func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        var s = "\(n(heelHz)) Hz (Q \(n(heelQ))) at the heel to \(n(toeHz)) Hz (Q \(n(toeQ))) at the toe"
        if mix < 1 { s += ", mix \(n(mix))" }
        if bypass { s += ", bypassed" }
        return s
    }
}
