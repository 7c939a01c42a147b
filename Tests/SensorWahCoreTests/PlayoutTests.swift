import XCTest
@testable import SensorWahCore

/// The sender's clock mapped from its readings alone, and the playout that releases each
/// reading at its own time plus a delay, against a seeded delivery like a venue's Wi-Fi:
/// 2-4 ms on the way plus an exponential tail, a stall of 20-90 ms every few seconds after
/// which the readings held up arrive at once, and a sender clock 60 ppm fast.
final class PlayoutTests: XCTestCase {
    /// SplitMix64: the same delivery on every run.
    struct Seeded {
        var state: UInt64
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
    }

    struct Reading {
        var senderTime: Double
        /// When the sender took it, on the local clock.
        var taken: Double
        var arrival: Double
    }

    /// `seconds` of readings at `rate`, each delivered in order.
    static func wifi(seconds: Double, rate: Double = 100, skew: Double = 60e-6, seed: UInt64 = 1) -> [Reading] {
        var rng = Seeded(state: seed)
        var out: [Reading] = []
        var stallUntil = 0.0, nextStall = 2.0
        var lastArrival = 0.0
        let n = Int(seconds * rate)
        for i in 0..<n {
            let taken = 500 + Double(i) / rate
            let senderTime = 20 + (taken - 500) * (1 + skew)
            if taken >= nextStall + 500 {
                stallUntil = taken + 0.02 + 0.07 * rng.next()
                nextStall += 2 + 4 * rng.next()
            }
            var arrival = taken + 0.002 + 0.002 * rng.next() - 0.0015 * log(1 - rng.next())
            arrival = max(arrival, stallUntil, lastArrival)  // held up, then all at once, in order
            lastArrival = arrival
            out.append(Reading(senderTime: senderTime, taken: taken, arrival: arrival))
        }
        return out
    }

    static func percentile(_ v: [Double], _ q: Double) -> Double { RangeCalibration.percentile(v.sorted(), q) }

    func testTheEnvelopeFindsOffsetAndSkew() {
        var clock = SenderClock()
        let readings = Self.wifi(seconds: 180)
        for r in readings { clock.observe(senderTime: r.senderTime, arrival: r.arrival) }
        XCTAssertEqual(clock.restarts, 1)
        // the fastest deliveries took 2 ms: the envelope is the taking time plus about that
        for r in readings.suffix(1000) {
            XCTAssertEqual(clock.local(r.senderTime) - r.taken, 0.002, accuracy: 0.0005)
        }
        XCTAssertEqual(clock.slope, -60e-6, accuracy: 10e-6, "local runs slower than the sender by its 60 ppm")
    }

    /// The app restarts its clock at 0 while it streams: the mapping carries on across the jump
    /// (the jumping reading follows the previous one by the sender's usual step). The same
    /// after the stream paused for 5 s: it starts over.
    func testAJumpOfTheSendersClockIsBridgedWhileItStreamsAndStartsOverAfterAPause() {
        for pause in [0.0, 5.0] {
            var clock = SenderClock()
            for i in 0..<500 { clock.observe(senderTime: Double(i) / 100, arrival: 100 + Double(i) / 100 + 0.003) }
            XCTAssertEqual(clock.restarts, 1)
            for i in 0..<100 {
                clock.observe(senderTime: Double(i) / 100, arrival: 105 + pause + Double(i) / 100 + 0.003)
            }
            XCTAssertEqual(clock.restarts, pause == 0 ? 1 : 2)
            XCTAssertEqual(clock.bridges, pause == 0 ? 1 : 0)
            XCTAssertEqual(clock.local(0.5), 105.503 + pause, accuracy: 1e-9)
        }
    }

    /// Over a Wi-Fi-like delivery, a sender clock that steps back 3 s mid-stream leaves the
    /// envelope where it was: every reading after the step maps onto its taking time plus the
    /// fastest delivery, as before it.
    func testTheEnvelopeHoldsAcrossAJumpOfTheSendersClock() {
        var clock = SenderClock()
        var readings = Self.wifi(seconds: 120, seed: 3)
        for i in readings.indices where readings[i].taken >= 560 { readings[i].senderTime -= 3 }
        for r in readings { clock.observe(senderTime: r.senderTime, arrival: r.arrival) }
        XCTAssertEqual(clock.restarts, 1)
        XCTAssertEqual(clock.bridges, 1)
        for r in readings.suffix(1000) {
            XCTAssertEqual(clock.local(r.senderTime) - r.taken, 0.002, accuracy: 0.0005)
        }
    }

    /// Lateness against the taking time of what `playout` releases, after the first `skip`.
    static func play(_ readings: [Reading], _ playout: inout Playout, skip: Int) -> [Double] {
        var out: [Double] = []
        var lastRelease = -Double.infinity
        for (i, r) in readings.enumerated() {
            let d = playout.schedule(senderTime: r.senderTime, arrival: r.arrival)
            precondition(d.release >= r.arrival && d.release >= lastRelease)
            lastRelease = d.release
            if i >= skip { out.append(d.release - r.taken) }
        }
        return out
    }

    /// A delay the delivery allows, held: every reading leaves at its own time plus the
    /// delay, so the output's lateness varies by at most 1 ms between its 1st and 99th
    /// percentiles while the delivery's varies by tens of ms, over 5 minutes of a sender
    /// clock 60 ppm fast.
    func testAHeldDelayEvensOutTheDelivery() {
        let readings = Self.wifi(seconds: 300, seed: 7)
        let delivered = readings.map { $0.arrival - $0.taken }
        var playout = Playout(mode: .fixed(Self.percentile(delivered, 0.995)))
        let out = Self.play(readings, &playout, skip: 1000)
        let spreadIn = Self.percentile(delivered, 0.99) - Self.percentile(delivered, 0.01)
        let spreadOut = Self.percentile(out, 0.99) - Self.percentile(out, 0.01)
        XCTAssertGreaterThan(spreadIn, 0.01)
        XCTAssertLessThanOrEqual(spreadOut, 0.001, "delivery \(spreadIn * 1000) ms, output \(spreadOut * 1000) ms")
        XCTAssertLessThanOrEqual(Double(playout.lateCount) / Double(playout.count), 0.01)
    }

