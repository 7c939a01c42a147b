import CALSA
import Logging
import SensorWahCore
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// MIDI out through the ALSA sequencer: a client (default "SensorWah") with one port
/// (default "out", READ|SUBS_READ, MIDI_GENERIC|APPLICATION) that DAWs list and subscribe to.
///
/// Events go out directly (no queue) to every subscriber. Use from one thread.
///
/// Nothing is lost to a slow subscriber. The kernel never blocks a direct event on a full
/// receiver (blocking mode only covers our own output pool, which direct events skip): it
/// drops the event, returns -EAGAIN, and flags that receiver's FIFO as overrun, so the
/// receiver's next read throws away *everything* buffered (-ENOSPC). So `send` keeps a credit
/// of free cells in the fullest subscriber's input FIFO, asked of the kernel at most every
/// `creditLimit` messages (no allocation), and when it runs out waits for the subscribers to
/// read. A subscriber that reads nothing for `stallTimeout` seconds is left behind (logged,
/// and waited for again once it has caught up) so that one hung client cannot stop the rest.
/// Kernel clients (Midi Through, hardware ports) have no FIFO and are not waited for.
///
/// With a control port (`controlPortName`, e.g. "control in": WRITE|SUBS_WRITE, a second
/// port of the same client) the client also receives: the kernel is told to deliver only
/// Program Change (and the announcements the output needs), so clock, notes or controllers a
/// DAW sends there never reach our FIFO. `serviceAnnouncements` reads them on the sending
/// thread and `takeProgramChanges` hands them to one other thread. Nothing received is sent on.
public final class ALSASequencerOutput: @unchecked Sendable {
    public let clientName: String
    public let portName: String
    /// Our address (client:port), as other programs see it.
    public let address: ALSAAddress
    public var logger: Logger

    /// MIDI events handed to the sequencer whole (a 14-bit CC counts once).
    public private(set) var sent = 0
    /// MIDI events the sequencer refused (see `lastError`).
    public private(set) var failed = 0
    /// Times `send` waited for a subscriber to read.
    public private(set) var flowWaits = 0
    /// Last negative errno from snd_seq_event_output_direct, 0 if none.
    public private(set) var lastError: Int32 = 0

    /// How long a subscriber may read nothing before `send` stops waiting for it.
    public var stallTimeout = 1.0
    /// At most this many messages between two looks at the subscribers' FIFOs (each look is
    /// 2 + 2 per subscriber ioctls; 128 keeps them under 1% of messages, out of the p99).
    public var creditLimit = 128

    private var seq: SeqHandle?
    private let fd: Int32
    private let event: UnsafeMutablePointer<snd_seq_event_t>

    // flow control (no allocation after init: fixed buffers)
    private var credit = 0
    private let subsQuery: OpaquePointer  // snd_seq_query_subscribe_t *
    private static let maxTracked = 64
    private let stalled: UnsafeMutablePointer<Int32>
    private var stalledCount = 0
    /// Cells kept free in a subscriber's FIFO for events from other senders.
    private static let reserve = 4

    // remembered connections
    private struct Remembered {
        let spec: ALSAAddressSpec
        var connected: ALSAAddress?
    }
    private var remembered: [Remembered] = []
    private var announcePort: Int32 = -1
    private var announceSubscribed = false
    private var announceFailed = false
    private var lastPendingScan = 0.0

    /// The control port's number (-1: none), and the Program Change received on it (channel in
    /// the high byte, program in the low one), from the sending thread to one reader.
    public private(set) var controlPort: Int32 = -1
    public let controlPortName: String?
    private let programs = SPSCQueue<UInt16>(capacity: 64)
    /// Program Change messages received on the control port, and dropped because nobody took
    /// them in time.
    public private(set) var programChangesReceived = 0
    public var programChangesDropped: Int { programs.dropped.load(ordering: .relaxed) }

