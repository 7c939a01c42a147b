import Foundation
import SensorWahCore
import XCTest

/// `tools/playout-sim`, which docs/performance.md quotes for how often a playout can meet #44's
/// goal, runs a Python port of Core's sender clock and playout. Here the port's releases are held
/// to Core's own: the readings of one seed of the bench's delivery (90 s at 100 Hz: the warm-up,
/// the held delay, the sender clock's step at 36 s) go through `Playout(mode: .auto)`, and every
/// release must be the port's.
final class PlayoutSimTests: XCTestCase {
    func testThePortReleasesEveryReadingWhenCoreDoes() throws {
        let tool = CLI.repo.appendingPathComponent("tools/playout-sim").path
        let (status, text, stderr) = try JackTest.sh(tool, ["--trace", "1", "--seconds", "90"])
        XCTAssertEqual(status, 0, stderr)
        let rows = text.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        XCTAssertEqual(rows.count, 9000, "a reading every 10 ms for 90 s")
        var playout = Playout(mode: .auto)
        var worst = 0.0, at = 0
        for (i, r) in rows.enumerated() where r.count == 3 {
            let release = playout.schedule(senderTime: r[0], arrival: r[1]).release
            if abs(release - r[2]) > worst { worst = abs(release - r[2]); at = i }
        }
        XCTAssertLessThan(worst, 1e-6, "the port's release differs from Core's by \(worst) s at reading \(at)")
        XCTAssertGreaterThan(playout.delay, 0.005, "the held delay covers the stalls")
    }
}
