import XCTest
@testable import SensorWahEngine

/// When the output thread should be awake for the next line: a window around the read that is
/// due while one sender sends steadily, none otherwise.
final class ArrivalForecastTests: XCTestCase {
    /// A repeatable jitter in -1...1.
    struct Jitter {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
    }

    /// Reads `period` ns apart, each interval off by up to `jitter` ns (a phone's own clock and
    /// the network), as the pump sees them; returns how many reads fell inside the window the
    /// forecast gave for them, how many had a window, and the forecast.
    func feed(count: Int, period: Double, jitter: Double, seed: UInt64 = 7) -> (
        caught: Int, windows: Int, forecast: ArrivalForecast
    ) {
        var f = ArrivalForecast()
        var j = Jitter(state: seed)
        var t: Double = 1e9
        var caught = 0, windows = 0
        for _ in 0..<count {
            let now = UInt64(t)
            if let w = f.window {
                windows += 1
                if now >= w.from && now <= w.until { caught += 1 }
            }
            f.note(at: now)
            t += period + jitter * j.next()
        }
        return (caught, windows, f)
    }

    /// A steady 100 Hz sender whose intervals vary by ±0.5 ms (as the bundled phone logs and
    /// `stream` replaying them do): a window within a fifth of a second, about ±0.7 ms wide,
    /// that catches nearly every read.
    func testASteadySenderGetsAWindowThatCatchesItsReads() {
        let (caught, windows, f) = feed(count: 3000, period: 10_000_000, jitter: 500_000)
        XCTAssertGreaterThan(windows, 3000 - 20)
        XCTAssertGreaterThan(Double(caught) / Double(windows), 0.98, "caught \(caught) of \(windows)")
        XCTAssertEqual(f.period, 10_000_000, accuracy: 200_000)
        let w = try! XCTUnwrap(f.halfWidth)
        XCTAssertGreaterThan(w, 500_000)
        XCTAssertLessThanOrEqual(w, 1_000_000, "at most a tenth of the interval either side")
        // a sender with no jitter at all: the narrowest window, the margin alone
        let exact = feed(count: 200, period: 10_000_000, jitter: 0)
        XCTAssertEqual(exact.caught, exact.windows)
        XCTAssertEqual(try XCTUnwrap(exact.forecast.halfWidth), 200_000, accuracy: 5_000)
    }

    /// Wi-Fi delivery (bursts, intervals off by milliseconds) would need a window wider than
    /// a tenth of the interval: none, so nothing is spent on it.
    func testAnIrregularSenderGetsNoWindow() {
        let (_, windows, f) = feed(count: 500, period: 10_000_000, jitter: 4_000_000)
        XCTAssertLessThan(windows, 25, "windows \(windows)")
        XCTAssertNil(f.halfWidth)
    }

    /// A slow sender (10 Hz) whose intervals vary by ±2 ms: a tenth of its interval would allow
    /// it, but no window is wider than 1 ms either side (a spin of up to 20 ms a read).
    func testNoWindowIsWiderThanAMillisecondEitherSide() {
        let slow = feed(count: 300, period: 100_000_000, jitter: 2_000_000)
        XCTAssertLessThan(slow.windows, 20, "windows \(slow.windows)")
        // the same sender with ±0.3 ms: a window, narrower than the limit
        let steady = feed(count: 300, period: 100_000_000, jitter: 300_000)
        XCTAssertGreaterThan(steady.windows, 280)
        XCTAssertLessThanOrEqual(try XCTUnwrap(steady.forecast.halfWidth), 1_000_000)
    }

    /// Two senders interleaved: the reads alternate 3 and 7 ms apart, no window.
    func testInterleavedSendersGetNoWindow() {
        var f = ArrivalForecast()
        var t: UInt64 = 1_000_000_000
        for i in 0..<400 {
            f.note(at: t)
            t += i % 2 == 0 ? 3_000_000 : 7_000_000
        }
        XCTAssertNil(f.window)
    }

    /// A flood (reads under 2 ms apart) or a pause (over a second) breaks the run: no window
    /// until eight regular intervals have followed it.
    func testAFloodOrAPauseStartsTheRunAgain() {
        var f = ArrivalForecast()
        var t: UInt64 = 1_000_000_000
        func steady(_ n: Int) { for _ in 0..<n { f.note(at: t); t += 10_000_000 } }
        steady(20)
        XCTAssertNotNil(f.window)
        for _ in 0..<5 { f.note(at: t); t += 500_000 }
        XCTAssertNil(f.window, "a flood")
        steady(8)
        XCTAssertNil(f.window, "seven intervals after the flood")
        steady(4)
        XCTAssertNotNil(f.window)
        t += 2_000_000_000
        steady(1)
        XCTAssertNil(f.window, "after a pause")
        steady(7)
        XCTAssertNil(f.window, "seven intervals after the pause")
        steady(4)
        XCTAssertNotNil(f.window)
    }

    /// The window is around the read after the last one: `period` after it.
    func testTheWindowIsAroundTheNextRead() throws {
        var f = ArrivalForecast()
        var t: UInt64 = 5_000_000_000
        for _ in 0..<60 { f.note(at: t); t += 20_000_000 }
        let last = t - 20_000_000
        let w = try XCTUnwrap(f.window)
        XCTAssertEqual(Double(w.from), Double(last + 20_000_000 - 200_000), accuracy: 5_000)
        XCTAssertEqual(Double(w.until), Double(last + 20_000_000 + 200_000), accuracy: 5_000)
    }

    /// A line lost on the way (one interval twice as long) closes the window for a while; the
    /// steady reads after it open it again.
    func testAMissedLineClosesTheWindowForAWhile() {
        var f = ArrivalForecast()
        var t: UInt64 = 1_000_000_000
        var j = Jitter(state: 3)
        func note() { f.note(at: t); t += UInt64(10_000_000 + 300_000 * j.next()) }
        for _ in 0..<50 { note() }
        XCTAssertNotNil(f.window)
        t += 10_000_000
        note()
        XCTAssertNil(f.window, "right after the gap")
        var reopened: Int?
        for i in 1...40 { note(); if reopened == nil && f.window != nil { reopened = i } }
        XCTAssertNotNil(reopened)
        XCTAssertLessThanOrEqual(reopened ?? 99, 30)
    }
}
