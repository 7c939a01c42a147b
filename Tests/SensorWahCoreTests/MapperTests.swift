import XCTest
@testable import SensorWahCore

/// Event tables in the manner of mididings: frames in, the exact MIDI messages out.
final class MapperTests: XCTestCase {
    /// Runs (time, accel.x) readings through a mapping; returns (time, value) per message.
    func table(_ m: Mapping, _ input: [(Double, Double)], source: Quantity = .accelX) -> [Pair] {
        var mapper = Mapper(mappings: [m])
        var out: [Pair] = []
        for (t, x) in input {
            var f = SensorFrame()
            f.newGroups = source.group.bit
            f.times[source.group.rawValue] = t
            f[source] = x
            mapper.process(f) { out.append(Pair(t: $0.time, v: Int($0.midi!.value))) }
        }
        mapper.flush { out.append(Pair(t: $0.time, v: Int($0.midi!.value))) }
        return out
    }

    struct Pair: Equatable, CustomStringConvertible {
        var t: Double; var v: Int
        var description: String { "(\(t), \(v))" }
    }
    func p(_ t: Double, _ v: Int) -> Pair { Pair(t: t, v: v) }

    func raw(_ text: String) throws -> Mapping {
        var m = try Mapping(parsing: text)
        m.smoothing = 0
        return m
    }

    /// The default is the fused tilt re-zeroed at start (`tilt.x zero cc=11`), bipolar on CC 11.
    func testDefaultMappingIsTheReZeroedTiltToCC11Channel1Bipolar() throws {
        let m = Mapping.default
        XCTAssertEqual(m.source, .axis(.zeroX))
        XCTAssertEqual(m, try Mapping(parsing: "tilt.x zero cc=11"))
        XCTAssertEqual(m.target, .controlChange(channel: 0, controller: 11))
        XCTAssertTrue(m.bipolar)
        XCTAssertEqual(m.rest, 64)
    }

    func testBipolarNormalisationRestIsExactly64() throws {
        let m = try raw("accel.x cc=11 speed=none")
        XCTAssertEqual(
            table(m, [(0, 0), (0.01, 1), (0.02, -1), (0.03, 0.5), (0.04, -0.5), (0.05, 0)]),
            [p(0, 64), p(0.01, 127), p(0.02, 0), p(0.03, 96), p(0.04, 32), p(0.05, 64)])
    }

    func testAsymmetricRangeStillRestsAtTheCentre() throws {
        let m = try raw("accel.x cc=1 range=-0.5..2 centre=0 speed=none")
        XCTAssertEqual(table(m, [(0, 0), (0.01, 2), (0.02, -0.5), (0.03, 1)]).map(\.v), [64, 127, 0, 96])
    }

    func testClampingToTheInputRange() throws {
        let m = try raw("accel.x cc=11 speed=none")
        XCTAssertEqual(table(m, [(0, 1.8), (0.01, -2.2), (0.02, 1.01)]).map(\.v), [127, 0, 127])
    }

    func testUnipolarInvertAndDeadZone() throws {
        let m = try raw("accel.x cc=7 unipolar range=0..1 invert deadzone=0.1 speed=none")
        // inverted: 1.0 -> 0, 0.0 -> 127; dead zone: inverted u below 0.1 outputs 0
        XCTAssertEqual(table(m, [(0, 1.0), (0.01, 0.95), (0.02, 0.0), (0.03, 0.45)]).map(\.v), [0, 127, 64])
    }

    func testBipolarDeadZoneAroundTheCentre() throws {
        let m = try raw("accel.x cc=11 deadzone=0.2 speed=none")
        XCTAssertEqual(
            table(m, [(0, 0.5), (0.01, 0.15), (0.02, -0.19), (0.03, 1), (0.04, 0.7)]).map(\.v),
            [64 + 24, 64, 127, 64 + 39])
    }

    func testExponentialAndLogarithmicCurves() throws {
        let e = try raw("accel.x cc=2 unipolar range=0..1 curve=exp:3 speed=none")
        let mid = Int(((exp(1.5) - 1) / (exp(3) - 1) * 127).rounded())
        XCTAssertEqual(table(e, [(0, 0), (0.01, 0.5), (0.02, 1)]).map(\.v), [0, mid, 127])
        let l = try raw("accel.x cc=2 unipolar range=0..1 curve=log:3 speed=none")
        let lmid = Int((log(1 + 0.5 * (exp(3) - 1)) / 3 * 127).rounded())
        XCTAssertEqual(table(l, [(0, 0), (0.01, 0.5), (0.02, 1)]).map(\.v), [0, lmid, 127])
        XCTAssertLessThan(mid, 64); XCTAssertGreaterThan(lmid, 64)
    }

