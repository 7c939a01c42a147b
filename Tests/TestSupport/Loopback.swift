import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The tests' sockets on the loopback: free ports, whether a peer has bound its port yet, and a
/// client (TCP or UDP) to 127.0.0.1 that sends and receives with a deadline.
public enum Loopback {
    public static let host = "127.0.0.1"

    public enum Transport: Sendable {
        case tcp, udp
        var type: Int32 { Int32(self == .tcp ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A port free on 127.0.0.1 now: the one the kernel gives a socket bound to port 0, noted,
    /// and the socket closed (so another process may still take it before the test does).
    public static func freePort(_ transport: Transport = .tcp) -> Int {
        let fd = socket(AF_INET, transport.type, 0)
        defer { Glibc.close(fd) }
        guard bind(fd, port: 0) == 0 else { return 0 }
        return localPort(fd)
    }

    /// An even port P with P and P + 1 both free for UDP (RTP-MIDI's control and data ports, an
    /// OSC peer), held together while looking so the two are checked at once.
    public static func freeUDPPortPair() -> Int {
        for _ in 0..<200 {
            let first = socket(AF_INET, Transport.udp.type, 0)
            defer { Glibc.close(first) }
            guard bind(first, port: 0) == 0 else { continue }
            let p = localPort(first)
            let other = p % 2 == 0 ? p + 1 : p - 1
            guard other > 1024, other < 65536 else { continue }
            let second = socket(AF_INET, Transport.udp.type, 0)
            defer { Glibc.close(second) }
            if bind(second, port: other) == 0 { return min(p, other) }
        }
        return 23_456
    }

    /// Whether a socket is bound to `port` now (a TCP one listening), on any local address: read
    /// from /proc/net, never by binding, so looking cannot take the port from the process about
    /// to bind it.
    public static func isBound(_ port: Int, _ transport: Transport) -> Bool {
        let files = transport == .tcp ? ["/proc/net/tcp", "/proc/net/tcp6"] : ["/proc/net/udp", "/proc/net/udp6"]
        let hexPort = String(format: ":%04X", port)
        for file in files {
            guard let text = procText(file) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")
                guard f.count > 3, f[1].hasSuffix(hexPort) else { continue }
                if transport == .udp || f[3] == "0A" { return true }  // 0A: TCP_LISTEN
            }
        }
        return false
    }

    /// Bytes waiting to be read by the process whose UDP socket is bound to `port` (nil when no
    /// socket is): /proc/net/udp's rx_queue.
    public static func unreadUDP(_ port: Int) -> Int? {
        let hexPort = String(format: ":%04X", port)
        var total: Int?
        for file in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = procText(file) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")  // sl local rem st tx_queue:rx_queue ...
                guard f.count > 4, f[1].hasSuffix(hexPort),
                    let rx = f[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { continue }
                total = (total ?? 0) + rx
            }
        }
        return total
    }

    /// Waits until the process bound to UDP `port` has read every datagram sent to it so far.
    public static func awaitUDPRead(_ port: Int, timeout: Double = 10) throws {
        try waitUntil(
            "the process on UDP port \(port) to read every datagram", timeout: timeout, poll: 0.005,
            observe: { unreadUDP(port) }
        ) { $0 == 0 }
    }

    /// A socket to 127.0.0.1:`port`, connected (for UDP too, so `send` needs no address), from
    /// the loopback address `source` when given (127.0.0.2 is a sender of its own). TCP sends at
    /// once (TCP_NODELAY: pieces stay pieces); a send blocks at most 5 s.
    public final class Client: @unchecked Sendable {
        public let fd: Int32
        public let transport: Transport
        private var closed = false

        public init(_ transport: Transport, to port: Int, from source: String? = nil) throws {
            self.transport = transport
            fd = socket(AF_INET, transport.type, 0)
            guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                local.sin_addr.s_addr = inet_addr(source)
                let r = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard r == 0 else {
                    let e = errno; Glibc.close(fd)
                    throw Failure(description: "bind to \(source): \(String(cString: strerror(e)))")
                }
            }
            var addr = Loopback.address(port)
            let r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard r == 0 else {
                let e = errno; Glibc.close(fd)
                throw Failure(
                    description:
                        "connect to \(Loopback.host):\(port)\(source.map { " from \($0)" } ?? ""): \(String(cString: strerror(e)))"
                )
            }
            if transport == .tcp {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close() }

        /// All of `bytes` (one datagram for UDP), or false once the peer closed or refused.
        @discardableResult
        public func send(_ bytes: [UInt8]) -> Bool {
            var off = 0
            repeat {
                let n = bytes.withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress.map { $0 + off }, bytes.count - off, Int32(MSG_NOSIGNAL))
                }
                if n < 0 { return false }
                off += n
            } while off < bytes.count && transport == .tcp
            return true
        }

        @discardableResult
        public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

