import Foundation
import Logging
import XCTest
@testable import SensorWahCore
@testable import SensorWahEngine
@testable import SensorWahIO
import SensorWahRuntime
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// `listen --playout`: each sender's readings leave at their own time plus a delay, however the
/// network bunched them. Real loopback TCP into an in-process listener and output thread; the
/// output stamps each message with the moment it was handed over.
final class PlayoutListenerTests: XCTestCase {
    /// Notes when each message reached the outputs (monotonic ns).
    final class Stamp: EventOutput {
        var times: [UInt64] = []
        var values: [UInt16] = []
        var name: String { "stamp" }
        func send(_ e: MIDIEvent) {
            times.append(monotonicNanos())
            values.append(e.value)
        }
        func flush() {}
        func close() {}
    }

    /// Runs a listener with `playout`, sends `rows` (stamped 10 ms apart) as a phone on bad
    /// Wi-Fi would, and returns each message's moment minus its row's sender time (ms, the
    /// first one 0) and the listener's counts. Rows go out at their own times, except that
    /// rows `stall` wait and arrive in one burst with the row after them.
    func play(
        _ playout: Playout.Mode, rows: [String], header: String, stall: Range<Int>
    ) throws -> (offsets: [Double], values: [UInt16], stats: ListenerStats) {
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 12)
        let out = Stamp()
        let pump = OutputPump(queue: queue, outputs: [out])
        pump.start()
        var c = ListenerConfiguration()
        c.bindHost = "127.0.0.1"
        c.tcpPort = 0
        c.restAfter = 0
        c.playout = playout
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let listener = Listener(
            configuration: c, mappings: [try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none")],
            queue: queue, wake: pump.wake, arriving: pump.arriving, logger: logger)
        try listener.start()
        let port = Int(listener.boundAddresses.first { $0.hasPrefix("tcp") }!.split(separator: ":").last!)!
        let phone = try Loopback.Client(.tcp, to: port)
        phone.send(header + "\n")
        let start = monotonicNanos()
        var pending = ""
        for (i, r) in rows.enumerated() {
            let at = start + UInt64(i) * 10_000_000
            while monotonicNanos() < at { usleep(200) }
            pending += r + "\n"
            if !stall.contains(i) {
                phone.send(pending)
                pending = ""
            }
        }
        if !pending.isEmpty { phone.send(pending) }
        // every message out (the last row's, plus the playout's delay)
        try waitUntil("\(rows.count) messages", timeout: 10, observe: { pump.deliveredSoFar.load(ordering: .relaxed) })
        {
            $0 >= rows.count
        }
        let stats = listener.snapshot()
        try phone.closeAndAwaitPeerClose()
        _ = listener.stop()
        pump.stop()
        let n = min(out.times.count, rows.count)
        let offsets = (0..<n).map { i in Double(Int64(out.times[i] &- start) - Int64(i) * 10_000_000) / 1e6 }
        return (offsets.map { $0 - offsets[0] }, out.values, stats)
    }

    static func spread(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s[Int(Double(s.count - 1) * 0.95)] - s[Int(Double(s.count - 1) * 0.05)]
    }

    /// A burst of ten rows after a 100 ms stall: without a playout their messages leave
    /// together, up to 100 ms late; with a 150 ms delay every message leaves at its row's own
    /// time plus the delay, evenly, and none is late. Nothing is lost or reordered either way.
    func testABurstAfterAStallLeavesAtTheRowsOwnTimes() throws {
        let rows = ListenerTests.rows(60)
        let off = try play(.off, rows: rows, header: ListenerTests.header, stall: 20..<30)
        let held = try play(.fixed(0.15), rows: rows, header: ListenerTests.header, stall: 20..<30)
        XCTAssertEqual(held.values, off.values, "the same messages in the same order")
        XCTAssertEqual(held.values.count, 61, "one a row, then the rest value at the end")
        print(
            "spread p5-p95 as they arrived \(Self.spread(off.offsets)) ms, played out \(Self.spread(held.offsets)) ms")
        XCTAssertGreaterThan(Self.spread(off.offsets), 50, "as they arrived: \(off.offsets)")
        XCTAssertLessThan(Self.spread(held.offsets), 5, "played out: \(held.offsets)")
        let t = try XCTUnwrap(held.stats.timing.first)
        XCTAssertEqual(t.mode, .fixed(0.15))
        XCTAssertEqual(t.readings, 60)
        XCTAssertEqual(t.late, 0)
        XCTAssertEqual(t.untimed, 0)
        XCTAssertGreaterThan(t.jitter, 0.05, "the stall shows in the delivery's jitter: \(t.jitter)")
        XCTAssertTrue(off.stats.timing.isEmpty)
    }

    /// A log without a time of its own (timed at an assumed rate) is played as it arrives, and
    /// counted as such.
    func testRowsWithoutTheSendersTimePassStraightThrough() throws {
        let header = "ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z"
        let rows = (0..<40).map { i in "\(-9.8 + 19.6 * Double(i) / 39),0,-9.8" }
        let r = try play(.fixed(0.15), rows: rows, header: header, stall: 10..<20)
        XCTAssertEqual(r.values.count, 41, "one a row, then the rest value at the end")
        XCTAssertGreaterThan(Self.spread(r.offsets), 50, "as they arrived: \(r.offsets)")
        let t = try XCTUnwrap(r.stats.timing.first)
        XCTAssertEqual(t.readings, 0)
        XCTAssertEqual(t.untimed, 40)
        XCTAssertTrue(t.text.contains("no time of its own"), t.text)
    }
}
