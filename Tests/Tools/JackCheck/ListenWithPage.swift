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

/// `--listen-web`: instead of the synthetic sweep, the real listener with the `--web` port and
/// its control page feeds the engine's outputs (as in `sensorwah listen --wah --web`), and a
/// sender thread in this process streams a phone's lines over loopback TCP that sweep the pedal
/// (accel.x, a triangle at 200 lines a second). The test opens the control page in a browser and
/// edits the mapping through it while the audit counts what the JACK callback does. Prints
/// `listen-web: tcp PORT https PORT token TOKEN` on stderr once the ports are open.
enum ListenWithPage {
    static func run(outputs: [any EventOutput], mapping: Mapping, seconds: Double, logger: Logger) throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 14)
        let pump = OutputPump(queue: queue, outputs: outputs)
        pump.start()
        var config = ListenerConfiguration()
        config.bindHost = "127.0.0.1"
        config.tcpPort = 0
        config.webPort = 0
        config.restAfter = 0
        config.webCertificates = try WebCertificates.load(names: ["localhost", "127.0.0.1"])
        config.control = ControlHooks(
            token: try ControlToken.load(), parse: { try Mapping(parsing: $0) },
            outputLines: Self.lines(pump))
        config.mappingTexts = [mapping.syntax]
        config.live = LiveControl()  // the page's solo reaches the pipeline, as in listen
        let listener = Listener(
            configuration: config, mappings: [mapping], queue: queue, wake: pump.wake,
            arriving: pump.arriving, logger: logger)
        try listener.start()
        func port(_ scheme: String) -> Int {
            listener.boundAddresses.first { $0.hasPrefix(scheme + "://") }.flatMap {
                Int($0.split(separator: ":").last ?? "")
            } ?? 0
        }
        let tcp = port("tcp")
        FileHandle.standardError.write(
            Data("listen-web: tcp \(tcp) https \(port("https")) token \(config.control!.token)\n".utf8))

        let fd = try connectLoopback(tcp)
        func send(_ s: String) { _ = s.withCString { write(fd, $0, strlen($0)) } }
        send(
            "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)\n"
        )
        let start = monotonicSeconds()
        var i = 0
        while !Shutdown.isRequested {
            let t = Double(i) / 200
            if t >= seconds { break }
            sleep(until: start + t)
            let phase = (t / 2).truncatingRemainder(dividingBy: 1)
            let x = phase < 0.5 ? -1 + 4 * phase : 3 - 4 * phase  // -1 .. 1 .. -1 every 2 s
            send(String(format: "%.4f,%.4f,0.0000,-1.0000\n", t, x))
            i += 1
        }
        close(fd)
        _ = listener.stop()
        pump.stop()
    }

    static func lines(_ pump: OutputPump) -> () -> [String] {
        { ["MIDI: \(pump.deliveredSoFar.load(ordering: .relaxed)) messages"] }
    }
}
