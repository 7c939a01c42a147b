import Foundation
import XCTest

/// `calibrate` traces a range and writes it into the mapping's line of the configuration file,
/// leaving the rest of the file as it was; from a recording and live.
final class CalibrateCLITests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-cal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func config(_ listen: String = "") throws -> String {
        let p = dir.appendingPathComponent("rig.yaml").path
        try """
        # my rig
        \(listen)
        mappings:
          - accel.y cc=7   # volume, untouched
          - accel.x cc=11 bipolar range=-2..2   # the wah
        """.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    func rangeOf(_ path: String) throws -> (Double, Double) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("cc=11") })
        XCTAssertTrue(line.contains("# the wah"), "the comment was lost: \(line)")
        XCTAssertTrue(text.contains("# my rig") && text.contains("accel.y cc=7   # volume, untouched"), text)
        let r = try XCTUnwrap(line.range(of: #"range=(-?[0-9.]+)\.\.(-?[0-9.]+)"#, options: .regularExpression))
        let parts = line[r].dropFirst("range=".count).components(separatedBy: "..")
        return (try XCTUnwrap(Double(parts[0])), try XCTUnwrap(Double(parts[1])))
    }

    func testFromARecording() throws {
        let path = try config()
        let r = try CLI.run(["calibrate", "2", "--config", path, "--from", CLI.recording("watch-sweeps.csv")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let (lo, hi) = try rangeOf(path)
        XCTAssertEqual(lo, -0.9, accuracy: 0.15)
        XCTAssertEqual(hi, 0.9, accuracy: 0.15)
        // the calibrated file plays: a replay with it reaches both ends of the controller
        let play = try CLI.run(["replay", CLI.recording("watch-sweeps.csv"), "--fast", "--config", path])
        XCTAssertEqual(play.status, 0, play.stderr)
        let values = CLI.lines(play.stdout).filter { $0.contains("\"cc\":11,") }.compactMap { l -> Int? in
            guard let r = l.range(of: #"\"value\":(\d+)"#, options: .regularExpression) else { return nil }
            return Int(l[r].dropFirst("\"value\":".count))
        }
        XCTAssertGreaterThanOrEqual(values.max() ?? 0, 120, "the calibrated range does not reach the toe")
        XCTAssertLessThanOrEqual(values.min() ?? 127, 7, "the calibrated range does not reach the heel")
        // a mapping played by a gesture has no range; a missing mapping is an error
        XCTAssertEqual(
            try CLI.run(["calibrate", "3", "--config", path, "--from", CLI.recording("watch-sweeps.csv")]).status, 64)
    }

    func testLiveFromAStreamingSender() throws {
        let path = try config("listen:\n  bind: 127.0.0.1\n  port: 0\n")
        let cal = try CLI.Running(["calibrate", "2", "--config", path, "--seconds", "3", "--rest-seconds", "0.5"])
        let port = try XCTUnwrap(cal.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
        let sender = try CLI.Running([
            "stream", CLI.recording("watch-sweeps.csv"), "--to", "127.0.0.1:\(port)", "--speed", "4"
        ])
        let r = cal.wait(timeout: 30)
        sender.interrupt()
        _ = sender.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("now move through"), r.stderr)
        let (lo, hi) = try rangeOf(path)
        XCTAssertLessThan(lo, -0.3)
        XCTAssertGreaterThan(hi, 0.3)
    }
}
