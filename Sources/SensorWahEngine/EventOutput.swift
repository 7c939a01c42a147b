import SensorWahCore

/// Where mapped events go: a MIDI port, the wah's pedal, a JSON stream, a queue to another
/// thread. Every output of a run receives every MIDI message the mapper emits (Control Change,
/// 14-bit CC, pitch bend, notes) and keeps what concerns it. Effect control (the wah's switch,
/// `fx=` parameters, a scene's change of chain) goes to `send(_: EffectControl)`, which only
/// the outputs that take it implement (the effect chain's, JSON, plot, the queue to the output
/// thread); a MIDI output leaves it to the default, which drops it.
///
/// Outputs run on the thread that owns the pipeline; `send` must not block for long.
public protocol EventOutput: AnyObject {
    /// A short name for logs ("stdout", "alsa", "jack", "wah").
    var name: String { get }
    func send(_ e: MIDIEvent)
    /// A MIDI message meant to sound at `due` (CLOCK_MONOTONIC ns), which a sender's playout
    /// set. The output thread calls it when that moment has come, or as soon as the message is
    /// made for an output that `takesAhead`. An output that can carry the moment on overrides
    /// it (RTP-MIDI's timestamps, the frame in a JACK period, an OSC bundle's timetag); the
    /// default is `send(e)`.
    func send(_ e: MIDIEvent, due: UInt64)
    /// Whether scheduled messages reach this output as soon as they are made, for it to send
    /// ahead with their moment (an OSC bundle's timetag for a receiver that schedules), rather
    /// than when they are due (default false).
    var takesAhead: Bool { get }
    /// Effect control (default: dropped, as a MIDI output does).
    func send(_ c: EffectControl)
    /// Push buffered messages out now (called when the pipeline waits for time to pass).
    func flush()
    /// The run is over; release what the output holds. Called once per output.
    func close()
    /// Why the output delivers nothing now (its reader has gone, its server is not
    /// connected), or nil while it delivers. Read on the thread that calls `send`.
    var failure: String? { get }
    /// Whether the failure is for good: the output will never deliver again (a pipe whose
    /// reader has gone), as opposed to one that may heal (a JACK client reconnects when a
    /// server returns). False while it delivers.
    var failureIsFinal: Bool { get }
    /// Messages the output accepted and did not deliver: lost in a write that failed, or
    /// dropped while it had failed (0 for an output that never loses any). Read on the thread
    /// that calls `send`.
    var undelivered: Int { get }
}

extension EventOutput {
    public func send(_ c: EffectControl) {}
    public func send(_ e: MIDIEvent, due: UInt64) { send(e) }
    public var takesAhead: Bool { false }
    /// Either kind, to its own `send`.
    @inline(__always)
    public func send(_ e: MappedEvent) {
        switch e {
        case .midi(let m): send(m)
        case .effect(let c): send(c)
        }
    }
    public var failure: String? { nil }
    public var failureIsFinal: Bool { false }
    public var undelivered: Int { 0 }
}
