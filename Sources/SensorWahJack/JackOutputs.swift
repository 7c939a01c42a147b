import Logging
import SensorWahCore
import SensorWahEngine

/// One JACK client shared by the JACK outputs of a run (`--midi jack` and `--wah`); started
/// with them and stopped when the last of them closes.
public final class JackSession {
    public let engine: JackEngine
    public let logger: Logger
    /// Called once after the client stopped (a test tool reads the engine's counters here).
    public var onStop: ((JackEngine) -> Void)?
    private var open = 0

    public init(engine: JackEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    /// The outputs a run asked for, sharing this session: `JackMIDIOutput` if `midi`, and a
    /// `WahPedalOutput` following `wahTarget` if given. The client makes its first connection
    /// attempt here (one error line if no server runs; the run goes on and it keeps trying).
    ///
    /// `sceneChains`: for each scene (by index), the chain set of the engine it runs (see
    /// `JackEngineConfiguration.chains`); a scene not listed runs set 0.
    public func start(midi: Bool, wahTarget: Target?, sceneChains: [Int] = []) -> [any EventOutput] {
        var outs: [any EventOutput] = []
        if midi { outs.append(JackMIDIOutput(session: self)) }
        if let t = wahTarget { outs.append(WahPedalOutput(session: self, target: t, sceneChains: sceneChains)) }
        open = outs.count
        engine.start()
        return outs
    }

    func closeOne() {
        open -= 1
        guard open == 0 else { return }
        engine.stop()
        onStop?(engine)
    }
}

/// `--midi jack`: the CC stream on the JACK MIDI port `midi_out`. `send` stamps each message
/// with the JACK time (a scheduled one with the JACK time of its moment) and hands it to the process callback through a lock-free ring; the
/// callback writes it at the frame offset that matches its arrival time, one period later.
///
/// With `JackEngineConfiguration.controlIn` it is also the Program Change input `control_in`.
public final class JackMIDIOutput: EventOutput, ProgramChangeInput {
    let session: JackSession
    private var closed = false
    init(session: JackSession) { self.session = session }
    public var name: String { "jack" }
    public var programChangeInputName: String? {
        session.engine.configuration.controlIn ? "JACK \(session.engine.configuration.clientName):control_in" : nil
    }
    public func takeProgramChanges(_ body: (_ channel: UInt8, _ program: UInt8) -> Void) {
        session.engine.takeProgramChanges(body)
    }
    public func send(_ e: MIDIEvent) { session.engine.send(e) }
    public func send(_ e: MIDIEvent, due: UInt64) { session.engine.send(e, due: due) }
    public var failure: String? {
        session.engine.isConnected ? nil : "JACK: no server connected (MIDI out is dropped until one is)"
    }
    /// The messages the engine dropped while no server was connected.
    public var undelivered: Int { session.engine.droppedOffline.load(ordering: .relaxed) }
    public func flush() {}
    public func close() {
        guard !closed else { return }
        closed = true
        session.closeOne()
    }
}

/// `--wah` / `--fx`: the audio engine's input. Watches one mapping's MIDI target (channel +
/// controller, or pitch bend) and stores the pedal position (value / 127, or / 16383 for 14
/// bits) in an atomic the audio thread reads every period (the wahs smooth it at audio rate).
/// Takes the effect control: the wah's switch; `fx=` parameters (slot, value in the
/// parameter's units), handed to the callback through a lock-free ring; a scene's change of
/// chain, through an atomic.
public final class WahPedalOutput: EventOutput {
    let session: JackSession
    public let target: Target
    let sceneChains: [Int]
    /// Each chain set's parameter ranges, by slot (the events carry positions in them).
    let ranges: [[(lower: Double, upper: Double)]]
    /// The set the running scene uses (the one `fx=` values go to).
    private var set = 0
    private var closed = false
    private var dropped = 0
    init(session: JackSession, target: Target, sceneChains: [Int] = []) {
        self.session = session
        self.target = target
        self.sceneChains = sceneChains
        ranges = session.engine.chainSpecs.map { spec in
            spec.parameterList.map { ($0.parameter.range.lowerBound, $0.parameter.range.upperBound) }
        }
        set = session.engine.selectedChain
    }
    public var name: String { "wah" }
    public func send(_ e: MIDIEvent) {
        if !session.engine.isConnected { dropped += 1 }
        if let p = PedalAutomation.pedal(of: e, for: target) { session.engine.setPedal(p) }
    }
    public func send(_ c: EffectControl) {
        if !session.engine.isConnected { dropped += 1 }
        switch c.action {
        case .wahSwitch(let engaged): session.engine.setBypass(!engaged)
        case .parameter(let slot, let position):
            guard set < ranges.count, slot >= 0, slot < ranges[set].count else { return }
            let r = ranges[set][slot]
            session.engine.setEffect(
                set: set, slot: slot, value: EffectTarget.value(position: position, minimum: r.lower, maximum: r.upper))
        case .scene(let scene):
            set = scene >= 0 && scene < sceneChains.count ? sceneChains[scene] : 0
            session.engine.selectChain(set)
        }
    }
    public var failure: String? {
        session.engine.isConnected ? nil : "JACK: no server connected (the wah is silent until one is)"
    }
    /// The messages handed over while no server was connected (the wah was not there to hear them).
    public var undelivered: Int { dropped }
    public func flush() {}
    public func close() {
        guard !closed else { return }
        closed = true
        session.closeOne()
    }
}

extension JackSession {
    /// The JACK client behind a run's outputs (nil without `--midi jack` or `--wah`), and
    /// whether it runs the wah: what the live view reads.
    public static func engine(in outputs: [any EventOutput]) -> (engine: JackEngine, wah: Bool)? {
        var found: JackEngine?
        var wah = false
        for o in outputs {
            if let w = o as? WahPedalOutput { found = w.session.engine; wah = true }
            if let m = o as? JackMIDIOutput, found == nil { found = m.session.engine }
        }
        return found.map { ($0, wah) }
    }
}

extension JackEngine {
    /// The chain running and each parameter's value now, one line per effect (the live view).
    public func effectLines() -> [String] {
        let specs = chainSpecs
        let (set, values) = effectValues
        guard specs.indices.contains(set) else { return [] }
        let spec = specs[set]
        var lines = [
            "effects   \(spec.stages.map(\.kind.rawValue).joined(separator: " > "))"
                + (specs.count > 1 ? "   (chain \(set + 1) of \(specs.count))" : "")
        ]
        let first = spec.firstSlots
        for (i, stage) in spec.stages.enumerated() {
            var line = "  " + spec.stageName(i)
            while line.count < 12 { line += " " }
            for (k, p) in stage.kind.parameters.enumerated() {
                let slot = first[i] + k
                guard slot < values.count else { continue }
                line += " \(p.name) \(Self.show(values[slot], p))"
            }
            lines.append(line)
        }
        return lines
    }

