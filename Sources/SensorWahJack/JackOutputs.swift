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
    public func start(midi: Bool, wahTarget: Target?) -> [any EventOutput] {
        var outs: [any EventOutput] = []
        if midi { outs.append(JackMIDIOutput(session: self)) }
        if let t = wahTarget { outs.append(WahPedalOutput(session: self, target: t)) }
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
/// with the JACK time and hands it to the process callback through a lock-free ring; the
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
    public func send(_ e: MIDIEvent) { if e.kind != .wahSwitch { session.engine.send(e) } }
    public func flush() {}
    public func close() {
        guard !closed else { return }
        closed = true
        session.closeOne()
    }
}

/// `--wah`: watches one mapping's target (channel + controller, or pitch bend) and stores the
/// pedal position (value / 127, or / 16383 for 14 bits) in an atomic the audio thread reads
/// every period; the wah smooths it at audio rate.
public final class WahPedalOutput: EventOutput {
    let session: JackSession
    public let target: Target
    private var closed = false
    init(session: JackSession, target: Target) {
        self.session = session
        self.target = target
    }
    public var name: String { "wah" }
    public func send(_ e: MIDIEvent) {
        if e.kind == .wahSwitch { session.engine.setBypass(e.value == 0); return }
        if let p = PedalAutomation.pedal(of: e, for: target) { session.engine.setPedal(p) }
    }
    public func flush() {}
    public func close() {
        guard !closed else { return }
        closed = true
        session.closeOne()
    }
}

/// `render`: the events of the pedal's mapping become breakpoints of an offline automation.
public final class PedalAutomationOutput: EventOutput {
    public private(set) var automation: PedalAutomation
    public init(_ automation: PedalAutomation) { self.automation = automation }
    public var name: String { "render" }
    public func send(_ e: MIDIEvent) { automation.add(e) }
    public func flush() {}
    public func close() {}
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
    /// The live view's lines, read from atomics on the view's thread: the wah's pedal and
    /// centre frequency (with `wah`), the JACK load (callback time when measured) and xruns.
    public func monitorLines(wah: Bool) -> [String] {
        var lines: [String] = []
        if wah {
            let p = Double(pedal)
            let hz = Int(configuration.wah.centreFrequency(pedal: p).rounded())
            lines.append("wah       pedal \(fmt1(p * 100))%   centre \(hz) Hz" + (isBypassed ? "   (bypassed)" : ""))
        }
        guard isConnected else {
            lines.append("JACK      not connected to server '\(serverLabel)' (retrying)")
            return lines
        }
        let s = stats
        var line = "JACK      \(s.sampleRate) Hz, \(s.periodFrames) frames   cycles \(s.cycles)   xruns \(s.xruns)"
        if s.timedCallbacks > 0 && s.sampleRate > 0 && s.periodFrames > 0 {
            let period = 1e9 * Double(s.periodFrames) / Double(s.sampleRate)
            line += "   load mean \(fmt1(s.meanCallbackNanos / period * 100))%, worst \(fmt1(Double(s.worstCallbackNanos) / period * 100))%"
        }
        lines.append(line)
        return lines
    }
}
