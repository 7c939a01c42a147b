import Foundation
import XCTest

/// `export --list-gestures`: one `time,gesture,strength` row per gesture, and `--gesture-setting` to
/// try other settings on a take.
final class ExportGesturesCLITests: XCTestCase {
    /// The phone demo: its two fast heel-toe strokes are flicks (about 6.27 and 6.97 s), its
    /// three knocks taps; times ascend, strengths are positive.
    func testGesturesAreListedWithTimeAndStrength() throws {
        let r = try CLI.run(["export", CLI.recording("wrist-wah-phone.csv"), "--list-gestures"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = CLI.lines(r.stdout)
        XCTAssertEqual(lines.first, "time,gesture,strength")
        var kinds: [String: Int] = [:], last = -1.0
        for l in lines.dropFirst() {
            let f = l.split(separator: ",").map(String.init)
            XCTAssertEqual(f.count, 3, l)
            guard f.count == 3, let t = Double(f[0]), let s = Double(f[2]) else { XCTFail(l); continue }
            XCTAssertGreaterThanOrEqual(t, last); last = t
            XCTAssertGreaterThan(s, 0, l)
            kinds[f[1], default: 0] += 1
        }
        XCTAssertEqual(kinds, ["flick": 2, "tap": 3], r.stdout)
    }

    /// A setting changes what fires; a wrong name or value is refused with the list of names;
    /// --list-gestures and --sources do not go together.
    func testGestureSettingsAndErrors() throws {
        let strict = try CLI.run([
            "export", CLI.recording("wrist-wah-phone.csv"), "--list-gestures", "--gesture-setting", "flickThreshold=20"
        ])
        XCTAssertEqual(strict.status, 0, strict.stderr)
        XCTAssertFalse(strict.stdout.contains(",flick,"), "no stroke reaches 20 rad/s: \(strict.stdout)")
        let bad = try CLI.run([
            "export", CLI.recording("wrist-wah-phone.csv"), "--list-gestures", "--gesture-setting", "flickThreshhold=20"
        ])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(
            bad.stderr.contains("not a gesture setting") && bad.stderr.contains("flickAccelThreshold"), bad.stderr)
        let value = try CLI.run([
            "export", CLI.recording("wrist-wah-phone.csv"), "--list-gestures", "--gesture-setting", "tapThreshold=loud"
        ])
        XCTAssertNotEqual(value.status, 0)
        let both = try CLI.run(["export", CLI.recording("wrist-wah-phone.csv"), "--list-gestures", "--sources", "tap"])
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("--list-gestures"), both.stderr)
    }

    /// The gesture settings tuned with export reach every command that runs the motion stage,
    /// from the command line and from a configuration file's `motion: gesture-setting:` list.
    func testGestureSettingsReachReplayAndTheConfigFile() throws {
        func notes(_ args: [String]) throws -> Int {
            let r = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--midi", "stdout"] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            return CLI.lines(r.stdout).filter { $0.contains("\"note_on\"") }.count
        }
        XCTAssertEqual(try notes(["--map", "tap note=38 ch=10"]), 3, "the demo's three knocks")
        XCTAssertEqual(try notes(["--map", "tap note=38 ch=10", "--gesture-setting", "tapThreshold=100"]), 0)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-gesture-setting-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rig = dir.appendingPathComponent("rig.yaml").path
        try "motion:\n  gesture-setting: [tapThreshold=100]\nmappings:\n  - tap note=38 ch=10\n".write(
            toFile: rig, atomically: true, encoding: .utf8)
        XCTAssertEqual(try notes(["--config", rig]), 0, "the file's setting")
        let bad = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--gesture-setting", "tapThreshhold=3"
        ])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("'tapThreshhold': not a gesture setting"), bad.stderr)
    }
}