    func testFourteenBitAndPitchBend() throws {
        var mapper = Mapper(mappings: [
            try raw("accel.x cc14=1 ch=2 speed=none"), try raw("accel.x bend ch=16 speed=none")
        ])
        var events: [MIDIEvent] = []
        for (t, x) in [(0.0, 0.0), (0.01, 1.0), (0.02, -1.0)] {
            var f = SensorFrame(); f.newGroups = 1; f.times[0] = t; f[.accelX] = x
            mapper.process(f) { events.append($0.midi!) }
        }
        XCTAssertEqual(events.map(\.value), [8192, 8192, 16383, 16383, 0, 0])
        XCTAssertEqual(events[0].kind, .controlChange14)
        XCTAssertEqual(events[0].channel, 1)
        XCTAssertEqual(events[1].kind, .pitchBend)
        XCTAssertEqual(events[1].channel, 15)
        var bytes = [UInt8](repeating: 0, count: 6)
        XCTAssertEqual(events[2].encode(into: &bytes), 6)
        XCTAssertEqual(bytes, [0xB1, 1, 127, 0xB1, 33, 127])
        XCTAssertEqual(events[3].encode(into: &bytes), 3)
        XCTAssertEqual(Array(bytes[0..<3]), [0xEF, 0x7F, 0x7F])
    }

    func testEmitsOnlyWhenTheValueChanges() throws {
        let m = try raw("accel.x cc=11")
        XCTAssertEqual(table(m, [(0, 0), (0.01, 0.001), (0.02, 0.002), (0.03, 0.5), (0.04, 0.5)]).map(\.v), [64, 96])
    }

    func testOutOfBoundReadingsAreDroppedNotClamped() throws {
        let m = try raw("accel.x cc=11 reject=2.5")
        var mapper = Mapper(mappings: [m])
        var values: [Int] = []
        for (t, x) in [(0.0, 0.5), (0.01, 3.6), (0.02, -3.9), (0.03, 0.5), (0.04, 1e308)] {
            var f = SensorFrame(); f.newGroups = 1; f.times[0] = t; f[.accelX] = x
            mapper.process(f) { values.append(Int($0.midi!.value)) }
        }
        XCTAssertEqual(values, [96], "spikes never reach the output, not even clamped to 127/0")
        XCTAssertEqual(mapper.stats.outOfBounds, 3)
    }

    func testImplausibleJumpIsDroppedButASustainedChangeIsAccepted() throws {
        let m = try raw("accel.x cc=11 reject=none")  // default speed for accel: 40 G/s + 0.3 G
        // 100 Hz: allowed jump 0.7 G per sample. One-sample glitch of +2 G: dropped.
        let glitch = table(m, [(0, 0), (0.01, 2.0), (0.02, 0.0), (0.03, 0.005)])
        XCTAssertEqual(glitch.map(\.v), [64])
        // a level change that persists for 3 samples is real
        let step = table(m, [(0, -1), (0.01, 1), (0.02, 1), (0.03, 1), (0.04, 1)])
        XCTAssertEqual(step, [p(0, 0), p(0.03, 127)])
    }

    func testJumpRuleScalesWithTheSampleInterval() throws {
        let m = try raw("accel.x cc=11 reject=none")
        // a 1 G move in one sample is implausible at 100 Hz but fine at 20 Hz (allowed 2.3 G)
        XCTAssertEqual(table(m, [(0, 0), (0.01, 1.0)]).map(\.v), [64])
        XCTAssertEqual(table(m, [(0, 0), (0.05, 1.0)]).map(\.v), [64, 127])
    }

    func testNaNAndInfinityNeverReachTheOutput() throws {
        let m = try raw("accel.x cc=11 reject=none speed=none")
        var mapper = Mapper(mappings: [m])
        var values: [Int] = []
        for (t, x) in [(0.0, 0.5), (0.01, Double.nan), (0.02, .infinity), (0.03, -.infinity), (0.04, -0.5)] {
            var f = SensorFrame(); f.newGroups = 1; f.times[0] = t; f[.accelX] = x
            mapper.process(f) { values.append(Int($0.midi!.value)) }
        }
        XCTAssertEqual(values, [96, 32])
        XCTAssertEqual(mapper.stats.nonFinite, 2)
    }

