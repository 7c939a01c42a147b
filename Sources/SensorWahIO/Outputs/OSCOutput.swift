import Logging
import NIOCore
import NIOPosix
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// `--osc-out`: every mapped event as OSC (`OSCOut`'s addresses) to each target: over UDP with
/// one non-blocking `sendto` per target, or over TCP with SLIP framing (SwiftNIO, reconnecting
/// every second while the peer is away; writes are queued to its event loop, never waited for).
/// Events sent between two flushes go out together as one bundle time-tagged with their moment
/// (a sender's playout sets it; otherwise the flush's), in the wall clock; a single event as a
/// plain message. With `ahead` (`--osc-out-ahead`) every scheduled event goes out as soon as it
/// is made, in a bundle time-tagged with the moment it is due, for a receiver that plays
/// bundles at their time (SuperCollider, liblo's servers) and so evens out this network too.
public final class OSCOutput: EventOutput {
    public struct Target: Sendable, CustomStringConvertible {
        public var host: String  // numeric IPv4 for UDP; a name or address for TCP
        public var port: Int
        public var tcp: Bool
        public init(host: String, port: Int, tcp: Bool) { self.host = host; self.port = port; self.tcp = tcp }
        public var description: String { "\(tcp ? "tcp:" : "")\(host):\(port)" }
    }

    private let raw: Bool
    private let logger: Logger
    private var udp: [(target: Target, address: sockaddr_in)] = []
    private let fd: Int32
    private var messages: [[UInt8]] = []
    private var dues: [UInt64] = []  // each message's moment (CLOCK_MONOTONIC ns; 0: none)
    private let ahead: Bool
    private var packet: [UInt8] = []
    private var scratch: [UInt8] = []
    private var tcp: [TCPLink] = []
    private var group: MultiThreadedEventLoopGroup?
    public private(set) var sent = 0
    public private(set) var failed = 0

    public var name: String { "osc" }

    public init(targets: [Target], raw: Bool, ahead: Bool = false, logger: Logger) throws {
        self.raw = raw
        self.ahead = ahead
        self.logger = logger
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else {
            throw RTPMIDIError("OSC out: cannot make a UDP socket: \(String(cString: strerror(errno)))")
        }
        for t in targets where !t.tcp {
            guard let a = ipv4SocketAddress(host: t.host, port: t.port) else {
                Glibc.close(fd)
                throw RTPMIDIError("OSC out: '\(t.host)' is not an IPv4 address")
            }
            udp.append((t, a))
        }
        let tcpTargets = targets.filter(\.tcp)
        if !tcpTargets.isEmpty {
            let g = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            group = g
            tcp = tcpTargets.map { TCPLink(target: $0, group: g, logger: logger) }
            for l in tcp { l.connect() }
        }
        logger.info(
            "OSC out: to \(targets.map(\.description).joined(separator: ", "))\(raw ? " (raw MIDI values)" : "")\(ahead ? ", scheduled events ahead with their moment" : "")"
        )
        messages.reserveCapacity(64)
        dues.reserveCapacity(64)
    }

    public var takesAhead: Bool { ahead }

    public func send(_ e: MIDIEvent) { add(e, due: 0) }
    public func send(_ e: MIDIEvent, due: UInt64) { add(e, due: due) }

    private func add(_ e: MIDIEvent, due: UInt64) {
        scratch.removeAll(keepingCapacity: true)
        OSCOut.message(for: e, raw: raw, into: &scratch)
        messages.append(scratch)
        dues.append(due)
    }

    /// Largest datagram: events due together beyond it go out in further bundles.
    static let maxPacket = 1400

