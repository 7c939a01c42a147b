import Foundation
import XCTest

/// `sensorwah listen --phyphox` against a phyphox-like server (Tests/Tools/phyphox-server.py,
/// the remote-access REST API: /config, /get with thresholds). The phone goes away and comes
/// back mid-run: nothing is read twice or lost, and the recording replays to the same stream.
final class PhyphoxCLITests: XCTestCase {
    final class Server {
        let process = Process()
        let out = Pipe()
        var port = ""
        init(_ args: [String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", CLI.repo.appendingPathComponent("Tests/Tools/phyphox-server.py").path] + args
            process.standardOutput = out
            try process.run()
            var line = ""
            while !line.contains("\n") {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                line += String(decoding: d, as: UTF8.self)
            }
            port = line.split(separator: "\n").first.flatMap { $0.split(separator: " ").last }.map(String.init) ?? ""
        }
        func stop() { process.terminate(); process.waitUntilExit() }
    }

    func testPollsResumesAfterThePhoneComesBackAndReplaysTheSame() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-cli-phyphox-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try Server(["--first", "0", "--last", "150", "--grow", "10"])
        XCTAssertFalse(first.port.isEmpty, "the test server printed its port")
        let maps = ["accel.x cc=31 smooth=20", "accel.y cc=32 smooth=0 range=-0.3..0.3"]
        let l = try CLI.Running(["listen", "--bind", "127.0.0.1", "--rest-after", "30", "--no-tcp",
                                 "--phyphox", "127.0.0.1:\(first.port)", "--phyphox-interval", "0.03", "--record", dir]
                                + (maps + ["accel.x cc=33 smooth=20 sender=phyphox"]).flatMap { ["--map", $0] })
        XCTAssertNotNil(l.waitForStderr("experiment \"Acceleration with g\", reading accel"), l.stderrSoFar)
        usleep(2_000_000)              // 150 samples at 10 per poll: all read by now (0.45 s at least)
        first.stop()                   // the phone goes away ...
        XCTAssertNotNil(l.waitForStderr("retrying in", seconds: 10), l.stderrSoFar)
        let second = try Server(["--port", first.port, "--first", "150", "--last", "300", "--grow", "10"])
        defer { second.stop() }        // ... and comes back with its experiment still running
        let reading = "experiment \"Acceleration with g\", reading accel"
        let deadline = Date().addingTimeInterval(20)
        while l.stderrSoFar.components(separatedBy: reading).count < 3 && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(l.stderrSoFar.components(separatedBy: reading).count, 3, "the listener did not read the experiment again: \(l.stderrSoFar)")
        usleep(2_000_000)              // the second 150 samples
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
        XCTAssertEqual(live.filter { $0.contains("\"cc\":33,") }.map { $0.replacingOccurrences(of: "\"cc\":33,", with: "") },
                       live.filter { $0.contains("\"cc\":31,") }.map { $0.replacingOccurrences(of: "\"cc\":31,", with: "") })
    }
}