    func testRateLimitDelaysButNeverLosesTheLatestValue() throws {
        let m = try raw("accel.x cc=11 rate=10 speed=none")  // at most one message per 100 ms
        let out = table(m, [(0, 0), (0.01, 0.2), (0.02, 0.4), (0.05, 0.6), (0.12, 0.6), (0.13, 0.8), (0.14, 1)])
        // 0 at t=0; 0.6 (the latest by then) at t=0.1; 1.0 held back and flushed at t=0.2
        XCTAssertEqual(out, [p(0, 64), p(0.1, 102), p(0.2, 127)])
    }

    func testOnlyFramesCarryingTheSourceGroupAreUsed() throws {
        let m = try raw("gyro.z cc=20")
        var mapper = Mapper(mappings: [m])
        var count = 0
        var f = SensorFrame(); f.newGroups = SensorGroup.accelerometer.bit; f[.gyroZ] = 3
        mapper.process(f) { _ in count += 1 }
        XCTAssertEqual(count, 0, "stale gyro values in an accelerometer-only frame are ignored")
        f.newGroups = SensorGroup.gyro.bit
        mapper.process(f) { _ in count += 1 }
        XCTAssertEqual(count, 1)
    }

    func testMagnitudeAndAttitudeSources() throws {
        let m = try raw("accel.mag cc=3 range=0..2")
        var mapper = Mapper(mappings: [m, try raw("pitch cc=4")])
        var got: [Int] = []
        var f = SensorFrame(); f.newGroups = 1 | 4; f[.accelX] = 0.6; f[.accelY] = 0.8; f[.accelZ] = 0;
        f[.pitch] = Double.pi / 4
        mapper.process(f) { got.append(Int($0.midi!.value)) }
        XCTAssertEqual(got, [64, 96])
    }

    func testSenderRestrictedMapping() throws {
        var m = try raw("accel.x cc=11"); m.sender = "watch"
        var mapper = Mapper(mappings: [m])
        var got = 0
        var f = SensorFrame(); f.newGroups = 1; f[.accelX] = 1
        mapper.process(f, sender: "phone") { _ in got += 1 }
        XCTAssertEqual(got, 0)
        mapper.process(f, sender: "watch") { _ in got += 1 }
        XCTAssertEqual(got, 1)
    }

    func testRestSendsEachControllerItsRestValueOnce() throws {
        var mapper = Mapper(mappings: [try raw("accel.x cc=11"), try raw("accel.y cc=12 unipolar range=0..1 rest=5")])
        var f = SensorFrame(); f.newGroups = 1; f[.accelX] = 1; f[.accelY] = 1
        var got: [MIDIEvent] = []
        mapper.process(f) { got.append($0.midi!) }
        mapper.rest(at: 1) { got.append($0.midi!) }
        mapper.rest(at: 2) { got.append($0.midi!) }
        XCTAssertEqual(got.map(\.value), [127, 127, 64, 5])
        XCTAssertEqual(got.map(\.controller), [11, 12, 11, 12])
    }

    // MARK: smoothing

    /// Time for the output to go from rest to 90% of a full-scale step.
    func riseTime(rate: Double) throws -> Double {
        let m = try Mapping(parsing: "accel.x cc=11 smooth=40 beta=0 reject=none speed=none")
        var input: [(Double, Double)] = [(0, 0)]
        var t = 0.0
        while t < 1 { t += 1 / rate; input.append((t, 1)) }
        let out = table(m, input)
        let hit = out.first { $0.v >= 64 + Int(0.9 * 63) }!
        return hit.t - 1 / rate
    }

    func testSmoothingTimeConstantIsTheSameAt30And100Hz() throws {
        let fast = try riseTime(rate: 100), slow = try riseTime(rate: 30)
        // a 40 ms one-pole reaches 90% after about 2.3 tau = 92 ms
        XCTAssertEqual(fast, 0.092, accuracy: 0.015)
        XCTAssertEqual(slow, fast, accuracy: 1 / 30 + 0.01, "same behaviour within one 30 Hz sample")
    }

