import Foundation
import TestSupport
import XCTest

/// `sensorwah listen --phyphox` against a phyphox-like server (Tests/Tools/phyphox-server.py,
/// the remote-access REST API: /config, /get with thresholds). The phone goes away and comes
/// back mid-run: nothing is read twice or lost, and the recording replays to the same stream.
final class PhyphoxCLITests: XCTestCase {
    /// Tests/Tools/phyphox-server.py: its port, and the samples each /get found.
    final class Server {
        let peer: RTPMIDICLITests.Peer
        let port: String
        init(_ args: [String]) throws {
            peer = try RTPMIDICLITests.Peer.custom(
                "/usr/bin/env",
                ["python3", CLI.repo.appendingPathComponent("Tests/Tools/phyphox-server.py").path] + args)
            let first =
                (try? waitUntil("the phyphox stand-in's port", observe: { [peer] in peer.text }) { $0.contains("\n") })
                ?? ""
            port = first.split(separator: "\n").first.flatMap { $0.split(separator: " ").last }.map(String.init) ?? ""
        }
        /// Waits until the poller has read all `last` samples: it asked again after an answer
        /// that held them all.
        func awaitAllRead(_ last: Int) throws {
            try waitUntil("a /get after the one that served all \(last) samples", observe: { [peer] in peer.text }) {
                CLI.lines($0).filter { $0 == "get \(last)" }.count >= 2
            }
        }
        func stop() { peer.stop() }
    }

    func testPollsResumesAfterThePhoneComesBackAndReplaysTheSame() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-cli-phyphox-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try Server(["--first", "0", "--last", "150", "--grow", "10"])
        XCTAssertFalse(first.port.isEmpty, "the test server printed its port")
        let maps = ["accel.x cc=31 smooth=20", "accel.y cc=32 smooth=0 range=-0.3..0.3"]
        let l = try CLI.Running(
            [
                "listen", "--bind", "127.0.0.1", "--rest-after", "30", "--no-tcp",
                "--phyphox", "127.0.0.1:\(first.port)", "--phyphox-interval", "0.03", "--record", dir
            ]
                + (maps + ["accel.x cc=33 smooth=20 sender=phyphox"]).flatMap { ["--map", $0] })
        XCTAssertNotNil(l.waitForStderr("experiment \"Acceleration with g\", reading accel"), l.stderrSoFar)
        try first.awaitAllRead(150)  // 150 samples at 10 per poll
        first.stop()  // the phone goes away ...
        XCTAssertNotNil(l.waitForStderr("retrying in", seconds: 10), l.stderrSoFar)
        let second = try Server(["--port", first.port, "--first", "150", "--last", "300", "--grow", "10"])
        defer { second.stop() }  // ... and comes back with its experiment still running
        let reading = "experiment \"Acceleration with g\", reading accel"
        _ = try? waitUntil("the experiment read again", timeout: 20, observe: { l.stderrSoFar }) {
            $0.components(separatedBy: reading).count >= 3
        }
        XCTAssertEqual(
            l.stderrSoFar.components(separatedBy: reading).count, 3,
            "the listener did not read the experiment again: \(l.stderrSoFar)")
        try second.awaitAllRead(300)  // the second 150 samples
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("experiments read 2"), r.stderr)
        XCTAssertTrue(r.stderr.contains("frames 300,"), "every sample once: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("phyphox@127.0.0.1:\(first.port)"), r.stderr)
        let live = CLI.lines(r.stdout)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertEqual(files.count, 1, "\(files)")
        let rp = try CLI.run(["replay", "\(dir)/\(files[0])", "--fast", "-q"] + maps.flatMap { ["--map", $0] })
        XCTAssertEqual(rp.status, 0, rp.stderr)
        XCTAssertGreaterThan(CLI.lines(rp.stdout).count, 30)
        XCTAssertEqual(live.filter { !$0.contains("\"cc\":33,") }, CLI.lines(rp.stdout))
        XCTAssertEqual(
            live.filter { $0.contains("\"cc\":33,") }.map { $0.replacingOccurrences(of: "\"cc\":33,", with: "") },
            live.filter { $0.contains("\"cc\":31,") }.map { $0.replacingOccurrences(of: "\"cc\":31,", with: "") })
    }
}