    /// Opens the sequencer and creates the client and its port.
    /// Throws `ALSAError` (one line: what is missing and what to do) when there is no sequencer.
    public init(
        clientName: String = "SensorWah", portName: String = "out", controlPortName: String? = nil,
        logger: Logger = Logger(label: "sensorwah.alsa")
    ) throws(ALSAError) {
        self.clientName = clientName
        self.portName = portName
        self.controlPortName = controlPortName
        self.logger = logger
        let seq = try Sequencer.open()
        var r = snd_seq_set_client_name(seq, clientName)
        if r < 0 {
            snd_seq_close(seq)
            throw ALSAError(
                .openFailed, code: r, "ALSA sequencer: cannot name the client '\(clientName)' (\(alsaMessage(r)))")
        }
        let caps = UInt32(SND_SEQ_PORT_CAP_READ) | UInt32(SND_SEQ_PORT_CAP_SUBS_READ)
        let type = UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC) | UInt32(SND_SEQ_PORT_TYPE_APPLICATION)
        r = snd_seq_create_simple_port(seq, portName, caps, type)
        if r < 0 {
            snd_seq_close(seq)
            throw ALSAError(
                .openFailed, code: r, "ALSA sequencer: cannot create the port '\(portName)' (\(alsaMessage(r)))")
        }
        let port = r
        var control: Int32 = -1
        if let name = controlPortName {
            // only Program Change and the announcements `serviceAnnouncements` handles come in
            for t in Self.announcementTypes + [SND_SEQ_EVENT_PGMCHANGE] {
                snd_seq_set_client_event_filter(seq, Int32(t.rawValue))
            }
            let caps = UInt32(SND_SEQ_PORT_CAP_WRITE) | UInt32(SND_SEQ_PORT_CAP_SUBS_WRITE)
            control = snd_seq_create_simple_port(seq, name, caps, type)
            if control < 0 {
                snd_seq_close(seq)
                throw ALSAError(
                    .openFailed, code: control,
                    "ALSA sequencer: cannot create the port '\(name)' (\(alsaMessage(control)))")
            }
        }
        let client = snd_seq_client_id(seq)
        var q: OpaquePointer?
        guard snd_seq_query_subscribe_malloc(&q) >= 0, let q else {
            snd_seq_close(seq)
            throw ALSAError(.openFailed, code: -ENOMEM, "ALSA sequencer: out of memory")
        }
        var root = snd_seq_addr_t(client: UInt8(truncatingIfNeeded: client), port: UInt8(truncatingIfNeeded: port))
        snd_seq_query_subscribe_set_root(q, &root)
        snd_seq_query_subscribe_set_type(q, SND_SEQ_QUERY_SUBS_READ)