    func testOneEuroIsCalmAtRestAndQuickOnFastMoves() throws {
        var rng = SeededRandom(seed: 3)
        let m = try Mapping(parsing: "accel.x cc=11 smooth=40 beta=0.5")
        // rest with ±0.02 G noise: the raw mapping would flicker, the smoothed one barely moves
        var noisy: [(Double, Double)] = []
        for i in 0..<300 { noisy.append((Double(i) * 0.01, (Double(rng.next() % 1000) / 1000 - 0.5) * 0.04)) }
        var rawM = m; rawM.smoothing = 0
        let calm = table(m, noisy).count, jittery = table(rawM, noisy).count
        XCTAssertLessThan(calm * 3, jittery)
        // a fast sweep: with beta the lag is shorter than without
        var sweep: [(Double, Double)] = []
        for i in 0...30 { sweep.append((Double(i) * 0.01, Double(i) / 30)) }
        var noBeta = m; noBeta.beta = 0
        let lagBeta = 127 - table(m, sweep).last!.v, lagNone = 127 - table(noBeta, sweep).last!.v
        XCTAssertLessThan(lagBeta, lagNone)
    }

    // MARK: syntax

    func testMappingSyntaxErrorsAreClear() {
        XCTAssertThrowsError(try Mapping(parsing: "elbow.x cc=11")) {
            XCTAssertTrue("\($0)".contains("unknown source"))
        }
        XCTAssertThrowsError(try Mapping(parsing: "accel.x cc=200")) { XCTAssertTrue("\($0)".contains("0-127")) }
        XCTAssertThrowsError(try Mapping(parsing: "accel.x ch=17")) { XCTAssertTrue("\($0)".contains("1-16")) }
        XCTAssertThrowsError(try Mapping(parsing: "accel.x range=1..-1"))
        XCTAssertThrowsError(try Mapping(parsing: "accel.x wobble=3")) {
            XCTAssertTrue("\($0)".contains("unknown option"))
        }
        let m = try? Mapping(
            parsing: "gyro.z, cc14=2, ch=3, range=-2.5..2.5, smooth=25ms, curve=exp:2, rate=50, rest=100")
        XCTAssertEqual(m?.target, .controlChange14(channel: 2, controller: 2))
        XCTAssertEqual(m?.inputMin, -2.5)
        XCTAssertEqual(m?.smoothing ?? 0, 0.025, accuracy: 1e-12)
        XCTAssertEqual(m?.curve, .exponential(2))
        XCTAssertEqual(m?.rest, 100)
    }

    func testJSONLineFormat() {
        XCTAssertEqual(
            JSONLine.string(.cc(11, 64, channel: 0, at: 1.234)), #"{"t":1.234,"type":"cc","ch":1,"cc":11,"value":64}"#)
        XCTAssertEqual(
            JSONLine.string(MIDIEvent(time: 0.0004, kind: .controlChange14, channel: 15, controller: 1, value: 16383)),
            #"{"t":0.000,"type":"cc14","ch":16,"cc":1,"value":16383}"#)
        XCTAssertEqual(
            JSONLine.string(MIDIEvent(time: 12345.6789, kind: .pitchBend, channel: 2, value: 8192)),
            #"{"t":12345.679,"type":"pitchbend","ch":3,"value":8192}"#)
    }

    func testReplayScheduleShortensLongGapsAndAppliesSpeed() {
        var s = ReplaySchedule(speed: 2, maxGap: 1)
        XCTAssertEqual(s.due(0), 0)
        XCTAssertEqual(s.due(0.5), 0.25)
        XCTAssertEqual(s.due(10.5), 0.75, accuracy: 1e-12, "a 10 s pause is cut to 1 s")
        XCTAssertEqual(s.due(11), 1.0, accuracy: 1e-12)
        XCTAssertEqual(s.gapsShortened, 1)
    }
}

final class SuggestionTests: XCTestCase {
    func testTheNearestWordWithinAThirdOfItsLetters() {
        XCTAssertEqual(Suggestion.closest(to: "replya", among: ["replay", "render", "plot"]), "replay")
        XCTAssertEqual(Suggestion.closest(to: "tlit.x", among: Source.names), "tilt.x")
        XCTAssertEqual(Suggestion.closest(to: "SMOTH", among: ["smooth", "speed"]), "smooth")
        XCTAssertNil(Suggestion.closest(to: "elbow.x", among: Source.names))
        XCTAssertNil(Suggestion.closest(to: "x", among: ["y", "z"]), "two equally near: no guess")
        XCTAssertNil(Suggestion.closest(to: "replay", among: ["replay"]), "the word itself is no suggestion")
    }
}
