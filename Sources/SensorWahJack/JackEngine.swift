// JackEngine.swift — the JACK client: ports, callbacks, and a supervisor thread that keeps
// (re)connecting to the server. Nothing here runs on the process thread except through
// RealtimeCycle.swift.

import Atomics
import CJack
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// A port connection made every time the client (re)connects.
public enum JackConnection: Sendable, Equatable, CustomStringConvertible {
    /// in_N <- the N-th physical capture port, out_N -> the N-th physical playback port (a mono
    /// client feeds the first two playback ports).
    case system
    /// `local` is one of our ports (`in_1`, `in_2`, `out_1`, `out_2`, `midi_out`, `control_in`); `peer` a full
    /// JACK port name (`client:port`). Direction follows from the local port.
    case port(local: String, peer: String)

    /// Parses `system`, or `LOCAL=PEER` pairs separated by commas.
    public static func parse(_ text: String) throws(JackConnectionSyntaxError) -> [JackConnection] {
        var out: [JackConnection] = []
        for part in text.split(separator: ",") {
            let item = String(part).trimmingCharacters(in: " \t")
            if item.isEmpty { continue }
            if item == "system" { out.append(.system); continue }
            guard let eq = item.firstIndex(of: "=") else {
                throw JackConnectionSyntaxError(
                    message: "'\(item)': expected 'system' or PORT=PEER, e.g. out_1=system:playback_1")
            }
            let local = String(item[..<eq]).trimmingCharacters(in: " \t")
            let peer = String(item[item.index(after: eq)...]).trimmingCharacters(in: " \t")
            guard ["in_1", "in_2", "out_1", "out_2", "midi_out", "control_in"].contains(local) else {
                throw JackConnectionSyntaxError(
                    message: "'\(local)' is not a sensorwah port (in_1, in_2, out_1, out_2, midi_out, control_in)")
            }
            guard peer.contains(":") else {
                throw JackConnectionSyntaxError(message: "'\(peer)': a JACK port name is CLIENT:PORT")
            }
            out.append(.port(local: local, peer: peer))
        }
        return out
    }

    public var description: String {
        switch self {
        case .system: return "system"
        case .port(let l, let p): return "\(l)=\(p)"
        }
    }
}

