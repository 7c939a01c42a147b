import SensorWahCore
#if canImport(Glibc)
    import Glibc
#endif

/// `--osc-out-sources`: each frame's derived quantities (`OSCSourceEncoder`'s addresses) as one
/// bundle to every UDP `--osc-out` target, sent from the thread the frames pass on (the replay's,
/// or the listener's network thread through its frame tap) with its own socket and buffer, one
/// non-blocking `sendto` per target; nothing is allocated per frame once the buffer has grown.
public final class OSCSourceOutput {
    private var encoder = OSCSourceEncoder()
    private let fd: Int32
    private var targets: [sockaddr_in]
    private var packet: [UInt8] = []
    public private(set) var sent = 0
    public private(set) var failed = 0

    /// `targets`: numeric IPv4 addresses and ports.
    public init(targets: [(host: String, port: Int)]) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else {
            throw RTPMIDIError("OSC out: cannot make a UDP socket: \(String(cString: strerror(errno)))")
        }
        self.targets = []
        for t in targets {
            guard let a = ipv4SocketAddress(host: t.host, port: t.port) else {
                Glibc.close(fd)
                throw RTPMIDIError("OSC out: '\(t.host)' is not an IPv4 address")
            }
            self.targets.append(a)
        }
        packet.reserveCapacity(512)
    }

    public func send(_ frame: borrowing SensorFrame, sender: String) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let tag = OSCOut.timetag(unixSeconds: Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9)
        guard encoder.encode(frame, sender: sender, timetag: tag, into: &packet) else { return }
        packet.withUnsafeBytes { b in
            for i in targets.indices {
                let n = withUnsafePointer(to: &targets[i]) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(
                            fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0,
                            socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                if n < 0 { failed += 1 } else { sent += 1 }
            }
        }
    }

    deinit { Glibc.close(fd) }
}
