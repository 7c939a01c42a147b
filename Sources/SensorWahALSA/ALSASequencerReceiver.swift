import CALSA
#if canImport(Glibc)
    import Glibc
#endif

/// A second sequencer client that subscribes to a port and reads what arrives, as a DAW
/// does. Used by the benchmark and tests. Blocking input; use from one thread at a time.
public final class ALSASequencerReceiver: @unchecked Sendable {
    public enum Received: Equatable, Sendable {
        /// channel 0-15
        case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
        /// channel 0-15, value 0-16383 (8192 = centre), converted from ALSA's signed form
        case pitchBend(channel: UInt8, value: UInt16)
        /// Some other event (its ALSA type number).
        case other(type: Int32)
        /// Our input FIFO overflowed: events were lost.
        case overrun
        case timeout
        case error(Int32)
    }

    public let address: ALSAAddress
    private var seq: SeqHandle?
    private let fd: Int32

    public init(clientName: String, portName: String = "in") throws(ALSAError) {
        let seq = try Sequencer.open()
        var r = snd_seq_set_client_name(seq, clientName)
        if r >= 0 {
            let caps = UInt32(SND_SEQ_PORT_CAP_WRITE) | UInt32(SND_SEQ_PORT_CAP_SUBS_WRITE)
            let type = UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC) | UInt32(SND_SEQ_PORT_TYPE_APPLICATION)
            r = snd_seq_create_simple_port(seq, portName, caps, type)
        }
        guard r >= 0 else {
            snd_seq_close(seq)
            throw ALSAError(
                .openFailed, code: r, "ALSA sequencer: cannot set up the client '\(clientName)' (\(alsaMessage(r)))")
        }
        self.seq = seq
        self.fd = sensorwah_seq_fd(seq)
        self.address = ALSAAddress(client: snd_seq_client_id(seq), port: r)
    }

    deinit { close() }

    public func close() {
        guard let s = seq else { return }
        seq = nil
        snd_seq_close(s)
    }

    /// Subscribes our port to `source` (snd_seq_connect_from).
    public func subscribe(to source: ALSAAddress) throws(ALSAError) {
        guard let seq else { throw ALSAError(.connectFailed, "ALSA sequencer: the receiver is closed") }
        let r = snd_seq_connect_from(seq, address.port, source.client, source.port)
        if r < 0 && r != -EBUSY {
            throw ALSAError(.connectFailed, code: r, "ALSA sequencer: cannot subscribe to \(source): \(alsaMessage(r))")
        }
    }

    /// Subscribes to CLIENT[:PORT] by name or number; false if it does not exist (yet).
    public func subscribe(to spec: String) throws(ALSAError) -> Bool {
        guard let seq else { throw ALSAError(.connectFailed, "ALSA sequencer: the receiver is closed") }
        let parsed = try ALSAAddressSpec(parsing: spec)
        guard let a = Self.resolveSource(parsed, seq, excluding: address.client) else { return false }
        try subscribe(to: a)
        return true
    }

    /// Like ALSAAddressSpec.resolve, but with no port given it picks a port others can read.
    private static func resolveSource(_ spec: ALSAAddressSpec, _ seq: SeqHandle, excluding own: Int32) -> ALSAAddress? {
        if spec.port != nil { return spec.resolve(seq, excluding: own) }
        var s = spec
        s.port = .number(0)
        let want = UInt32(SND_SEQ_PORT_CAP_READ) | UInt32(SND_SEQ_PORT_CAP_SUBS_READ)
        guard let a = s.resolve(seq, excluding: own) else { return nil }
        return Sequencer.ports(seq, client: a.client).first { $0.capability & want == want && $0.exported }?.address
    }

    /// The next event; waits at most `timeoutMs` (-1: forever).
    public func receive(timeoutMs: Int32 = -1) -> Received {
        guard let seq else { return .error(-EBADF) }
        if snd_seq_event_input_pending(seq, 0) == 0 && timeoutMs >= 0 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, timeoutMs)
            if r == 0 { return .timeout }
            if r < 0 { return errno == EINTR ? .timeout : .error(-errno) }
        }
        var ev: UnsafeMutablePointer<snd_seq_event_t>?
        var r: Int32
        repeat { r = snd_seq_event_input(seq, &ev) } while r == -EINTR
        if r == -ENOSPC { return .overrun }
        guard r >= 0, let ev else { return .error(r) }
        let type = sensorwah_seq_ev_type(ev)
        let ch = UInt8(truncatingIfNeeded: sensorwah_seq_ev_channel(ev))
        switch type {
        case Int32(SND_SEQ_EVENT_CONTROLLER.rawValue):
            return .controlChange(
                channel: ch, controller: UInt8(truncatingIfNeeded: sensorwah_seq_ev_param(ev)),
                value: UInt8(truncatingIfNeeded: sensorwah_seq_ev_value(ev)))
        case Int32(SND_SEQ_EVENT_PITCHBEND.rawValue):
            return .pitchBend(channel: ch, value: UInt16(truncatingIfNeeded: sensorwah_seq_ev_value(ev) + 8192))
        default:
            return .other(type: type)
        }
    }
}