        self.seq = seq
        self.fd = sensorwah_seq_fd(seq)
        self.address = ALSAAddress(client: client, port: port)
        self.controlPort = control
        self.subsQuery = q
        self.stalled = .allocate(capacity: Self.maxTracked)
        self.event = .allocate(capacity: 1)
        sensorwah_seq_ev_init_output(event, port)
        remembered.reserveCapacity(4)
    }

    deinit {
        close()
        snd_seq_query_subscribe_free(subsQuery)
        stalled.deallocate()
        event.deallocate()
    }

    public var isOpen: Bool { seq != nil }

    public func close() {
        guard let s = seq else { return }
        seq = nil
        snd_seq_close(s)
    }

    // MARK: - sending

    /// Sends one MIDI event to all subscribers now: CC, a 14-bit CC as its MSB then LSB
    /// Control Change, or pitch bend. Waits while a subscriber's FIFO is full (see the type's
    /// comment). Returns false if the sequencer refused it (counted in `failed`).
    @discardableResult
    public func send(_ e: MIDIEvent) -> Bool {
        guard let seq else { failed &+= 1; return false }
        let ch = Int32(e.channel & 0x0F)
        let ok: Bool
        switch e.kind {
        case .controlChange:
            sensorwah_seq_ev_set_controller(event, ch, UInt32(e.controller & 0x7F), Int32(e.value & 0x7F))
            ok = output(seq)
        case .controlChange14:
            // the same controller numbers as MIDIEvent.encode: MSB on 0-31, LSB on +32
            let v = Int32(e.value & 0x3FFF)
            let msb = UInt32(e.controller & 0x1F)
            sensorwah_seq_ev_set_controller(event, ch, msb, v >> 7)
            if output(seq) {
                sensorwah_seq_ev_set_controller(event, ch, msb + 32, v & 0x7F)
                ok = output(seq)
            } else {
                ok = false
            }
        case .pitchBend:
            // MIDI's 0...16383 with 8192 the centre; ALSA's -8192...8191 with 0 the centre
            sensorwah_seq_ev_set_pitchbend(event, ch, Int32(e.value & 0x3FFF) - 8192)
            ok = output(seq)
        case .noteOn:
            sensorwah_seq_ev_set_noteon(event, ch, Int32(e.controller & 0x7F), Int32(e.value & 0x7F))
            ok = output(seq)
        case .noteOff:
            sensorwah_seq_ev_set_noteoff(event, ch, Int32(e.controller & 0x7F), 0)
            ok = output(seq)
        }
        if ok { sent &+= 1 } else { failed &+= 1 }
        return ok
    }

    @inline(__always)
    private func output(_ seq: SeqHandle) -> Bool {
        if credit <= 0 { refreshCredit(seq) }
        credit &-= 1
        let r = snd_seq_event_output_direct(seq, event)
        if r < 0 { lastError = r; return false }
        return true
    }

    /// Looks at how full each subscriber's input FIFO is; waits while the fullest one has no
    /// room. Sets `credit` to the messages that may go out before the next look.
    private func refreshCredit(_ seq: SeqHandle) {
        var waitStart = 0.0
        var pause = 20_000  // ns, doubling to 1 ms
        while true {
            var minFree = Int.max
            snd_seq_query_subscribe_set_index(subsQuery, 0)
            while snd_seq_query_port_subscribers(seq, subsQuery) >= 0 {
                let c = Int32(snd_seq_query_subscribe_get_addr(subsQuery).pointee.client)
                snd_seq_query_subscribe_set_index(subsQuery, snd_seq_query_subscribe_get_index(subsQuery) + 1)
                var free: Int32 = 0, pool: Int32 = 0
                guard sensorwah_seq_client_input_free(fd, c, &free, &pool) == 0, pool > 0 else { continue }
                if let i = stalledIndex(c) {
                    if free >= pool / 2 {  // caught up: wait for it again
                        stalledCount &-= 1
                        stalled[i] = stalled[stalledCount]
                        logger.info("ALSA: subscriber \(c) is reading again")
                    } else {
                        continue
                    }
                }
                minFree = min(minFree, Int(free))
            }
            if minFree > Self.reserve {
                credit = min(minFree == .max ? creditLimit : minFree - Self.reserve, creditLimit)
                return
            }
            // a subscriber's FIFO is full: give it time to read
            let now = monotonicNow()
            if waitStart == 0 {
                waitStart = now
                flowWaits &+= 1
            } else if now - waitStart >= stallTimeout {
                leaveBehindFullSubscribers(seq)
                waitStart = now
                continue
            }
            var ts = timespec(tv_sec: 0, tv_nsec: pause)
            nanosleep(&ts, nil)
            pause = min(pause * 2, 1_000_000)
        }
    }

    private func stalledIndex(_ c: Int32) -> Int? {
        var i = 0
        while i < stalledCount { if stalled[i] == c { return i }; i &+= 1 }
        return nil
    }

    private func leaveBehindFullSubscribers(_ seq: SeqHandle) {
        snd_seq_query_subscribe_set_index(subsQuery, 0)
        while snd_seq_query_port_subscribers(seq, subsQuery) >= 0 {
            let c = Int32(snd_seq_query_subscribe_get_addr(subsQuery).pointee.client)
            snd_seq_query_subscribe_set_index(subsQuery, snd_seq_query_subscribe_get_index(subsQuery) + 1)
            var free: Int32 = 0, pool: Int32 = 0
            guard sensorwah_seq_client_input_free(fd, c, &free, &pool) == 0, pool > 0,
                free <= Int32(Self.reserve), stalledIndex(c) == nil, stalledCount < Self.maxTracked
            else { continue }
            stalled[stalledCount] = c
            stalledCount &+= 1
            let name = Sequencer.clientName(seq, c) ?? "?"
            logger.warning(
                "ALSA: subscriber '\(name)' (client \(c)) has read nothing for \(stallTimeout) s; sending on without waiting for it (it loses messages)"
            )
        }
    }

    // MARK: - connections

    /// Connects our port to CLIENT[:PORT] (number or name; no port: the client's first port
    /// that accepts subscribers). The spec is remembered: when that client appears later or
    /// comes back, `serviceAnnouncements` connects again. Returns true if connected now,
    /// false if the destination does not exist yet. Throws for a malformed spec or a
    /// connection the sequencer refuses.
    @discardableResult
    public func connect(_ spec: String) throws(ALSAError) -> Bool {
        guard let seq else { throw ALSAError(.connectFailed, "ALSA sequencer: the output is closed") }
        let parsed = try ALSAAddressSpec(parsing: spec)
        if let addr = parsed.resolve(seq, excluding: address.client) {
            try connect(seq, to: addr, spec: parsed)
            remembered.append(Remembered(spec: parsed, connected: addr))
            return true
        }
        remembered.append(Remembered(spec: parsed, connected: nil))
        // listen for it; it may have appeared between the look above and the subscription
        if subscribeAnnouncements(seq) {
            reconnectPending(seq, onlyClient: nil)
        }
        return remembered[remembered.count - 1].connected != nil
    }

    /// The remembered specs and where each is connected now (nil: waiting for it).
    public var connections: [(spec: String, address: ALSAAddress?)] {
        remembered.map { ($0.spec.text, $0.connected) }
    }

    private func connect(_ seq: SeqHandle, to addr: ALSAAddress, spec: ALSAAddressSpec) throws(ALSAError) {
        let r = snd_seq_connect_to(seq, address.port, addr.client, addr.port)
        if r < 0 && r != -EBUSY {  // EBUSY: already connected
            let why =
                r == -EPERM
                ? "that port does not take subscribers (see `sensorwah ports`: it needs write,subs-write)"
                : alsaMessage(r)
            throw ALSAError(
                .connectFailed, code: r,
                "ALSA sequencer: cannot connect \(clientName):\(portName) to '\(spec.text)' (\(addr)): \(why)")
        }
    }

    /// Call every ~100 ms from the sending thread: reads pending announcements (never
    /// blocks) and connects remembered specs whose client has (re)appeared.
    /// Also reads Program Change arriving on the control port (see `takeProgramChanges`).
    public func serviceAnnouncements() {
        guard let seq else { return }
        if !remembered.isEmpty && !announceSubscribed {
            if subscribeAnnouncements(seq) {
                reconnectPending(seq, onlyClient: nil)
            } else {
                // no announcements to be had: look for missing destinations once a second
                let now = monotonicNow()
                if now - lastPendingScan >= 1, remembered.contains(where: { $0.connected == nil }) {
                    lastPendingScan = now
                    reconnectPending(seq, onlyClient: nil)
                }
            }
        }
        guard announceSubscribed || controlPort >= 0 else { return }
        var budget = 256
        while budget > 0 {
            budget -= 1
            guard sensorwah_seq_input_ready(seq, fd) > 0 else { return }
            var ev: UnsafeMutablePointer<snd_seq_event_t>?
            let r = snd_seq_event_input(seq, &ev)
            if r == -ENOSPC {
                // our FIFO overflowed: announcements were lost, so look at everything
                reconnectPending(seq, onlyClient: nil)
                continue
            }
            guard r >= 0, let ev else { return }
            if sensorwah_seq_ev_type(ev) == Int32(SND_SEQ_EVENT_PGMCHANGE.rawValue) {
                if sensorwah_seq_ev_dest_port(ev) == controlPort {
                    programChangesReceived &+= 1
                    let ch = UInt16(sensorwah_seq_ev_channel(ev) & 0x0F),
                        program = UInt16(sensorwah_seq_ev_value(ev) & 0x7F)
                    programs.push(ch << 8 | program)
                }
                continue
            }
            handleAnnouncement(seq, ev)
        }
    }

    /// Hands every Program Change the control port received (read by `serviceAnnouncements`
    /// on the sending thread) to `body`: channel 0-15, program 0-127. One consumer thread.
    public func takeProgramChanges(_ body: (_ channel: UInt8, _ program: UInt8) -> Void) {
        while let p = programs.pop() { body(UInt8(p >> 8), UInt8(p & 0x7F)) }
    }

    static let announcementTypes = [
        SND_SEQ_EVENT_CLIENT_EXIT, SND_SEQ_EVENT_PORT_START, SND_SEQ_EVENT_PORT_EXIT,
        SND_SEQ_EVENT_PORT_CHANGE, SND_SEQ_EVENT_PORT_UNSUBSCRIBED
    ]

    private func handleAnnouncement(_ seq: SeqHandle, _ ev: UnsafeMutablePointer<snd_seq_event_t>) {
        let type = sensorwah_seq_ev_type(ev)
        switch type {
        case Int32(SND_SEQ_EVENT_PORT_START.rawValue), Int32(SND_SEQ_EVENT_PORT_CHANGE.rawValue):
            let c = sensorwah_seq_ev_addr_client(ev)
            if c != address.client { reconnectPending(seq, onlyClient: c) }
        case Int32(SND_SEQ_EVENT_CLIENT_EXIT.rawValue):
            let c = sensorwah_seq_ev_addr_client(ev)
            for i in remembered.indices where remembered[i].connected?.client == c {
                logger.info(
                    "ALSA: '\(remembered[i].spec.text)' (\(remembered[i].connected!)) went away; will connect again when it is back"
                )
                remembered[i].connected = nil
            }
        case Int32(SND_SEQ_EVENT_PORT_EXIT.rawValue):
            let a = ALSAAddress(client: sensorwah_seq_ev_addr_client(ev), port: sensorwah_seq_ev_addr_port(ev))
            for i in remembered.indices where remembered[i].connected == a {
                logger.info("ALSA: '\(remembered[i].spec.text)' (\(a)) went away; will connect again when it is back")
                remembered[i].connected = nil
            }
        case Int32(SND_SEQ_EVENT_PORT_UNSUBSCRIBED.rawValue):
            let from = ALSAAddress(
                client: sensorwah_seq_ev_connect_sender_client(ev), port: sensorwah_seq_ev_connect_sender_port(ev))
            let to = ALSAAddress(
                client: sensorwah_seq_ev_connect_dest_client(ev), port: sensorwah_seq_ev_connect_dest_port(ev))
            guard from == address else { return }
            for i in remembered.indices where remembered[i].connected == to {
                logger.info("ALSA: disconnected from '\(remembered[i].spec.text)' (\(to)) by another program")
                remembered[i].connected = nil
            }
        default:
            break
        }
    }

    /// Tries each remembered, unconnected spec (only those resolving to `onlyClient`, if given).
    private func reconnectPending(_ seq: SeqHandle, onlyClient: Int32?) {
        for i in remembered.indices where remembered[i].connected == nil {
            let spec = remembered[i].spec
            guard let addr = spec.resolve(seq, excluding: address.client) else { continue }
            if let c = onlyClient, addr.client != c { continue }
            do {
                try connect(seq, to: addr, spec: spec)
                remembered[i].connected = addr
                let name = Sequencer.clientName(seq, addr.client) ?? "?"
                logger.info("ALSA: '\(spec.text)' appeared: connected \(clientName):\(portName) to '\(name)' (\(addr))")
            } catch {
                logger.warning("\(error.description)")
            }
        }
    }

    /// Creates a hidden input port (NO_EXPORT: DAWs and aconnect do not show it) and
    /// subscribes it to System:Announce. Once; false if that is impossible.
    private func subscribeAnnouncements(_ seq: SeqHandle) -> Bool {
        if announceSubscribed { return true }
        if announceFailed { return false }
        // only announcements are of interest to this client
        for t in Self.announcementTypes { snd_seq_set_client_event_filter(seq, Int32(t.rawValue)) }
        let caps = UInt32(SND_SEQ_PORT_CAP_WRITE) | UInt32(SND_SEQ_PORT_CAP_NO_EXPORT)
        let port = snd_seq_create_simple_port(seq, "announce-listener", caps, UInt32(SND_SEQ_PORT_TYPE_APPLICATION))
        guard port >= 0 else {
            announceFailed = true
            logger.warning(
                "ALSA: cannot create a port for announcements (\(alsaMessage(port))); destinations that appear later will not be connected"
            )
            return false
        }
        let r = snd_seq_connect_from(seq, port, Int32(SND_SEQ_CLIENT_SYSTEM), Int32(SND_SEQ_PORT_SYSTEM_ANNOUNCE))
        guard r >= 0 else {
            announceFailed = true
            logger.warning(
                "ALSA: cannot subscribe to System:Announce (\(alsaMessage(r))); destinations that appear later will not be connected"
            )
            return false
        }
        announcePort = port
        announceSubscribed = true
        return true
    }
}
