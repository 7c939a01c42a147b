@testable import SensorWahJack
import XCTest

/// The process callback's timer (SENSORWAH_JACK_TIMING): worst, which callback it was, quantiles.
final class CallbackTimerTests: XCTestCase {
    func testWorstAndWhichCallbackItWas() {
        var t = CallbackTimer()
        defer { t.destroy() }
        for n: UInt64 in [9_000, 10_000, 1_017_000, 9_500, 1_017_000, 8_000] { t.record(n) }
        XCTAssertEqual(t.count, 6)
        XCTAssertEqual(t.maxNanos, 1_017_000)
        XCTAssertEqual(t.maxAt, 3, "the first callback that took the worst time")
        XCTAssertEqual(t.quantileNanos(0.5), 10_000)  // upper edge of the median's 0.5 µs bucket
        t.clear()
        XCTAssertEqual(t.maxAt, 0)
        t.record(1)
        XCTAssertEqual(t.maxAt, 1)
    }
}
