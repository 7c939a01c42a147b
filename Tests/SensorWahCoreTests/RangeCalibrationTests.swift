import XCTest
@testable import SensorWahCore

final class RangeCalibrationTests: XCTestCase {
    func testRestBecomesTheCentreAndTheTracedSpanTheRange() throws {
        var c = RangeCalibration(restSeconds: 1, margin: 0.05)
        var t = 0.0
        while t < 1 { c.add(0.1 + 0.01 * sin(t * 40), at: t); t += 0.01 }  // the rest pose
        while t < 5 { c.add(0.8 * sin((t - 1) * 3), at: t); t += 0.01 }  // the traced range
        c.add(25, at: 5.01)  // one stray jolt
        c.add(.nan, at: 5.02)
        let r = try c.result()
        XCTAssertEqual(r.centre, 0.1, accuracy: 0.01)
        XCTAssertEqual(r.min, -0.8 * 1.1 + 0.04, accuracy: 0.06)
        XCTAssertEqual(r.max, 0.8 * 1.1 - 0.04, accuracy: 0.06)
        XCTAssertLessThan(r.max, 1, "one stray reading widened the range")
    }

    func testTooFewReadingsOrNoMovementAreClearErrors() {
        var c = RangeCalibration()
        for k in 0..<5 { c.add(0.2, at: Double(k) * 0.1) }
        XCTAssertThrowsError(try c.result()) { XCTAssertTrue("\($0)".contains("only 5 readings")) }
        var still = RangeCalibration(restSeconds: 0.1)
        for k in 0..<100 { still.add(0.2, at: Double(k) * 0.02) }
        XCTAssertThrowsError(try still.result()) { XCTAssertTrue("\($0)".contains("move through")) }
    }
}