    /// A value as the live view shows it: switches on/off, choices by name, numbers with two
    /// decimals (or fewer) and the unit.
    static func show(_ v: Double, _ p: EffectParameter) -> String {
        switch p.kind {
        case .continuous:
            let t = NumberText.trimmed(v, 2, nonFinite: .swift)
            return p.unit.isEmpty ? t : t + " " + p.unit
        default: return p.format(v)
        }
    }

    /// The live view's lines, read from atomics on the view's thread: the wah's pedal and
    /// centre frequency (with `wah`), the JACK load (callback time when measured) and xruns.
    public func monitorLines(wah: Bool) -> [String] {
        var lines: [String] = []
        if wah {
            let p = Double(pedal)
            let hz = Int(configuration.wah.centreFrequency(pedal: p).rounded())
            lines.append(
                "wah       pedal \(NumberText.fixed(p * 100, 1))%   centre \(hz) Hz"
                    + (isBypassed ? "   (bypassed)" : ""))
        }
        if wah { lines += effectLines() }
        guard isConnected else {
            lines.append("JACK      not connected to server '\(serverLabel)' (retrying)")
            return lines
        }
        let s = stats
        var line = "JACK      \(s.sampleRate) Hz, \(s.periodFrames) frames   cycles \(s.cycles)   xruns \(s.xruns)"
        if s.timedCallbacks > 0 && s.sampleRate > 0 && s.periodFrames > 0 {
            let period = 1e9 * Double(s.periodFrames) / Double(s.sampleRate)
            line +=
                "   load mean \(NumberText.fixed(s.meanCallbackNanos / period * 100, 1))%, worst \(NumberText.fixed(Double(s.worstCallbackNanos) / period * 100, 1))%"
        }
        lines.append(line)
        return lines
    }
}