public struct JackConnectionSyntaxError: Error, Sendable {
    public var message: String
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

public struct JackEngineConfiguration: Sendable {
    public var clientName = "sensorwah"
    /// nil: `$JACK_DEFAULT_SERVER`, else "default".
    public var serverName: String? = nil
    /// Audio channels with a wah: 0 (no audio ports), 1 or 2.
    public var channels = 1
    /// Register `midi_out`.
    public var midiOut = false
    /// Register `control_in`, a MIDI input whose Program Change messages `takeProgramChanges`
    /// hands over (scene switching).
    public var controlIn = false
    public var wah = WahSettings()
    /// The effect chains: the first runs from the start (empty: the wah alone); the others are
    /// scenes' own chains, switched to by `selectChain` with a crossfade of `crossfadeSeconds`.
    public var chains: [EffectChainSpec] = []
    public var crossfadeSeconds = 0.02
    /// `--fx-cc`: Control Changes on `control_in` that move an effect parameter (its address in
    /// each chain; a chain without it ignores the controller).
    public var effectControllers: [(controller: Int, address: String)] = []
    /// The wah's switch (`--wah-switch`) runs: a chain switched to takes its state.
    public var wahSwitch = false
    /// Pedal before the first value arrives (0...1).
    public var initialPedal: Float = 0
    public var connections: [JackConnection] = []
    /// Seconds between reconnection attempts.
    public var retryInterval = 1.0
    public var midiCapacity = 4096
    /// Time every callback (clock_gettime, vDSO) into a histogram.
    public var measureCallbackTime = false
    /// Called around the audited part of every callback.
    public var hooks: RTHooks? = nil
    public init() {}
}

/// Counters, readable at any time.
public struct JackEngineStats: Sendable {
    public var cycles = 0
    public var xruns = 0
    public var connects = 0
    public var serverLosses = 0
    public var midiWritten = 0
    public var midiDroppedFull = 0
    public var midiDroppedOffline = 0
    public var midiDeferred = 0
    /// Program Change messages received on `control_in`, and those dropped because nobody
    /// took them in time (the control ring was full).
    public var programChanges = 0
    public var programChangesDropped = 0
    /// `--fx-cc` Control Changes applied on `control_in`; effect values from the mappings lost
    /// to a full ring.
    public var effectControlChanges = 0
    public var effectValuesDropped = 0
    public var sampleRate = 0
    public var periodFrames = 0
    public var timedCallbacks = 0
    public var worstCallbackNanos: UInt64 = 0
    /// Which timed callback was the worst (1 = the first).
    public var worstCallbackIndex = 0
    public var p99CallbackNanos: UInt64 = 0
    public var p999CallbackNanos: UInt64 = 0
    public var meanCallbackNanos: Double = 0
}

/// Owns one JACK client named `sensorwah` with audio ports `in_N`/`out_N` running the wah and
/// an optional `midi_out`. The first connection attempt happens in `start()`; afterwards a
/// supervisor thread notices a server shutdown, closes the dead client and calls
/// `jack_client_open` (JackNoStartServer) every `retryInterval` until a server answers.
///
/// Thread use: `setPedal` and `send` from any one producer thread each; `start`/`stop` from
/// the owner. The process callback sees only `RTState`.
public final class JackEngine: @unchecked Sendable {
    public let configuration: JackEngineConfiguration
    let logger: Logger
    let state: UnsafeMutablePointer<RTState>
    /// True while a client is active (producers drop MIDI when false).
    let connected = ManagedAtomic<Bool>(false)
    let stopping = ManagedAtomic<Bool>(false)
    let droppedOffline = ManagedAtomic<Int>(0)
    let connectCount = ManagedAtomic<Int>(0)
    let lossCount = ManagedAtomic<Int>(0)
    let sampleRateNow = ManagedAtomic<Int>(0)
    // touched only by the thread that currently owns the client (start, then the supervisor)
    var client: OpaquePointer? = nil
    var supervisor: pthread_t? = nil
    var reportedNoServer = false
    var started = false
    /// The server name used in messages.
    public let serverLabel: String

    public init(configuration: JackEngineConfiguration, logger: Logger) {
        var c = configuration
        c.channels = min(max(c.channels, 0), 2)
        self.configuration = c
        self.logger = logger
        serverLabel = c.serverName ?? (getenv("JACK_DEFAULT_SERVER").map { String(cString: $0) } ?? "default")
        state = .allocate(capacity: 1)
        state.initialize(to: RTState(midiCapacity: c.midiCapacity))
        state.pointee.channels = c.channels
        state.pointee.hasMIDI = c.midiOut
        state.pointee.hasControl = c.controlIn || (c.channels > 0 && !c.effectControllers.isEmpty)
        state.pointee.takesProgramChange = c.controlIn
        // transport's tempo is read only when a chain has an effect that can follow it
        state.pointee.transport =
            c.channels > 0
            && (c.chains.isEmpty ? [EffectChainSpec.wahOnly] : c.chains)
                .contains { $0.stages.contains { $0.kind == .tremolo || $0.kind == .delay } }
        state.pointee.hooks = c.hooks
        state.pointee.measure = c.measureCallbackTime
        setPedal(c.initialPedal)
        setBypass(c.wah.bypass)
        JackEngine.silenceLibraryMessages()
    }