    public func flush() {
        guard !messages.isEmpty else { return }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let wall = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9, mono = monotonicNanos()
        func tag(_ due: UInt64) -> UInt64 {
            OSCOut.timetag(unixSeconds: due == 0 ? wall : wall + (Double(due) - Double(mono)) * 1e-9)
        }
        var first = 0
        while first < messages.count {
            // ahead, a bundle holds the messages of one moment (each is played at its own)
            var last = first + 1, size = 16 + 4 + messages[first].count
            while last < messages.count && size + 4 + messages[last].count <= Self.maxPacket
                && (!ahead || dues[last] == dues[first])
            {
                size += 4 + messages[last].count
                last += 1
            }
            packet.removeAll(keepingCapacity: true)
            if last - first == 1 && !(ahead && dues[first] != 0) {
                packet += messages[first]
            } else {
                OSCOut.bundle(Array(messages[first..<last]), timetag: tag(dues[first]), into: &packet)
            }
            emit()
            first = last
        }
        messages.removeAll(keepingCapacity: true)
        dues.removeAll(keepingCapacity: true)
    }

    private func emit() {
        packet.withUnsafeBytes { b in
            for i in udp.indices {
                let n = withUnsafePointer(to: &udp[i].address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(
                            fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0,
                            socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                if n < 0 { failed += 1 } else { sent += 1 }
            }
        }
        if !tcp.isEmpty {
            var framed: [UInt8] = []
            OSCOut.slip(packet, into: &framed)
            for l in tcp { if l.write(framed) { sent += 1 } else { failed += 1 } }
        }
    }

    public func close() {
        flush()
        for l in tcp { l.close() }
        try? group?.syncShutdownGracefully()
        Glibc.close(fd)
        logger.info(
            "OSC out: \(sent) packets sent\(failed > 0 ? ", \(failed) not sent (a target away or its buffer full)" : "")"
        )
    }
}

/// One OSC-over-TCP target: connects, reconnects every second while away.
final class TCPLink: @unchecked Sendable {
    let target: OSCOutput.Target
    let group: EventLoopGroup
    let logger: Logger
    private let loop: EventLoop
    private var channel: Channel?  // on `loop`
    private var closing = false  // on `loop`
    /// Frames written before the first connection is up (bounded), sent once it is.
    private var backlog: [[UInt8]] = []  // on `loop`
    private var backlogBytes = 0
    static let maxBacklog = 64 << 10
    private var warned = false

    init(target: OSCOutput.Target, group: EventLoopGroup, logger: Logger) {
        self.target = target; self.group = group; self.logger = logger
        loop = group.next()
    }

    func connect() {
        loop.execute { [self] in
            guard !closing else { return }
            ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(2))
                .connect(host: target.host, port: target.port)
                .whenComplete { [self] r in
                    switch r {
                    case .success(let ch):
                        channel = ch
                        warned = false
                        for f in backlog {
                            var b = ch.allocator.buffer(capacity: f.count)
                            b.writeBytes(f)
                            ch.write(b, promise: nil)
                        }
                        ch.flush()
                        backlog.removeAll()
                        backlogBytes = 0
                        logger.info("OSC out: connected to \(target)")
                        ch.closeFuture.whenComplete { [self] _ in
                            channel = nil
                            guard !closing else { return }
                            logger.info("OSC out: \(target) closed the connection; reconnecting")
                            loop.scheduleTask(in: .seconds(1)) { self.connect() }
                        }
                    case .failure(let e):
                        if !warned { logger.warning("OSC out: \(target): \(e); retrying every second"); warned = true }
                        loop.scheduleTask(in: .seconds(1)) { self.connect() }
                    }
                }
        }
    }

    /// Queues the bytes on the connection's loop (kept, up to 64 KB, while not yet connected).
    func write(_ bytes: [UInt8]) -> Bool {
        loop.execute { [self] in
            guard let ch = channel else {
                if backlogBytes + bytes.count <= Self.maxBacklog { backlog.append(bytes); backlogBytes += bytes.count }
                return
            }
            var b = ch.allocator.buffer(capacity: bytes.count)
            b.writeBytes(bytes)
            ch.writeAndFlush(b, promise: nil)
        }
        return true
    }

    func close() {
        try? loop.submit { [self] in
            closing = true
            return channel
        }.flatMap { (ch: Channel?) -> EventLoopFuture<Void> in
            ch?.close() ?? self.loop.makeSucceededVoidFuture()
        }.wait()
    }
}
