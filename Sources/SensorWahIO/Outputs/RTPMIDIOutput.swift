import Atomics
import Logging
import NIOCore
import NIOPosix
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// Something that announces the session on the local network (mDNS / DNS-SD through Avahi),
/// given by the command's wiring; nil runs without announcing.
public protocol RTPServiceAnnouncer: AnyObject {
    /// Publish `name` as `_apple-midi._udp` on `port`; returns false (after logging one line
    /// saying why) when it cannot.
    func announce(name: String, port: Int) -> Bool
    func withdraw()
}

/// `--midi rtp`: an RTP-MIDI session (Apple's network MIDI) that Macs, iPads and Linux peers
/// join, or that invites them (`--rtp-connect`). The session protocol (invitations, clock sync,
/// feedback, timeouts) runs on its own SwiftNIO event loop; the events are packed into RTP
/// packets with the recovery journal on the output thread at each flush and sent with one
/// non-blocking `sendto` per participant from a duplicate of the data socket.
public final class RTPMIDIOutput: EventOutput {
    public struct Configuration: Sendable {
        public var name: String
        /// The control port; the data port is the next one.
        public var port = 5004
        public var bindHost = "0.0.0.0"
        /// Sessions to invite: each a numeric IPv4 address (resolved by the caller) and control port.
        public var connect: [RTPEndpoint] = []
        public var timeout = 60.0
        public var journal = true
        /// Wait up to this long (seconds) for a first participant before the run starts.
        public var waitForParticipant = 0.0
        public init(name: String) { self.name = name }
    }

    /// A change of participants, from the session's loop to the output thread.
    struct Update {
        enum Kind { case join, leave, confirm }
        var kind: Kind
        var ssrc: UInt32
        var address: sockaddr_in
        var seq: UInt16
    }

    struct Receiver {
        var ssrc: UInt32
        var address: sockaddr_in
        /// The packet its history starts from: the one after its confirmed packet, or the
        /// first it could receive.
        var checkpoint: UInt32
    }

    public let configuration: Configuration
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private var controlChannel: Channel?
    private var dataChannel: Channel?
    private let loop: EventLoop
    private var session: AppleMIDISession  // touched on `loop` only
    private var ticker: RepeatedTask?
    private let announcer: RTPServiceAnnouncer?
    private let startNanos: UInt64

    // output thread only
    private var sender: RTPMIDISender
    private var receivers: [Receiver] = []
    private var packet: [UInt8] = []
    private let sendFD: Int32
    private var closing = false  // on `loop`
    private var ticks = 0  // on `loop`
    private let updates = SPSCQueue<Update>(capacity: 256)
    public private(set) var sendErrors = 0

    /// The participants now (for logs and the live view); updated on the session's loop.
    public let participantCount = ManagedAtomic<Int>(0)

    public var name: String { "rtp" }