    deinit {
        stop()
        state.pointee.destroy()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: Producers

    /// Pedal 0...1 for the audio thread (relaxed atomic store of the Float bits). NaN is ignored.
    public func setPedal(_ pedal: Float) {
        if pedal.isNaN { return }
        state.pointee.pedalBits.store(min(max(pedal, 0), 1).bitPattern, ordering: .relaxed)
    }

    public var pedal: Float { Float(bitPattern: state.pointee.pedalBits.load(ordering: .relaxed)) }

    /// The wah's engage switch (`--wah-switch`): true bypasses the effect, false engages it. The
    /// process callback applies it at its next period with the 5 ms crossfade (no click).
    public func setBypass(_ bypassed: Bool) {
        state.pointee.bypassed.store(bypassed, ordering: .relaxed)
    }

    public var isBypassed: Bool { state.pointee.bypassed.load(ordering: .relaxed) }

    /// An effect parameter for chain `set` (in its units), for the callback's next period.
    /// Single producer; dropped (and counted in `fxDropped`) when the ring is full.
    public func setEffect(set: Int, slot: Int, value: Double) {
        guard slot >= 0, slot < 0xFFFF, set >= 0, set < 0xFFFF, !value.isNaN else { return }
        let word = UInt64(slot) | UInt64(set) << 16 | UInt64(Float(value).bitPattern) << 32
        state.pointee.fxRing.push(MIDIRingEntry(arrival: 0, packed: word))
    }

    /// Switches to chain `set` (a scene's), crossfading in the callback. Any thread.
    public func selectChain(_ set: Int) {
        state.pointee.wantedSet.store(set, ordering: .releasing)
    }

    /// The chain set asked for last.
    public var selectedChain: Int { state.pointee.wantedSet.load(ordering: .acquiring) }

    /// The chain running and its parameters' values now, as the callback last published them
    /// (the live view; empty before the first period).
    public var effectValues: (set: Int, values: [Double]) { state.pointee.fx.snapshot() }

    /// The chains this engine runs (set 0 first).
    public var chainSpecs: [EffectChainSpec] { configuration.chains.isEmpty ? [.wahOnly] : configuration.chains }

    /// Queues a MIDI message for `midi_out`, stamped with the JACK time now. Dropped (and
    /// counted) while no server is connected or when the ring is full. Single producer.
    public func send(_ e: MIDIEvent) {
        guard configuration.midiOut else { return }
        guard connected.load(ordering: .acquiring) else {
            droppedOffline.wrappingIncrement(ordering: .relaxed)
            return
        }
        state.pointee.ring.push(MIDIRingEntry(e, arrival: jack_get_time()))
    }

    /// `send` for a message meant to sound at `due` (CLOCK_MONOTONIC ns, not later than now):
    /// stamped with the JACK time of that moment, so it lands on the frame that matches it.
    public func send(_ e: MIDIEvent, due: UInt64) {
        guard configuration.midiOut else { return }
        guard connected.load(ordering: .acquiring) else {
            droppedOffline.wrappingIncrement(ordering: .relaxed)
            return
        }
        let now = jack_get_time(), mono = monotonicNanos()
        let ago = (mono &- min(due, mono)) / 1000
        state.pointee.ring.push(MIDIRingEntry(e, arrival: now > ago ? now - ago : now))
    }

    public var isConnected: Bool { connected.load(ordering: .acquiring) }

    /// Hands over every Program Change `control_in` received since the last call (channel
    /// 0-15, program 0-127), oldest first. Single consumer; never blocks.
    public func takeProgramChanges(_ body: (_ channel: UInt8, _ program: UInt8) -> Void) {
        guard configuration.controlIn else { return }
        while let e = state.pointee.controlRing.pop() { body(e.byte(0) & 0x0F, e.byte(1)) }
    }

    // MARK: Life cycle

    /// Tries to connect once (logging one clear error if no server runs), then leaves
    /// reconnection to a supervisor thread. Returns whether a server is connected now.
    @discardableResult
    public func start() -> Bool {
        guard !started else { return isConnected }
        started = true
        let ok = tryConnect(first: true)
        startSupervisor()
        return ok
    }

    /// Sends what is still queued for `midi_out` (up to `drainTimeout` seconds), stops the
    /// supervisor, closes the client and logs the counters (xruns) once.
    public func stop(drainTimeout: Double = 0.5) {
        guard started, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if isConnected && configuration.midiOut {
            let deadline = monotonicSeconds() + drainTimeout
            while state.pointee.ring.count > 0 && monotonicSeconds() < deadline && isConnected { sleepSeconds(0.002) }
            // two more periods so the last messages leave JACK's buffers
            let period = Double(max(state.pointee.periodFrames.load(ordering: .relaxed), 64))
            let rate = Double(max(sampleRateNow.load(ordering: .relaxed), 8000))
            sleepSeconds(min(2.5 * period / rate, 0.5))
        }
        if let t = supervisor {
            pthread_join(t, nil)
            supervisor = nil
        }
        closeClient(deactivate: true)
        started = false
        let s = stats
        // never connected: the one error line at start said it all
        if s.connects == 0 { return }
        var line = "JACK: \(s.xruns) xrun\(s.xruns == 1 ? "" : "s") in \(s.cycles) cycles"
        if s.serverLosses > 0 { line += ", server lost \(s.serverLosses)x, connected \(s.connects)x" }
        if configuration.midiOut {
            line += ", MIDI sent \(s.midiWritten)"
            if s.midiDroppedOffline > 0 { line += ", \(s.midiDroppedOffline) dropped while disconnected" }
            if s.midiDroppedFull > 0 { line += ", \(s.midiDroppedFull) dropped (queue full)" }
        }
        if configuration.controlIn {
            line += ", Program Change received \(s.programChanges)"
            if s.programChangesDropped > 0 { line += " (\(s.programChangesDropped) dropped)" }
        }
        if !configuration.effectControllers.isEmpty { line += ", effect CCs applied \(s.effectControlChanges)" }
        if configuration.measureCallbackTime && s.timedCallbacks > 0 && s.sampleRate > 0 && s.periodFrames > 0 {
            let periodNanos = 1e9 * Double(s.periodFrames) / Double(s.sampleRate)
            func us(_ n: Double) -> String { NumberText.fixed(n / 1000, 1) + " µs" }
            func pct(_ n: Double) -> String { NumberText.fixed(n / periodNanos * 100, 1) + "%" }
            line +=
                "; callback time over \(s.timedCallbacks) callbacks (period \(s.periodFrames) frames = \(us(periodNanos))):"
            line += " mean \(us(s.meanCallbackNanos)) (\(pct(s.meanCallbackNanos))),"
            line += " p99 \(us(Double(s.p99CallbackNanos))) (\(pct(Double(s.p99CallbackNanos)))),"
            line += " p99.9 \(us(Double(s.p999CallbackNanos))) (\(pct(Double(s.p999CallbackNanos)))),"
            line +=
                " worst \(us(Double(s.worstCallbackNanos))) (\(pct(Double(s.worstCallbackNanos)))) at callback \(s.worstCallbackIndex)"
        }
        logger.info("\(line)")
    }

    public var stats: JackEngineStats {
        // field by field: a copy of the whole state would read what the process thread writes
        let p = state
        var s = JackEngineStats()
        s.cycles = p.pointee.cycles.load(ordering: .relaxed)
        s.xruns = p.pointee.xruns.load(ordering: .relaxed)
        s.connects = connectCount.load(ordering: .relaxed)
        s.serverLosses = lossCount.load(ordering: .relaxed)
        s.midiWritten = p.pointee.midiWritten.load(ordering: .relaxed)
        s.midiDroppedFull = p.pointee.ring.dropped.load(ordering: .relaxed)
        s.midiDroppedOffline = droppedOffline.load(ordering: .relaxed)
        s.midiDeferred = p.pointee.midiDeferred.load(ordering: .relaxed)
        s.programChanges = p.pointee.programChanges.load(ordering: .relaxed)
        s.programChangesDropped = p.pointee.controlRing.dropped.load(ordering: .relaxed)
        s.effectControlChanges = p.pointee.fxControlChanges.load(ordering: .relaxed)
        s.effectValuesDropped = p.pointee.fxRing.dropped.load(ordering: .relaxed)
        s.sampleRate = sampleRateNow.load(ordering: .relaxed)
        s.periodFrames = Int(p.pointee.periodFrames.load(ordering: .relaxed))
        // the timer's words are atomics: while a client runs, each is whole but they may be
        // one callback apart (diagnostics only)
        s.timedCallbacks = p.pointee.timer.count
        s.worstCallbackNanos = p.pointee.timer.maxNanos
        s.worstCallbackIndex = p.pointee.timer.maxAt
        s.p99CallbackNanos = p.pointee.timer.quantileNanos(0.99)
        s.p999CallbackNanos = p.pointee.timer.quantileNanos(0.999)
        s.meanCallbackNanos =
            p.pointee.timer.count > 0 ? Double(p.pointee.timer.totalNanos) / Double(p.pointee.timer.count) : 0
        return s
    }

    // MARK: Connecting

    static let messagesSilenced = ManagedAtomic<Bool>(false)

    /// libjack prints its own errors ("Cannot connect to server socket ...") on stderr: route
    /// them to nothing (or to stderr with SENSORWAH_JACK_VERBOSE=1) so a missing server gives
    /// exactly one line, ours.
    static func silenceLibraryMessages() {
        guard !messagesSilenced.exchange(true, ordering: .relaxed) else { return }
        if getenv("SENSORWAH_JACK_VERBOSE") != nil {
            let show: @convention(c) (UnsafePointer<CChar>?) -> Void = { msg in
                guard let msg else { return }
                _ = write(2, "libjack: ", 9)
                _ = write(2, msg, strlen(msg))
                _ = write(2, "\n", 1)
            }
            jack_set_error_function(show)
            jack_set_info_function(show)
        } else {
            let quiet: @convention(c) (UnsafePointer<CChar>?) -> Void = { _ in }
            jack_set_error_function(quiet)
            jack_set_info_function(quiet)
        }
    }

    static func describe(status: jack_status_t) -> String {
        let v = status.rawValue
        var parts: [String] = []
        if v & JackServerFailed.rawValue != 0 { parts.append("cannot connect to the server") }
        if v & JackServerError.rawValue != 0 { parts.append("communication error with the server") }
        if v & JackVersionError.rawValue != 0 { parts.append("protocol version mismatch") }
        if v & JackShmFailure.rawValue != 0 { parts.append("shared memory failure") }
        if v & JackNameNotUnique.rawValue != 0 { parts.append("client name not unique") }
        if v & JackInitFailure.rawValue != 0 { parts.append("client initialisation failed") }
        if v & JackNoSuchClient.rawValue != 0 { parts.append("no such client") }
        if parts.isEmpty && v & JackFailure.rawValue != 0 { parts.append("failure") }
        return parts.joined(separator: ", ") + " (status 0x\(String(v, radix: 16)))"
    }

    /// One attempt: open, register ports, prepare, activate, connect. Logs the outcome.
    func tryConnect(first: Bool) -> Bool {
        var status = jack_status_t(rawValue: 0)
        let c = configuration
        let opened: OpaquePointer? = c.clientName.withCString { name in
            if let server = c.serverName {
                return server.withCString { sw_jack_client_open(name, 1, $0, &status) }
            }
            return sw_jack_client_open(name, 1, nil, &status)
        }
        guard let jc = opened else {
            if !reportedNoServer {
                reportedNoServer = true
                let what =
                    c.channels > 0 ? (c.midiOut ? "audio (wah) and JACK MIDI are" : "audio (wah) is") : "JACK MIDI is"
                logger.error(
                    "JACK: no server '\(serverLabel)' (\(JackEngine.describe(status: status))); \(what) off, retrying every \(NumberText.whole(c.retryInterval)) s; other outputs keep running"
                )
            } else {
                logger.debug("JACK: server '\(serverLabel)' still unavailable (\(JackEngine.describe(status: status)))")
            }
            return false
        }
        let actualName = String(cString: jack_get_client_name(jc))
        state.pointee.client = jc
        state.pointee.serverGone.store(false, ordering: .relaxed)

        func register(_ name: String, _ type: UnsafePointer<CChar>, _ flags: UInt) -> OpaquePointer? {
            name.withCString { jack_port_register(jc, $0, type, flags, 0) }
        }
        var failed: String? = nil
        state.pointee.in1 = nil; state.pointee.in2 = nil; state.pointee.out1 = nil; state.pointee.out2 = nil
        state.pointee.midiPort = nil; state.pointee.controlPort = nil
        if c.channels >= 1 {
            state.pointee.in1 = register("in_1", sw_jack_audio_type(), sw_jack_input_flags())
            state.pointee.out1 = register("out_1", sw_jack_audio_type(), sw_jack_output_flags())
            if state.pointee.in1 == nil || state.pointee.out1 == nil { failed = "cannot register in_1/out_1" }
        }
        if c.channels >= 2 {
            state.pointee.in2 = register("in_2", sw_jack_audio_type(), sw_jack_input_flags())
            state.pointee.out2 = register("out_2", sw_jack_audio_type(), sw_jack_output_flags())
            if state.pointee.in2 == nil || state.pointee.out2 == nil { failed = "cannot register in_2/out_2" }
        }
        if c.midiOut {
            state.pointee.midiPort = register("midi_out", sw_jack_midi_type(), sw_jack_output_flags())
            if state.pointee.midiPort == nil { failed = "cannot register midi_out" }
        }
        if c.controlIn {
            state.pointee.controlPort = register("control_in", sw_jack_midi_type(), sw_jack_input_flags())
            if state.pointee.controlPort == nil { failed = "cannot register control_in" }
        }
        let rate = jack_get_sample_rate(jc)
        let period = jack_get_buffer_size(jc)
        // prepare before activation: the callback is not running yet
        if c.channels > 0 { prepareChains(rate: rate) }
        state.pointee.preparedRate.store(rate, ordering: .releasing)
        state.pointee.requestedRate.store(rate, ordering: .relaxed)
        state.pointee.periodFrames.store(period, ordering: .relaxed)
        sampleRateNow.store(Int(rate), ordering: .relaxed)
        while state.pointee.ring.pop() != nil {}  // stale messages from before a disconnection

        let arg = UnsafeMutableRawPointer(state)
        if failed == nil {
            if jack_set_process_callback(jc, { n, a in rtProcess(n, a) }, arg) != 0 {
                failed = "cannot set the process callback"
            }
            _ = jack_set_xrun_callback(jc, { a in rtXRun(a) }, arg)
            _ = jack_set_sample_rate_callback(jc, { r, a in rtSampleRate(r, a) }, arg)
            _ = jack_set_buffer_size_callback(jc, { f, a in rtBufferSize(f, a) }, arg)
            jack_on_info_shutdown(jc, { code, reason, a in rtShutdown(code, reason, a) }, arg)
            // PipeWire's libjack (pipewire-jack 0.3.65) calls only the plain shutdown callback when
            // its daemon goes away; jackd calls the info one. Either marks the server gone.
            jack_on_shutdown(jc, { a in rtShutdown(JackFailure, nil, a) }, arg)
        }
        if failed == nil && jack_activate(jc) != 0 { failed = "cannot activate the client" }
        if let why = failed {
            logger.error("JACK: \(why) on server '\(serverLabel)'; retrying")
            _ = jack_client_close(jc)
            state.pointee.client = nil
            return false
        }
        client = jc
        connected.store(true, ordering: .releasing)
        connectCount.wrappingIncrement(ordering: .relaxed)
        let madeConnections = applyConnections(jc)
        var ports: [String] = []
        if c.channels >= 1 { ports += ["in_1", "out_1"] }
        if c.channels >= 2 { ports += ["in_2", "out_2"] }
        if c.midiOut { ports.append("midi_out") }
        if c.controlIn { ports.append("control_in") }
        let how = first || connectCount.load(ordering: .relaxed) == 1 ? "connected to" : "reconnected to"
        var line =
            "JACK: \(how) server '\(serverLabel)' as '\(actualName)' (\(rate) Hz, \(period) frames; ports \(ports.joined(separator: ", "))"
        if madeConnections > 0 { line += "; \(madeConnections) connection\(madeConnections == 1 ? "" : "s") made" }
        line += ")"
        logger.info("\(line)")
        reportedNoServer = false
        return true
    }

    /// Prepares every chain for `rate` (allocates): before activation, or while the callback
    /// leaves them alone after a sample-rate change.
    func prepareChains(rate: UInt32) {
        let c = configuration
        var wah = c.wah
        wah.bypass = isBypassed
        let selected = selectedChain
        state.pointee.fx.current = selected
        state.pointee.fx.build(
            specs: chainSpecs, channels: c.channels, sampleRate: Double(rate), wah: wah,
            controllers: c.effectControllers, pedal: pedal, bypassed: isBypassed,
            followsSwitch: c.wahSwitch, crossfadeSeconds: c.crossfadeSeconds)
        while state.pointee.fxRing.pop() != nil {}  // values for chains that are gone
    }

    /// Makes the configured connections; returns how many succeeded.
    func applyConnections(_ jc: OpaquePointer) -> Int {
        var made = 0
        func full(_ port: OpaquePointer?) -> String? {
            guard let port, let n = jack_port_name(port) else { return nil }
            return String(cString: n)
        }
        func connect(_ source: String, _ destination: String) {
            let r = jack_connect(jc, source, destination)
            if r == 0 || r == EEXIST {
                made += 1
            } else {
                logger.warning("JACK: cannot connect \(source) -> \(destination) (no such port, or wrong direction)")
            }
        }
        func physical(_ flags: UInt, _ type: UnsafePointer<CChar>) -> [String] {
            guard let list = jack_get_ports(jc, nil, type, flags) else { return [] }
            var names: [String] = []
            var i = 0
            while let p = list[i] { names.append(String(cString: p)); i += 1 }
            jack_free(UnsafeMutableRawPointer(mutating: list))
            return names
        }
        // the ports only: the process callback runs already, and a copy of the whole state
        // would read the wah processors it writes (ThreadSanitizer saw it)
        let p = (
            in1: state.pointee.in1, in2: state.pointee.in2, out1: state.pointee.out1,
            out2: state.pointee.out2, midiPort: state.pointee.midiPort, controlPort: state.pointee.controlPort
        )
        for conn in configuration.connections {
            switch conn {
            case .system:
                let captures = physical(sw_jack_physical_output_flags(), sw_jack_audio_type())
                let playbacks = physical(sw_jack_physical_input_flags(), sw_jack_audio_type())
                let ins = [full(p.in1), full(p.in2)].compactMap { $0 }
                let outs = [full(p.out1), full(p.out2)].compactMap { $0 }
                for (i, name) in ins.enumerated() where i < captures.count { connect(captures[i], name) }
                if outs.count == 1 {
                    for dst in playbacks.prefix(2) { connect(outs[0], dst) }
                } else {
                    for (i, name) in outs.enumerated() where i < playbacks.count { connect(name, playbacks[i]) }
                }
                if let m = full(p.midiPort) {
                    for dst in physical(sw_jack_physical_input_flags(), sw_jack_midi_type()).prefix(1) {
                        connect(m, dst)
                    }
                }
                if ins.count > captures.count || outs.count > playbacks.count {
                    logger.warning(
                        "JACK: server has \(captures.count) capture and \(playbacks.count) playback ports; some of ours stay unconnected"
                    )
                }
            case .port(let local, let peer):
                let mine: OpaquePointer?
                switch local {
                case "in_1": mine = p.in1
                case "in_2": mine = p.in2
                case "out_1": mine = p.out1
                case "out_2": mine = p.out2
                case "control_in": mine = p.controlPort
                default: mine = p.midiPort
                }
                guard let name = full(mine) else {
                    logger.warning("JACK: --jack-connect \(local)=\(peer): this run has no port \(local)")
                    continue
                }
                if local.hasPrefix("in_") || local == "control_in" { connect(peer, name) } else { connect(name, peer) }
            }
        }
        return made
    }

    func closeClient(deactivate: Bool) {
        connected.store(false, ordering: .releasing)
        guard let jc = client else { return }
        if deactivate { _ = jack_deactivate(jc) }
        _ = jack_client_close(jc)
        client = nil
        state.pointee.client = nil
    }

    // MARK: Supervisor

    final class Box: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    func startSupervisor() {
        let box = Unmanaged.passRetained(Box { [unowned self] in self.supervise() })
        var t = pthread_t()
        let rc = pthread_create(
            &t, nil,
            { arg in
                let b = Unmanaged<JackEngine.Box>.fromOpaque(arg!).takeRetainedValue()
                b.body()
                return nil
            }, box.toOpaque())
        if rc == 0 {
            supervisor = t
        } else {
            box.release()
            logger.error("JACK: cannot start the supervisor thread; no reconnection")
        }
    }

    func supervise() {
        var nextAttempt = monotonicSeconds() + configuration.retryInterval
        var lastPeriod = state.pointee.periodFrames.load(ordering: .relaxed)
        var lastRate = state.pointee.requestedRate.load(ordering: .relaxed)
        while !stopping.load(ordering: .acquiring) {
            sleepSeconds(0.05)
            if client != nil {
                if state.pointee.serverGone.load(ordering: .acquiring) {
                    lossCount.wrappingIncrement(ordering: .relaxed)
                    logger.warning(
                        "JACK: server '\(serverLabel)' shut down; audio and JACK MIDI paused, reconnecting every \(NumberText.whole(configuration.retryInterval)) s"
                    )
                    closeClient(deactivate: false)
                    reportedNoServer = true  // do not repeat the 'no server' error
                    nextAttempt = monotonicSeconds() + min(configuration.retryInterval, 0.5)
                    continue
                }
                let period = state.pointee.periodFrames.load(ordering: .relaxed)
                let rate = state.pointee.requestedRate.load(ordering: .relaxed)
                if period != lastPeriod { logger.info("JACK: period now \(period) frames"); lastPeriod = period }
                if rate != lastRate {
                    logger.info("JACK: sample rate now \(rate) Hz")
                    sampleRateNow.store(Int(rate), ordering: .relaxed)
                    lastRate = rate
                }
                // the callback has let go of the chains (it saw the new rate): prepare new ones
                if configuration.channels > 0, rate != 0, rate != state.pointee.preparedRate.load(ordering: .acquiring),
                    state.pointee.rateSeen.load(ordering: .acquiring) == rate
                {
                    prepareChains(rate: rate)
                    state.pointee.preparedRate.store(rate, ordering: .releasing)
                    logger.info("JACK: effect chains prepared for \(rate) Hz")
                }
            } else if monotonicSeconds() >= nextAttempt {
                if tryConnect(first: false) {
                    lastPeriod = state.pointee.periodFrames.load(ordering: .relaxed)
                    lastRate = state.pointee.requestedRate.load(ordering: .relaxed)
                }
                nextAttempt = monotonicSeconds() + configuration.retryInterval
            }
        }
    }
}

func sleepSeconds(_ s: Double) {
    guard s > 0 else { return }
    var ts = timespec(tv_sec: Int(s), tv_nsec: Int((s - Double(Int(s))) * 1e9))
    var rest = timespec()
    while nanosleep(&ts, &rest) != 0 && errno == EINTR { ts = rest }
}
