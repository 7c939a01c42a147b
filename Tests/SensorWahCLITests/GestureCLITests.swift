import Foundation
import XCTest

final class GestureCLITests: XCTestCase {
    /// The demo's three knocks play three notes; every note ends; tilt drives a CC at the same time.
    func testReplayPlaysNotesFromTapsAndEndsThem() throws {
        let r = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--midi", "stdout",
                             "--map", "tap note=38 ch=10 length=120", "--map", "tilt.x zero cc=11"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = CLI.lines(r.stdout)
        let on = lines.filter { $0.contains(#""type":"note_on","ch":10,"note":38,"velocity":"#) }
        let off = lines.filter { $0.contains(#""type":"note_off","ch":10,"note":38,"velocity":0}"#) }
        XCTAssertEqual(on.count, 3, r.stdout)
        XCTAssertEqual(off.count, 3)
        XCTAssertGreaterThan(lines.filter { $0.contains(#""cc":11"#) }.count, 100)
    }
}