        /// What arrives within `seconds`: up to `max` bytes (one datagram for UDP), [] at the
        /// end of the stream, nil when nothing came in time or the connection was reset.
        public func receive(within seconds: Double, max: Int = 65_536) -> [UInt8]? {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32((seconds * 1000).rounded(.up))
            guard Glibc.poll(&p, 1, ms) > 0 else { return nil }
            var buf = [UInt8](repeating: 0, count: max)
            let n = recv(fd, &buf, max, Int32(MSG_DONTWAIT))
            return n >= 0 ? Array(buf[0..<n]) : nil
        }

        /// Reads until the peer closes the connection (end of file or a reset) or `seconds` pass:
        /// whether it closed, and the text that arrived meanwhile.
        public func readUntilClosed(within seconds: Double) -> (closed: Bool, text: String) {
            let deadline = Wait.now() + seconds
            var got = [UInt8]()
            while true {
                let left = deadline - Wait.now()
                if left <= 0 { return (false, String(decoding: got, as: UTF8.self)) }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&p, 1, Int32((left * 1000).rounded(.up))) > 0 else { continue }
                var buf = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &buf, buf.count, Int32(MSG_DONTWAIT))
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    return (true, String(decoding: got, as: UTF8.self))
                }
                if n > 0 { got += buf[0..<n] }
            }
        }

        /// Whether the peer process has read every byte sent so far (TCP): nothing waits in this
        /// socket's send queue nor in the peer socket's receive queue (/proc/net/tcp).
        public var readByPeer: Bool {
            guard transport == .tcp else { return true }
            let q = Loopback.queues(local: Loopback.localPort(fd), remote: Loopback.remotePort(fd))
            return q.mine?.tx == 0 && q.theirs?.rx == 0
        }

        /// Waits until the peer process has read every byte sent so far (`readByPeer`).
        public func awaitReadByPeer(timeout: Double = 10) throws {
            let local = Loopback.localPort(fd), remote = Loopback.remotePort(fd)
            try waitUntil(
                "the peer on port \(remote) to read all that was sent", timeout: timeout, poll: 0.005,
                state: {
                    "bytes queued (tx:rx, this end's and the peer's, /proc/net/tcp): \(Loopback.queues(local: local, remote: remote))"
                }
            ) { readByPeer }
        }

        /// Closes this end once the peer has read everything, and waits until the peer process
        /// has closed its end too (this socket's TIME_WAIT in /proc/net/tcp): the peer has seen
        /// the whole stream and its end.
        public func closeAndAwaitPeerClose(timeout: Double = 10) throws {
            guard transport == .tcp, !closed else { return close() }
            try awaitReadByPeer(timeout: timeout)
            let local = Loopback.localPort(fd), remote = Loopback.remotePort(fd)
            close()
            try waitUntil(
                "the peer on port \(remote) to close its end", timeout: timeout, poll: 0.005,
                observe: { Loopback.tcpState(local: local, remote: remote) }
            ) { (state: Int?) -> Bool in
                guard let state else { return true }
                return state == 0x06 || state == 0x07  // TIME_WAIT, CLOSE
            }
        }

        public func close() {
            guard !closed else { return }
            closed = true
            Glibc.close(fd)
        }
    }

    /// A /proc file's text (they report size 0: read to the end, not by size).
    static func procText(_ path: String) -> String? {
        FileHandle(forReadingAtPath: path).map { h in
            defer { try? h.close() }
            return String(decoding: h.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    static func address(_ port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = inet_addr(host)
        return a
    }

    static func bind(_ fd: Int32, port: Int) -> Int32 {
        var a = address(port)
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// The send and receive queues (bytes) of the TCP connection between local ports `local` and
    /// `remote`, at this end and at the peer's.
    static func queues(local: Int, remote: Int) -> (mine: (tx: Int, rx: Int)?, theirs: (tx: Int, rx: Int)?) {
        var mine: (tx: Int, rx: Int)?, theirs: (tx: Int, rx: Int)?
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = procText(file) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")  // sl local rem st tx_queue:rx_queue ...
                guard f.count > 4, let l = f[1].split(separator: ":").last, let r = f[2].split(separator: ":").last,
                    let lp = Int(l, radix: 16), let rp = Int(r, radix: 16)
                else { continue }
                let q = f[4].split(separator: ":").compactMap { Int($0, radix: 16) }
                guard q.count == 2 else { continue }
                if lp == local && rp == remote { mine = (q[0], q[1]) }
                if lp == remote && rp == local { theirs = (q[0], q[1]) }
            }
        }
        return (mine, theirs)
    }

    /// The TCP state (/proc/net/tcp's st: 0x06 TIME_WAIT, 0x07 CLOSE ...) of the socket from
    /// local port `local` to `remote`, nil when there is none.
    static func tcpState(local: Int, remote: Int) -> Int? {
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = procText(file) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")
                guard f.count > 3, let l = f[1].split(separator: ":").last, let r = f[2].split(separator: ":").last,
                    Int(l, radix: 16) == local, Int(r, radix: 16) == remote
                else { continue }
                return Int(f[3], radix: 16)
            }
        }
        return nil
    }

    static func remotePort(_ fd: Int32) -> Int {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: a.sin_port))
    }

    static func localPort(_ fd: Int32) -> Int {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: a.sin_port))
    }
}
