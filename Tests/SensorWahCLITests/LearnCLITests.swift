import Foundation
import XCTest

/// MIDI learn: one controller alone, so a DAW binds exactly it.
final class LearnCLITests: XCTestCase {
    struct Msg { var ch: Int; var cc: Int; var value: Int }

    func messages(_ stdout: String) -> [Msg] {
        CLI.lines(stdout).compactMap { l in
            guard let o = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any],
                let ch = o["ch"] as? Int, let cc = o["cc"] as? Int, let v = o["value"] as? Int
            else { return nil }
            return Msg(ch: ch, cc: cc, value: v)
        }
    }

    func testLearnSweepsOnlyTheChosenControllerAndEndsAtRest() throws {
        let maps = ["--map", "accel.x cc=11", "--map", "gyro.z cc=20 ch=2 range=-3..3 bipolar", "--map", "user.y cc=30"]
        let r = try CLI.run(
            ["learn", "2"] + maps + ["--sweep", "1", "--seconds", "1.2", "--midi", "stdout"], timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = messages(r.stdout)
        XCTAssertGreaterThan(m.count, 40, r.stderr)
        XCTAssertTrue(
            m.allSatisfy { $0.ch == 2 && $0.cc == 20 },
            "another controller was sent: \(Set(m.map { "\($0.ch)/\($0.cc)" }))")
        XCTAssertEqual(m.map(\.value).min(), 0)
        XCTAssertEqual(m.map(\.value).max(), 127)
        XCTAssertEqual(m.last?.value, 64, "learn did not end at the bipolar mapping's rest value")
        XCTAssertTrue(r.stderr.contains("only"), r.stderr)
    }

    func testSoloRunsOneMappingOfTheRealSensor() throws {
        let rec = CLI.recording("wrist-wah-phone.csv")
        let maps = ["--map", "accel.x cc=11", "--map", "accel.y cc=20 ch=2"]
        let all = messages(try CLI.run(["replay", rec, "--fast"] + maps).stdout)
        XCTAssertEqual(Set(all.map(\.cc)), [11, 20])
        let solo = try CLI.run(["replay", rec, "--fast", "--solo", "2"] + maps)
        XCTAssertEqual(solo.status, 0, solo.stderr)
        let s = messages(solo.stdout)
        XCTAssertFalse(s.isEmpty)
        XCTAssertTrue(s.allSatisfy { $0.cc == 20 && $0.ch == 2 })
        // the solo stream is exactly that mapping's part of the full stream
        XCTAssertEqual(s.map(\.value), all.filter { $0.cc == 20 }.map(\.value))
        let bad = try CLI.run(["replay", rec, "--fast", "--solo", "3"] + maps)
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--solo 3"), bad.stderr)
    }

    func testVersion() throws {
        let r = try CLI.run(["--version"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.hasPrefix("sensorwah "), r.stdout)
        XCTAssertTrue(r.stdout.contains("."), r.stdout)
    }
}
