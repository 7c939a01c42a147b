import Foundation
import XCTest

final class ReplayCLITests: XCTestCase {
    /// With no mapping given, the fused tilt re-zeroed at start: the wrist where it began reads 64,
    /// the heel-to-toe sweeps move CC 11 both ways, and the end is the rest value.
    func testTheDefaultMappingIsTheTiltFromWhereTheWristStarts() throws {
        let r = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--midi", "stdout"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("mapping: zero.x -> CC 11 on channel 1"), r.stderr)
        let values = CLI.lines(r.stdout).compactMap { l -> Int? in
            guard let d = l.data(using: .utf8), let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any]
            else { return nil }
            return o["value"] as? Int
        }
        XCTAssertGreaterThan(values.count, 100)
        XCTAssertEqual(values.first, 64, "level where the stream starts")
        XCTAssertEqual(values.last, 64, "the rest value at the end")
        XCTAssertLessThan(values.min()!, 30); XCTAssertGreaterThan(values.max()!, 100)
    }

    func testReplayPrintsOneJSONObjectPerMessageAndASummary() throws {
        let r = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--midi", "stdout", "--map", "accel.x cc=11"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = CLI.lines(r.stdout)
        XCTAssertGreaterThan(lines.count, 300)
        let re = try NSRegularExpression(pattern: #"^\{"t":\d+\.\d{3},"type":"cc","ch":1,"cc":11,"value":(\d+)\}$"#)
        var values: [Int] = []
        for l in lines {
            let m = re.firstMatch(in: l, range: NSRange(l.startIndex..., in: l))
            XCTAssertNotNil(m, l)
            if let m { values.append(Int(l[Range(m.range(at: 1), in: l)!])!) }
        }
        // the demo sweeps heel to toe: the full range is used, and it ends at rest
        XCTAssertEqual(values.min(), 0); XCTAssertEqual(values.max(), 127); XCTAssertEqual(values.last, 64)
        XCTAssertTrue(r.stderr.contains("rows read 1256, frames used 1256"), r.stderr)
        XCTAssertTrue(
            r.stderr.contains("4 beyond the hard bound"), "the four knocks of the demo are dropped:\n\(r.stderr)")
        XCTAssertTrue(r.stderr.contains("messages sent \(lines.count)"), r.stderr)
    }

    func testTimingFollowsTheSensorTimestamps() throws {
        // 12.55 s of recording at speed 5 takes about 2.5 s
        let start = Date()
        let r = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--speed", "5", "-q"])
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(r.status, 0)
        XCTAssertGreaterThan(elapsed, 2.3)
        XCTAssertLessThan(elapsed, 6)
    }

    func testTheSameGestureAt30And100HzGivesTheSameShape() throws {
        let fast = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--fast"])
        let slow = try CLI.run(["replay", CLI.recording("accel-only-30hz.csv"), "--fast"])
        func series(_ s: String) -> [(Double, Int)] {
            CLI.lines(s).compactMap { l in
                guard let d = l.data(using: .utf8),
                    let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
                    let t = o["t"] as? Double, let v = o["value"] as? Int
                else { return nil }
                return (t, v)
            }
        }
        func value(_ s: [(Double, Int)], at t: Double) -> Int { s.last { $0.0 <= t }?.1 ?? 64 }
        let a = series(fast.stdout), b = series(slow.stdout)
        // compare at holds and rests, where both should have settled
        for t in [0.9, 3.25, 6.05, 8.6, 12.5] {
            XCTAssertEqual(Double(value(a, at: t)), Double(value(b, at: t)), accuracy: 4, "t=\(t)")
        }
    }

    func testQuirksFileIsUsedAndCounted() throws {
        let r = try CLI.run(["replay", CLI.recording("phone-quirks.csv"), "--fast"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("rows read 701"), r.stderr)
        XCTAssertTrue(
            r.stderr.contains("rows with a field too many or too few, used (motion columns intact): 6"), r.stderr)
        XCTAssertTrue(r.stderr.contains("late samples dropped (timestamp went backwards): 1"), r.stderr)
        XCTAssertFalse(r.stdout.isEmpty)
    }

    func testWatchLogAndEveryFieldRecordingReplayWithoutCrashing() throws {
        var files = [CLI.recording("watch-sweeps.csv")]
        let field = CLI.repo.deletingLastPathComponent().appendingPathComponent("shared/field-recordings")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: field.path) {
            files += names.filter { $0.hasSuffix(".csv") }.map { field.appendingPathComponent($0).path }
            print("field recordings replayed: \(names.filter { $0.hasSuffix(".csv") })")
        }
        for f in files {
            // a file without a header is named with --columns (FieldRecordingTests checks the refusal)
            let columns =
                f.contains("headerless")
                ? ["--columns", f.contains("rotation") ? "time,gx,gy,gz" : "time,ax,ay,az"] : []
            let r = try CLI.run(
                ["replay", f, "--fast", "--map", "gyro.y cc=20 range=-3..3", "--map", "accel.x cc14=1"] + columns)
            XCTAssertEqual(r.status, 0, "\(f): \(r.stderr)")
            XCTAssertFalse(r.stdout.isEmpty, f)
        }
    }

    func testHostileInputFileNeverCrashes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(getpid()).csv").path
        var data = Data(
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)\n"
                .utf8)
        var rng = SystemRandomNumberGenerator()
        for i in 0..<2000 {
            switch i % 5 {
            case 0: data.append(contentsOf: (0..<200).map { _ in UInt8.random(in: 0...255, using: &rng) })
            case 1: data.append(Data("x,\(Double(i) * 0.01),1e308,NaN,-inf\n".utf8))
            case 2: data.append(Data(String(repeating: "7", count: 40_000).utf8))
            default: data.append(Data("x,\(Double(i) * 0.01),0.5,0,-1\n".utf8))
            }
        }
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try CLI.run(["replay", path, "--fast"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("rows skipped"), r.stderr)
    }

    func testClearErrors() throws {
        let missing = try CLI.run(["replay", "/nonexistent.csv"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("cannot open '/nonexistent.csv'"), missing.stderr)
        let bad = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--map", "elbow.q cc=1"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("unknown source"), bad.stderr)
        let help = try CLI.run(["--help"])
        XCTAssertTrue(help.stdout.contains("replay") && help.stdout.contains("listen"), help.stdout)
    }
}
