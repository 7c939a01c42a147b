import Atomics
import Foundation
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahJack
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// `--line-to-audio`: how long a pedal change takes from the network to the wah. The real
/// listener (loopback TCP), the output thread and the wah pedal output run in this process as
/// in `sensorwah listen --wah`; a sender thread writes one line at a time, each moving the pedal,
/// and stamps the moment it hands the line to the socket. A hook at the start of every JACK
/// process callback (`RTHooks.enter`, before the cycle reads the pedal) notes the first cycle
/// that sees the new value. Latency = that cycle's start - the line's send time, in µs and in
/// periods. Lines go out at random moments (5-15 ms apart), so they fall anywhere in a period.
enum LineToAudio {
    /// Shared with the process callback's hook: plain atomics, no references.
    nonisolated(unsafe) static var engine: JackEngine?
    static let sentNanos = UnsafeAtomic<UInt64>.create(0)  // send time of the line in flight (0: none)
    static let seenNanos = UnsafeAtomic<UInt64>.create(0)  // start of the first cycle that saw it
    static let lastBits = UnsafeAtomic<UInt32>.create(0)

    /// Called by JACK's thread at the start of every cycle, before the wah reads the pedal.
    static let hook: @convention(c) () -> Void = {
        guard let e = LineToAudio.engine else { return }
        let bits = e.pedal.bitPattern
        if bits != LineToAudio.lastBits.load(ordering: .relaxed) {
            LineToAudio.lastBits.store(bits, ordering: .relaxed)
            if LineToAudio.sentNanos.load(ordering: .acquiring) != 0 {
                _ = LineToAudio.seenNanos.compareExchange(
                    expected: 0, desired: monotonicNanos(), ordering: .acquiringAndReleasing)
            }
        }
    }
    static let noop: @convention(c) () -> Void = {}

    static func run(server: String?, seconds: Double, channels: Int, logger: Logger) throws {
        // the mapping moves the pedal at once (no smoothing): accel.x -1..1 -> CC 11 -> pedal
        let mapping = try Mapping(parsing: "accel.x cc=11 range=-1..1 bipolar smooth=0")
        var c = JackEngineConfiguration()
        c.serverName = server
        c.channels = channels
        c.initialPedal = 0.5
        c.hooks = RTHooks(enter: hook, exit: noop)
        let jack = JackEngine(configuration: c, logger: logger)
        engine = jack  // before the first cycle: the hook only reads it
        lastBits.store(jack.pedal.bitPattern, ordering: .relaxed)
        let session = JackSession(engine: jack, logger: logger)
        let outputs = session.start(midi: false, wahTarget: mapping.target)
        for _ in 0..<200 where !session.engine.isConnected { usleep(10_000) }
        guard session.engine.isConnected else { throw RuntimeError("no JACK server") }

        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 12)
        let pump = OutputPump(queue: queue, outputs: outputs)
        pump.start()
        var config = ListenerConfiguration()
        config.bindHost = "127.0.0.1"
        config.tcpPort = 0
        config.restAfter = 0
        let listener = Listener(
            configuration: config, mappings: [mapping], queue: queue, wake: pump.wake,
            arriving: pump.arriving, logger: logger)
        try listener.start()
        guard let addr = listener.boundAddresses.first(where: { $0.hasPrefix("tcp://") }),
            let port = Int(addr.split(separator: ":").last ?? "")
        else { throw RuntimeError("listener has no TCP port") }

        let fd = try connectLoopback(port)
        func send(_ s: String) { _ = s.withCString { write(fd, $0, strlen($0)) } }
        send(
            "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)\n"
        )
        usleep(50_000)

        var latencies: [UInt64] = []
        var missed = 0
        let start = monotonicNanos()
        var i = 0
        var rng = SystemRandomNumberGenerator()
        while Double(monotonicNanos() &- start) / 1e9 < seconds && !Shutdown.isRequested {
            i += 1
            let x = i % 2 == 0 ? 0.0 : 0.2
            let line = String(format: "%.6f,%.3f,0.000,-1.000\n", Double(i) * 0.01, x)
            seenNanos.store(0, ordering: .relaxed)
            let t0 = monotonicNanos()
            sentNanos.store(t0, ordering: .releasing)
            send(line)
            let deadline = t0 &+ 100_000_000
            while seenNanos.load(ordering: .acquiring) == 0 && monotonicNanos() < deadline { usleep(200) }
            let seen = seenNanos.load(ordering: .acquiring)
            sentNanos.store(0, ordering: .releasing)
            if seen == 0 { missed += 1 } else { latencies.append(seen &- t0) }
            usleep(UInt32.random(in: 5_000...15_000, using: &rng))
        }
        close(fd)
        _ = listener.stop()
        pump.stop()
        let st = session.engine.stats
        let periodMicros = Double(st.periodFrames) / Double(max(st.sampleRate, 1)) * 1e6
        latencies.sort()
        func q(_ p: Double) -> Double {
            latencies.isEmpty
                ? 0
                : Double(latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)])
                    / 1000
        }
        let within = latencies.filter { Double($0) / 1000 <= periodMicros }.count
        print(
            String(
                format:
                    "line-to-audio, %d frames at %d Hz (period %.0f us): %d pedal changes, p50 %.0f us = %.2f periods, p99 %.0f us = %.2f periods, max %.0f us = %.2f periods; within one period %d of %d; missed %d; xruns %d",
                st.periodFrames, st.sampleRate, periodMicros, latencies.count,
                q(0.5), q(0.5) / periodMicros, q(0.99), q(0.99) / periodMicros, q(1.0), q(1.0) / periodMicros,
                within, latencies.count, missed, st.xruns))
        print(
            String(
                format: "  line read off the socket -> handed to the wah (output thread): p50 %d us, p99 %d us",
                pump.latency.percentile(0.5), pump.latency.percentile(0.99)))
    }
}

/// A TCP connection to the listener on 127.0.0.1 (no Nagle delay): its descriptor.
func connectLoopback(_ port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var sa = sockaddr_in()
    sa.sin_family = sa_family_t(AF_INET)
    sa.sin_port = in_port_t(UInt16(port).bigEndian)
    sa.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &sa) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard rc == 0 else { close(fd); throw RuntimeError("cannot connect to the listener on port \(port)") }
    return fd
}

struct RuntimeError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