    public init(configuration c: Configuration, announcer: RTPServiceAnnouncer? = nil, logger: Logger) throws {
        configuration = c
        self.logger = logger
        self.announcer = announcer
        startNanos = monotonicNanos()
        var seed = SystemRandomNumberGenerator()
        let ssrc = UInt32.random(in: 1...UInt32.max, using: &seed)
        sender = RTPMIDISender(ssrc: ssrc, firstSeq: UInt16.random(in: 0...UInt16.max, using: &seed))
        sender.journalling = c.journal
        packet.reserveCapacity(2048)
        var settings = AppleMIDISession.Settings(name: c.name, ssrc: ssrc)
        settings.timeout = c.timeout
        session = AppleMIDISession(settings: settings)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()

        let controlFD = try Self.udpSocket(host: c.bindHost, port: c.port)
        let dataFD: Int32
        do { dataFD = try Self.udpSocket(host: c.bindHost, port: c.port + 1) } catch {
            Glibc.close(controlFD); throw error
        }
        sendFD = dup(dataFD)
        do {
            controlChannel = try bootstrap(.control).withBoundSocket(controlFD).wait()
            dataChannel = try bootstrap(.data).withBoundSocket(dataFD).wait()
        } catch {
            try? controlChannel?.close().wait()
            try? group.syncShutdownGracefully()
            Glibc.close(sendFD)
            throw RTPMIDIError("RTP-MIDI: cannot listen on UDP \(c.port) and \(c.port + 1): \(error)")
        }
        let start = startNanos
        try loop.submit { [self] in
            let now = Double(monotonicNanos() &- start) * 1e-9
            for t in c.connect { session.connect(t, now: now) }
            perform(session.tick(now: now))
            publish()
            ticker = loop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) {
                [self] _ in
                perform(session.tick(now: Double(monotonicNanos() &- start) * 1e-9))
                ticks &+= 1
                if ticks % 50 == 0 { publish() }  // the round trips, every 5 s
            }
        }.wait()
        // said once `sensorwah ports` can list it (publish above)
        logger.info(
            "RTP-MIDI: session '\(c.name)' on UDP \(c.port) (control) and \(c.port + 1) (data)\(c.journal ? ", recovery journal on" : "")"
        )
        if let announcer {
            if announcer.announce(name: c.name, port: c.port) {
                logger.info("RTP-MIDI: announced as '\(c.name)' (_apple-midi._udp) over mDNS")
            }
        }
        if c.waitForParticipant > 0 {
            // every session we invite, or a first one that invites us
            let wanted = max(1, c.connect.count)
            let deadline = monotonicSeconds() + c.waitForParticipant
            while participantCount.load(ordering: .relaxed) < wanted && monotonicSeconds() < deadline
                && !Shutdown.isRequested
            {
                usleep(10_000)
            }
            let joined = participantCount.load(ordering: .relaxed)
            if joined < wanted {
                logger.warning(
                    "RTP-MIDI: \(joined) of \(wanted) participant\(wanted == 1 ? "" : "s") joined in \(c.waitForParticipant) s; starting anyway"
                )
            }
        }
    }

    private func bootstrap(_ socket: AppleMIDISession.Socket) -> DatagramBootstrap {
        DatagramBootstrap(group: group).channelInitializer { [self] channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(SessionHandler(output: self, socket: socket))
            }
        }
    }

    /// A bound, non-blocking IPv4 UDP socket (its own so the output thread can send on a duplicate).
    static func udpSocket(host: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else {
            throw RTPMIDIError("RTP-MIDI: cannot make a UDP socket: \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        // no IP_RECVERR: with it, an ICMP host unreachable (a peer gone from the Wi-Fi) sets
        // the socket's error, and SwiftNIO 2.101 closes a datagram channel on EHOSTUNREACH (and
        // asserts in debug builds): the whole session would stop. A vanished peer is dropped by
        // its timeout and its unanswered clock syncs instead.
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else {
            Glibc.close(fd)
            throw RTPMIDIError("RTP-MIDI: '\(host)' is not an IPv4 address to listen on")
        }
        let r = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if r != 0 {
            let e = errno
            Glibc.close(fd)
            throw RTPMIDIError(
                "RTP-MIDI: cannot listen on UDP \(host):\(port): \(String(cString: strerror(e)))"
                    + (e == EADDRINUSE ? " (another RTP-MIDI session runs there? choose another with --rtp-port)" : ""))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    static func socketAddress(_ e: RTPEndpoint) -> sockaddr_in? { ipv4SocketAddress(host: e.host, port: e.port) }

    // MARK: the session's loop

    fileprivate func received(_ bytes: [UInt8], from: SocketAddress, via socket: AppleMIDISession.Socket) {
        guard let host = from.ipAddress, let port = from.port else { return }
        let now = Double(monotonicNanos() &- startNanos) * 1e-9
        perform(session.receive(bytes, from: RTPEndpoint(host: host, port: port), via: socket, now: now))
    }

    private func perform(_ actions: [AppleMIDISession.Action]) {
        for a in actions {
            switch a {
            case .send(let bytes, let to, let via):
                guard let ch = via == .control ? controlChannel : dataChannel,
                    let addr = try? SocketAddress(ipAddress: to.host, port: to.port)
                else { continue }
                var buf = ch.allocator.buffer(capacity: bytes.count)
                buf.writeBytes(bytes)
                ch.writeAndFlush(AddressedEnvelope(remoteAddress: addr, data: buf), promise: nil)
            case .joined(let p):
                if let addr = Self.socketAddress(p.data) {
                    updates.push(Update(kind: .join, ssrc: p.ssrc, address: addr, seq: 0))
                }
                participantCount.store(session.participants.count, ordering: .relaxed)
                publish()
                logger.notice(
                    "RTP-MIDI: '\(p.name)' joined (\(p.control.host), data port \(p.data.port)); \(session.participants.count) participant\(session.participants.count == 1 ? "" : "s")"
                )
            case .left(let p, _):
                updates.push(Update(kind: .leave, ssrc: p.ssrc, address: sockaddr_in(), seq: 0))
                participantCount.store(session.participants.count, ordering: .relaxed)
                publish()
            case .confirmed(let ssrc, let seq):
                updates.push(Update(kind: .confirm, ssrc: ssrc, address: sockaddr_in(), seq: seq))
            case .log(let m):
                logger.info("\(m)")
            }
        }
    }

    /// The session and its participants for `sensorwah ports` (on the loop).
    private func publish() {
        guard !closing else { return }
        RTPSessionRegistry.write(port: configuration.port, lines: Self.lines(configuration, session.participants))
    }

    /// The participants as the session sees them now (name, address, round trip), for logs.
    public func participants() -> [AppleMIDISession.Participant] {
        (try? loop.submit { [self] in session.participants }.wait()) ?? []
    }

    /// The live view's lines: the session and each participant with its clock sync's round trip.
    public func monitorLines() -> [String] { Self.lines(configuration, participants()) }

    static func lines(_ configuration: Configuration, _ ps: [AppleMIDISession.Participant]) -> [String] {
        var lines = [
            "RTP-MIDI '\(configuration.name)' on UDP \(configuration.port): \(ps.isEmpty ? "no participants yet" : "\(ps.count) participant\(ps.count == 1 ? "" : "s")")"
        ]
        for p in ps {
            let rtt = p.roundTrip.map { ", clock sync round trip \(NumberText.printf($0 * 1000, 1)) ms" } ?? ""
            // a name from the network: no control characters into a terminal or the registry
            let name = String(
                String.UnicodeScalarView(p.name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
            lines.append("  '\(name)' \(p.control.host) (\(p.invitedByUs ? "invited by us" : "joined us")\(rtt))")
        }
        return lines
    }

    // MARK: the output thread

    @inline(__always)
    private func tick(at nanos: UInt64 = monotonicNanos()) -> UInt32 {
        UInt32(truncatingIfNeeded: (nanos &- startNanos) / 100_000)
    }

    public func send(_ e: MIDIEvent) { sender.add(e, tick: tick()) }
    /// A scheduled message is stamped with its moment, so the packets' timestamps and delta
    /// times keep the readings' spacing for a receiver that plays out by them.
    public func send(_ e: MIDIEvent, due: UInt64) { sender.add(e, tick: tick(at: due)) }

    private func takeUpdates() {
        while let u = updates.pop() {
            switch u.kind {
            case .join:
                receivers.removeAll { $0.ssrc == u.ssrc }
                receivers.append(Receiver(ssrc: u.ssrc, address: u.address, checkpoint: sender.nextSeq))
            case .leave:
                receivers.removeAll { $0.ssrc == u.ssrc }
            case .confirm:
                if let i = receivers.firstIndex(where: { $0.ssrc == u.ssrc }) {
                    let ext = RTPMIDI.extend(u.seq, near: sender.nextSeq &- 1)
                    // the journal must still cover the packets after the confirmed one; never move back
                    let next = ext &+ 1
                    if Int32(bitPattern: next &- receivers[i].checkpoint) > 0
                        && Int32(bitPattern: sender.nextSeq &- next) >= 0
                    {
                        receivers[i].checkpoint = next
                    }
                }
            }
        }
    }

    public func flush() {
        takeUpdates()
        guard sender.hasPending else { return }
        guard !receivers.isEmpty else { sender.discardPending(); return }
        // the oldest history some participant may still need
        var checkpoint = receivers[0].checkpoint
        for r in receivers.dropFirst() where Int32(bitPattern: r.checkpoint &- checkpoint) < 0 {
            checkpoint = r.checkpoint
        }
        let fd = sendFD
        sender.makePackets(checkpoint: checkpoint, into: &packet) { p in
            p.withUnsafeBytes { b in
                for i in receivers.indices {
                    let n = withUnsafePointer(to: &receivers[i].address) {
                        $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                            sendto(
                                fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0,
                                socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                    if n < 0 { sendErrors += 1 }
                }
            }
        }
    }

    /// The number of RTP packets sent (each to every participant).
    public var packetsSent: Int { sender.packetsSent }

    public func close() {
        flush()
        if let ticker { ticker.cancel() }
        let byes: [AppleMIDISession.Participant] =
            (try? loop.submit { [self] () -> [AppleMIDISession.Participant] in
                let ps = session.participants
                perform(session.close())
                return ps
            }.wait()) ?? []
        announcer?.withdraw()
        try? loop.submit { [self] in closing = true }.wait()
        RTPSessionRegistry.remove(port: configuration.port)
        try? controlChannel?.close().wait()
        try? dataChannel?.close().wait()
        try? group.syncShutdownGracefully()
        Glibc.close(sendFD)
        logger.info(
            "RTP-MIDI: \(sender.packetsSent) packets sent; session closed\(byes.isEmpty ? "" : ", goodbye to " + byes.map { "'\($0.name)'" }.joined(separator: ", "))\(sendErrors > 0 ? "; \(sendErrors) sends failed" : "")"
        )
    }
}

/// A numeric IPv4 address and port as a socket address (nil when `host` is not one).
func ipv4SocketAddress(host: String, port: Int) -> sockaddr_in? {
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
    guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else { return nil }
    return a
}

public struct RTPMIDIError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Datagrams in on one of the session's sockets, handed to the session on its loop.
private final class SessionHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let output: RTPMIDIOutput
    let socket: AppleMIDISession.Socket
    init(output: RTPMIDIOutput, socket: AppleMIDISession.Socket) { self.output = output; self.socket = socket }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let env = unwrapInboundIn(data)
        output.received(Array(env.data.readableBytesView), from: env.remoteAddress, via: socket)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // an error NIO keeps the socket open on (ECONNREFUSED, ENOMEM): the session's
        // timeouts and unanswered clock syncs drop a participant that is gone
    }
}
