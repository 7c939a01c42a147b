import Foundation
import XCTest

final class ExportCLITests: XCTestCase {
    /// Raw and derived sources side by side: the fused tilt agrees with the log's own pitch and
    /// roll (radians there, degrees here), one row per frame, the knocks show as taps.
    func testExportWritesOneRowPerFrameWithRawAndDerivedSources() throws {
        let r = try CLI.run(["export", CLI.recording("wrist-wah-phone.csv"), "--sources", "tilt.pitch,pitch,tilt.roll,roll,tilt.x@40,accel.x,tap"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = CLI.lines(r.stdout)
        XCTAssertEqual(lines.first, "t,tilt.pitch,pitch,tilt.roll,roll,tilt.x@40,accel.x,tap")
        XCTAssertEqual(lines.count, 1 + 1256)
        var worst = 0.0, taps = 0, lastT = -1.0
        for l in lines.dropFirst() {
            let v = l.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
            XCTAssertEqual(v.count, 8, l)
            guard v.allSatisfy({ $0 != nil }) else { XCTFail("empty or bad field: \(l)"); continue }
            let t = v[0]!
            XCTAssertGreaterThan(t, lastT); lastT = t
            if t > 2 {
                worst = max(worst, abs(v[1]! - v[2]! * 180 / .pi))
                worst = max(worst, abs(v[3]! - v[4]! * 180 / .pi))
            }
            if v[7]! > 0 { taps += 1 }
        }
        XCTAssertLessThan(worst, 4, "fused against the device's own pitch/roll, degrees")
        XCTAssertEqual(taps, 3, "the demo's three knocks")
    }

    func testExportToAFileAndBadSources() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-export-\(getpid()).csv")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try CLI.run(["export", CLI.recording("watch-sweeps.csv"), "--sources", "tilt.x,zero.x,flick", "-o", out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.isEmpty)
        let text = try String(contentsOf: out, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("t,tilt.x,zero.x,flick\n"))
        XCTAssertGreaterThan(text.split(separator: "\n").count, 500)
        for (arg, msg) in [("elbow", "unknown source"), ("tilt.x@-3", "smoothing after @"), ("", "--sources")] {
            let b = try CLI.run(["export", CLI.recording("watch-sweeps.csv"), "--sources", arg])
            XCTAssertEqual(b.status, 64, arg)
            XCTAssertTrue(b.stderr.contains(msg), "\(arg): \(b.stderr)")
        }
    }
}
