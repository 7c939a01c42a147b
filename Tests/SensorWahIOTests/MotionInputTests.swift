import Foundation
import Logging
import XCTest
@testable import SensorWahCore
@testable import SensorWahEngine
@testable import SensorWahIO
import SensorWahRuntime
import TestSupport

/// The motion stage is per sender: two phones held differently, streaming at once to one
/// listener, each get their own tilt. And the re-zero request reaches the inputs.
final class MotionInputTests: XCTestCase {
    static let header =
        "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G),gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),gyroRotationY(rad/s),gyroRotationZ(rad/s)"

    static func lines(x: Double, n: Int) -> [String] {
        let z = -(1 - x * x).squareRoot()
        return [header]
            + (0..<n).map { i in
                let t = 500 + Double(i) * 0.01
                return "2024-01-01T00:00:00.000Z,\(t),\(x),0,\(z),\(t),0.001,-0.002,0.001"
            }
    }

    func testEachSenderHasItsOwnTilt() throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 16)
        var c = ListenerConfiguration()
        c.bindHost = "127.0.0.1"; c.tcpPort = 0; c.restAfter = 0
        var logger = Logger(label: "test"); logger.logLevel = .warning
        let listener = Listener(
            configuration: c, mappings: [try Mapping(parsing: "tilt.x cc=1 smooth=0")], queue: queue, wake: {},
            logger: logger)
        try listener.start()
        let port = Int(listener.boundAddresses.first { $0.hasPrefix("tcp") }!.split(separator: ":").last!)!
        // two connections, lines interleaved in small chunks
        let a = try Loopback.Client(.tcp, to: port), b = try Loopback.Client(.tcp, to: port)
        let la = Self.lines(x: 0.5, n: 400), lb = Self.lines(x: -0.5, n: 400)
        for k in stride(from: 0, to: la.count, by: 20) {
            for (c, l) in [(a, la), (b, lb)] {
                c.send(l[k..<min(k + 20, l.count)].joined(separator: "\n") + "\n")
            }
            usleep(2000)
        }
        try a.awaitReadByPeer()
        try b.awaitReadByPeer()
        a.close(); b.close()
        var values: [Int] = []
        while let e = queue.pop() { values.append(Int(e.event.midi!.value)) }
        _ = listener.stop()
        // each sender's own tilt: about 64 ± 0.5 * 63, never a value mixed between them
        XCTAssertTrue(values.contains { abs($0 - 96) <= 1 }, "\(values.suffix(20))")
        XCTAssertTrue(values.contains { abs($0 - 32) <= 1 }, "\(values.suffix(20))")
        let mixed = values.filter { abs($0 - 96) > 2 && abs($0 - 32) > 2 }
        XCTAssertTrue(mixed.isEmpty, "values between the two senders' tilts: \(mixed.prefix(20))")
    }

    final class Collect: EventOutput {
        var events: [MIDIEvent] = []
        var name: String { "collect" }
        func send(_ e: MIDIEvent) { events.append(e) }
        func flush() {}
        func close() {}
    }

    /// A re-zero requested (SIGUSR1 does this) before a replay: the first orientation is the rest.
    func testRezeroRequestReachesTheFileReplay() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Recordings/watch-sweeps.csv").path
        let out = Collect()
        var pipeline = Pipeline(
            mappings: [try Mapping(parsing: "tilt.pitch zero cc=1 smooth=0 range=-10..10")], outputs: [out])
        Shutdown.requestRezero()
        _ = try FileReplay(
            path: path, parserOptions: .init(), maxLineLength: 16_384, timing: PlaybackTiming(fast: true)
        ).run(into: &pipeline)
        XCTAssertFalse(Shutdown.takeRezeroRequest(), "taken once, by the replay")
        // the watch starts at a pitch of ~2.5°: zeroed, the first value is level (64)
        XCTAssertEqual(Int(out.events.first?.value ?? 0), 64, accuracy: 1)
        var plain = Pipeline(
            mappings: [try Mapping(parsing: "tilt.pitch cc=1 smooth=0 range=-10..10")], outputs: [Collect()])
        let o2 = plain.outputs[0] as! Collect
        _ = try FileReplay(
            path: path, parserOptions: .init(), maxLineLength: 16_384, timing: PlaybackTiming(fast: true)
        ).run(into: &plain)
        XCTAssertGreaterThan(Int(o2.events.first?.value ?? 0), 70, "without the re-zero, the watch's own pitch shows")
    }
}
