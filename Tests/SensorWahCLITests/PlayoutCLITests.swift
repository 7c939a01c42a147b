import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
    import Glibc
#endif

/// `listen --playout` carried through the network outputs: RTP-MIDI's timestamps and the
/// timetags of `--osc-out-ahead`'s bundles keep the readings' own spacing when the network
/// bunched them. A phone over loopback TCP sends SensorLog rows 10 ms apart; rows 20-29 stall
/// and arrive in one burst with row 30.
final class PlayoutCLITests: XCTestCase {
    static let header =
        "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"
    static let rowCount = 60
    static let stall = 20..<30

    /// Rows stamped 10 ms apart, accel.x sweeping -1 to 1 G (a new CC value on every row).
    static var rows: [String] {
        (0..<rowCount).map { i in
            "2024-01-01T00:00:00.000Z,\(100 + Double(i) * 0.01),\(-1 + 2 * Double(i) / Double(rowCount - 1)),0,-1"
        }
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sends the rows at their own times, the stalled ones held back and sent with the next.
    /// The header goes 100 ms ahead, so that the listener has taken it (made the sender's
    /// session) before the first row: a first row read late behind it would step the sender
    /// clock's map by as much on the second row, which the spacing checks would count.
    static func playPhone(to port: Int) throws {
        let phone = try Loopback.Client(.tcp, to: port)
        phone.send(header + "\n")
        usleep(100_000)
        let start = now()
        var pending = ""
        for (i, r) in rows.enumerated() {
            let at = start + UInt64(i) * 10_000_000
            while now() < at { usleep(200) }
            pending += r + "\n"
            if !stall.contains(i) {
                phone.send(pending)
                pending = ""
            }
        }
        try phone.closeAndAwaitPeerClose()
    }

    static func listen(_ extra: [String]) throws -> (CLI.Running, Int) {
        let tcp = Loopback.freePort(.tcp)
        let l = try CLI.Running(
            [
                "listen", "--port", "\(tcp)", "--bind", "127.0.0.1", "--no-monitor", "--rest-after", "0",
                "--map", "accel.x cc=11 smooth=0 speed=none reject=none"
            ] + extra)
        _ = try l.awaitStderr("listening on tcp://[^ ]*:\(tcp)", seconds: 20)
        return (l, tcp)
    }

    /// The moments (ms) of consecutive rows are 10 ms apart, through the burst too. The sender
    /// clock's map may step once by the phone's own pacing error (its first row sent late).
    static func assertEvenlySpaced(_ moments: [Double], file: StaticString = #filePath, line: UInt = #line) {
        let gaps = zip(moments.dropFirst(), moments).map { $0 - $1 }
        XCTAssertEqual(gaps.sorted()[gaps.count / 2], 10, accuracy: 0.2, "\(gaps)", file: file, line: line)
        XCTAssertGreaterThan(gaps.min()!, 7, "\(gaps)", file: file, line: line)
        XCTAssertLessThan(gaps.max()!, 13, "\(gaps)", file: file, line: line)
    }

    /// Gaps (ms) between consecutive moments of the burst's rows.
    static func burstGaps(_ moments: [Double]) -> [Double] {
        (stall.lowerBound...stall.upperBound).map { moments[$0] - moments[$0 - 1] }
    }

    /// An RTP-MIDI initiator (Tests/Tools/rtpmidi-peer.py, its own RFC 6295 decoder) reads each
    /// message's time from the packets' timestamps and delta times: with a playout the burst's
    /// messages are 10 ms apart, as their rows were taken; without one they are bunched.
    func testRTPMIDITimestampsKeepTheRowsSpacingThroughABurst() throws {
        for playout in ["150", "off"] {
            let ours = Loopback.freeUDPPortPair(), theirs = Loopback.freeUDPPortPair()
            let (listen, tcp) = try Self.listen([
                "--playout", playout, "--midi", "rtp", "--rtp-port", "\(ours)", "--no-rtp-announce"
            ])
            defer { listen.stopIfRunning() }
            let initiator = try RTPMIDICLITests.Peer([
                "initiate", "--target", "127.0.0.1:\(ours)", "--port", "\(theirs)", "--seconds", "20", "--idle", "1.5"
            ])
            defer { initiator.stop() }
            _ = try listen.awaitStderr("RTP-MIDI: 'test initiator' joined", seconds: 20)
            try Self.playPhone(to: tcp)
            XCTAssertTrue(initiator.waitFor({ $0.contains { $0["events"] != nil } }, seconds: 20), initiator.text)
            let result = try XCTUnwrap(initiator.lines.first { $0["events"] != nil })
            // [tick (100 µs), status, controller, value]: CC 11's, one a row
            let events = (result["events"] as! [[Int]]).filter { $0[1] == 0xB0 && $0[2] == 11 }
            XCTAssertEqual(events.count, Self.rowCount, "one message a row: \(events)")
            guard events.count == Self.rowCount else { continue }
            let moments = events.map { Double($0[0]) / 10 }
            let gaps = Self.burstGaps(moments)
            if playout == "off" {
                XCTAssertGreaterThan(gaps[0], 50, "the stall: \(gaps)")
                XCTAssertLessThan(gaps.dropFirst().max()!, 3, "as they arrived, the burst is bunched: \(gaps)")
            } else {
                Self.assertEvenlySpaced(moments)
            }
        }
    }

    /// `--osc-out-ahead`: liblo's oscdump gets every message as soon as listen makes it, in a
    /// bundle time-tagged with the moment it is due: the tags are 10 ms apart through the burst,
    /// the first 150 ms after its row was sent.
    func testOSCBundlesGoAheadTimeTaggedWithTheirMoment() throws {
        let port = Loopback.freePort(.udp)
        let dump = try RTPMIDICLITests.Peer.custom("/usr/bin/oscdump", ["-L", "\(port)"])
        defer { dump.stop() }
        try waitUntil("oscdump bound to UDP \(port)") { Loopback.isBound(port, .udp) }
        let (listen, tcp) = try Self.listen([
            "--playout", "150", "--osc-out", "127.0.0.1:\(port)", "--osc-out-ahead", "--midi", "stdout"
        ])
        defer { listen.stopIfRunning() }
        let sentAt = Date().timeIntervalSince1970
        try Self.playPhone(to: tcp)
        // oscdump: "TIMETAG ADDRESS f VALUE", the tag as NTP seconds and fraction in hex
        func tagged() -> [Double] {
            CLI.lines(dump.text).compactMap { line in
                let p = line.split(separator: " ")
                guard p.count >= 2, p[1] == "/sensorwah/cc/1/11" else { return nil }
                let t = p[0].split(separator: ".")
                guard t.count == 2, let s = UInt32(t[0], radix: 16), let f = UInt32(t[1], radix: 16) else {
                    return -1
                }
                return (Double(s) - 2_208_988_800 + Double(f) / 4_294_967_296) * 1000
            }
        }
        _ = try? waitUntil("\(Self.rowCount) messages at oscdump", timeout: 10, observe: tagged) {
            $0.count >= Self.rowCount
        }
        let tags = tagged()
        XCTAssertEqual(tags.count, Self.rowCount, "one message a row, each in a time-tagged bundle: \(dump.text)")
        guard tags.count == Self.rowCount else { return }
        Self.assertEvenlySpaced(tags)
        // the first row goes 100 ms after the header
        XCTAssertGreaterThan(tags[0], sentAt * 1000 + 240, "the first is due 150 ms after its row was sent")
        XCTAssertLessThan(tags[0], sentAt * 1000 + 500)
    }
}