    /// `auto` looks for such a delay by itself: it aims at 99 % of the readings in time (98.5 %
    /// at least, warm-up minute included) and evens the delivery out, keeping order; after the
    /// first minute it holds its delay (on these deliveries it never moves again). Not reached
    /// on every seed (so not asserted): an output spread within 1 ms with a median within the
    /// delivery's 99th percentile plus 5 ms (docs/performance.md has the figures).
    func testAutoLetsTheReadingsArriveInTimeAndHoldsItsDelay() {
        for seed: UInt64 in [1, 7, 11] {
            let readings = Self.wifi(seconds: 300, seed: seed)
            let delivered = readings.map { $0.arrival - $0.taken }
            var playout = Playout(mode: .auto)
            var out: [Double] = []
            var delays = Set<Double>()
            var lastRelease = -Double.infinity
            for (i, r) in readings.enumerated() {
                let d = playout.schedule(senderTime: r.senderTime, arrival: r.arrival)
                XCTAssertGreaterThanOrEqual(d.release, max(r.arrival, lastRelease))
                lastRelease = d.release
                if i > 6100 {
                    out.append(d.release - r.taken)
                    delays.insert(playout.delay)
                }
            }
            XCTAssertLessThanOrEqual(Double(playout.lateCount) / Double(playout.count), 0.015, "seed \(seed)")
            XCTAssertEqual(delays.count, 1, "seed \(seed): the delay moved after the first minute: \(delays)")
            let spreadIn = Self.percentile(delivered, 0.99) - Self.percentile(delivered, 0.01)
            let spreadOut = Self.percentile(out, 0.99) - Self.percentile(out, 0.01)
            XCTAssertLessThan(spreadOut, spreadIn / 4, "seed \(seed)")
        }
    }

    /// A fixed delay: every reading at its time plus the delay; one later than that plays at
    /// once and is counted.
    func testAFixedDelayPlaysLateReadingsAtOnce() {
        var playout = Playout(mode: .fixed(0.010))
        var releases: [Double] = []
        for i in 0..<200 {
            let taken = Double(i) / 100
            let arrival = taken + (i == 150 ? 0.050 : 0.002 + 0.001 * Double(i % 3))
            let d = playout.schedule(senderTime: taken, arrival: arrival)
            XCTAssertEqual(d.late, i == 150)
            releases.append(d.release)
        }
        XCTAssertEqual(playout.lateCount, 1)
        XCTAssertEqual(releases[100] - releases[99], 0.01, accuracy: 1e-9)
        XCTAssertEqual(releases[120] - 1.2, 0.012, accuracy: 1e-9, "the envelope (2 ms) plus the delay")
        XCTAssertEqual(releases[150], 1.55, accuracy: 1e-9, "late: at its arrival")
        XCTAssertGreaterThanOrEqual(releases[151], releases[150], "and the next waits its turn")
    }

    func testOffPlaysEachReadingAsItArrives() {
        var playout = Playout(mode: .off)
        XCTAssertEqual(playout.schedule(senderTime: 3, arrival: 7).release, 7)
        XCTAssertEqual(playout.schedule(senderTime: .nan, arrival: 8).release, 8)
    }
}

extension PlayoutTests {
    /// `--playout` and the config key: off, auto, or milliseconds; what the live view writes back.
    func testModesAreReadAndWrittenAsTheOptionTakesThem() {
        XCTAssertEqual(Playout.Mode(parsing: "off"), .off)
        XCTAssertEqual(Playout.Mode(parsing: "AUTO"), .auto)
        XCTAssertEqual(Playout.Mode(parsing: "25"), .fixed(0.025))
        XCTAssertEqual(Playout.Mode(parsing: "12.5 ms"), .fixed(0.0125))
        XCTAssertEqual(Playout.Mode(parsing: "0"), .fixed(0))
        for bad in ["", "soon", "-3", "1001", "nan", "inf", "25s"] {
            XCTAssertNil(Playout.Mode(parsing: bad), bad)
        }
        for m in [Playout.Mode.off, .auto, .fixed(0.025), .fixed(0.0125)] {
            XCTAssertEqual(Playout.Mode(parsing: m.text), m, m.text)
        }
        XCTAssertEqual(Playout.Mode.fixed(0.025).text, "25 ms")
    }

    /// Changing the way a sender plays keeps what was learnt of its clock: the next reading's
    /// release is its mapped time plus the new delay, with no new start.
    func testChangingTheModeKeepsTheClock() {
        var p = Playout(mode: .fixed(0.010))
        for i in 0..<300 {
            let t = Double(i) / 100
            _ = p.schedule(senderTime: t, arrival: 50 + t + 0.002 + 0.001 * Double(i % 4))
        }
        let restarts = p.clock.restarts
        p.set(.fixed(0.030))
        let d = p.schedule(senderTime: 3, arrival: 53.004)
        XCTAssertEqual(d.release, 53.002 + 0.030, accuracy: 1e-6)
        XCTAssertEqual(p.clock.restarts, restarts)
        XCTAssertEqual(p.delay, 0.030)
        XCTAssertEqual(p.lateness(quantile: 0.99) - p.lateness(quantile: 0.01), 0.003, accuracy: 0.0011)
    }
}
