import Foundation
import XCTest

final class GestureCLITests: XCTestCase {
    /// The demo's three knocks play three notes; every note ends; tilt drives a CC at the same time.
    func testReplayPlaysNotesFromTapsAndEndsThem() throws {
        let r = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--midi", "stdout",
            "--map", "tap note=38 ch=10 length=120", "--map", "tilt.x zero cc=11"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = CLI.lines(r.stdout)
        let on = lines.filter { $0.contains(#""type":"note_on","ch":10,"note":38,"velocity":"#) }
        let off = lines.filter { $0.contains(#""type":"note_off","ch":10,"note":38,"velocity":0}"#) }
        XCTAssertEqual(on.count, 3, r.stdout)
        XCTAssertEqual(off.count, 3)
        XCTAssertGreaterThan(lines.filter { $0.contains(#""cc":11"#) }.count, 100)
    }

    /// Replay skips the motion stage when no mapping reads it: a raw mapping sends the same
    /// stream with and without a tilt mapping beside it (stage skipped / stage run), and a
    /// hold on a gesture still turns the stage on (the knocks freeze the value).
    func testMotionStageRunsOnlyWhenAMappingReadsIt() throws {
        let file = CLI.recording("wrist-wah-phone.csv")
        func cc1(_ maps: [String]) throws -> [String] {
            let r = try CLI.run(["replay", file, "--fast", "--midi", "stdout"] + maps.flatMap { ["--map", $0] })
            XCTAssertEqual(r.status, 0, r.stderr)
            return CLI.lines(r.stdout).filter { $0.contains(#""cc":1,"#) }
        }
        let alone = try cc1(["accel.x cc=1 smooth=0"])
        let beside = try cc1(["accel.x cc=1 smooth=0", "tilt.x cc=2"])
        XCTAssertGreaterThan(alone.count, 100)
        XCTAssertEqual(alone, beside)
        let held = try cc1(["accel.x cc=1 smooth=0 hold=tap"])
        XCTAssertGreaterThan(held.count, 100)
        XCTAssertNotEqual(held, alone, "hold=tap needs the stage's gestures")
        // the quaternion columns, skipped when nothing reads them, are read for a quat.* mapping
        let r = try CLI.run(["replay", file, "--fast", "--midi", "stdout", "--map", "quat.w cc=3 smooth=0"])
        XCTAssertGreaterThan(CLI.lines(r.stdout).filter { $0.contains(#""cc":3,"#) }.count, 20, r.stderr)
    }
}
