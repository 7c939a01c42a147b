// Tests of the wah DSP (Sources/SensorWahCore/DSP/Wah.swift), in the manner of the references
// (see notes/wah-and-mapping-references.md): response measured from the impulse response,
// block-size invariance, parameter-step smoothness, bad modulation, NaN reset, denormals,
// bypass, a golden render and agreement with the plain C reference.

import Foundation
import XCTest

@testable import SensorWahCore

#if canImport(CWahReference)
    import CWahReference
#endif

// MARK: - Helpers

/// The wah tests' generator: the target's seeded SplitMix64 with a few signal helpers.
typealias WahTestRNG = SeededRandom

extension SeededRandom {
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
    /// Uniform in [lo, hi].
    mutating func int(_ lo: Int, _ hi: Int) -> Int { lo + Int(next() % UInt64(hi - lo + 1)) }
    /// Uniform noise in [-amplitude, amplitude).
    mutating func noise(_ amplitude: Float = 1) -> Float { Float(unit() * 2 - 1) * amplitude }
}

enum WahTestSignals {
    static let sampleRate = 48_000.0

    static func noise(count: Int, seed: UInt64, amplitude: Float = 0.5) -> [Float] {
        var rng = WahTestRNG(seed: seed)
        return (0..<count).map { _ in rng.noise(amplitude) }
    }

    static func sine(count: Int, frequency: Double, amplitude: Double) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / sampleRate)) }
    }

    /// A processor prepared at 48 kHz with the pedal settled at `pedal`.
    static func settled(_ settings: WahSettings, pedal: Float) -> WahProcessor {
        var wah = WahProcessor(settings: settings)
        wah.prepare(sampleRate: sampleRate)
        wah.setPedal(pedal)
        wah.reset()
        return wah
    }

    static func process(_ wah: inout WahProcessor, _ input: [Float]) -> [Float] {
        var output = [Float](repeating: 0, count: input.count)
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                wah.process(i.baseAddress!, o.baseAddress!, count: input.count)
            }
        }
        return output
    }

    /// Impulse response (as Double) with the pedal held still and the smoother settled.
    static func impulseResponse(_ settings: WahSettings, pedal: Float, length: Int = 16_384) -> [Double] {
        var wah = settled(settings, pedal: pedal)
        var input = [Float](repeating: 0, count: length)
        input[0] = 1
        return process(&wah, input).map(Double.init)
    }

    /// |H(f)| from an impulse response by the Goertzel recurrence (one DFT bin at any f).
    static func magnitude(_ h: [Double], at frequency: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let coefficient = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        h.withUnsafeBufferPointer { hp in
            for x in hp {
                let s0 = x + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
        }
        return (s1 * s1 + s2 * s2 - coefficient * s1 * s2).squareRoot()
    }

    /// Peak of |H| near `guess`: a log-spaced scan over guess/2 ... 2*guess (0.6% steps), then a
    /// golden-section refinement to 1e-4 Hz.
    static func peak(_ h: [Double], near guess: Double) -> (frequency: Double, magnitude: Double) {
        let steps = 240
        let ratio = pow(4.0, 1.0 / Double(steps))
        var best = (index: 0, magnitude: -1.0)
        for j in 0...steps {
            let m = magnitude(h, at: guess / 2 * pow(ratio, Double(j)))
            if m > best.magnitude { best = (j, m) }
        }
        var lo = guess / 2 * pow(ratio, Double(best.index - 1))
        var hi = guess / 2 * pow(ratio, Double(best.index + 1))
        let phi = (5.0.squareRoot() - 1) / 2
        while hi - lo > 1e-4 {
            let a = hi - phi * (hi - lo), b = lo + phi * (hi - lo)
            if magnitude(h, at: a) < magnitude(h, at: b) { lo = a } else { hi = b }
        }
        let f = (lo + hi) / 2
        return (f, magnitude(h, at: f))
    }

    /// The -3 dB edges around a peak, by bisection on each (monotonic) side.
    static func halfPowerEdges(_ h: [Double], peak: (frequency: Double, magnitude: Double)) -> (Double, Double) {
        let level = peak.magnitude / 2.0.squareRoot()
        func bisect(_ below: Double, _ above: Double) -> Double {
            // `below` is outside the band (|H| < level), `above` inside.
            var outside = below, inside = above
            for _ in 0..<60 {
                let mid = (outside + inside) / 2
                if magnitude(h, at: mid) < level { outside = mid } else { inside = mid }
            }
            return (outside + inside) / 2
        }
        let lower = bisect(peak.frequency / 8, peak.frequency)
        let upper = bisect(min(peak.frequency * 8, 0.49 * sampleRate), peak.frequency)
        return (lower, upper)
    }

    /// Q of the TPT band-pass after the bilinear transform: the analogue -3 dB edges
    /// (t^2 -+ (g/Q) t - g^2 = 0 with g = tan(pi fc/fs)) mapped back through f = fs/pi * atan(t).
    static func bilinearQ(centre: Double, q: Double) -> Double {
        let g = tan(Double.pi * centre / sampleRate)
        let root = (g * g / (q * q) + 4 * g * g).squareRoot()
        let upper = atan((g / q + root) / 2) * sampleRate / Double.pi
        let lower = atan((-g / q + root) / 2) * sampleRate / Double.pi
        return centre / (upper - lower)
    }

    enum Split { case oneBlock, perSample, random(seed: UInt64), randomInPlace(seed: UInt64) }
    enum Event { case pedal(Float), bypass(Bool) }

    /// Renders `input` applying `events` at exactly their sample positions, with the processing
    /// between events cut as `split` says.
    static func render(
        _ settings: WahSettings, _ input: [Float], events: [(at: Int, event: Event)], split: Split
    ) -> [Float] {
        var wah = WahProcessor(settings: settings)
        wah.prepare(sampleRate: sampleRate)
        var output = [Float](repeating: 0, count: input.count)
        var rng: WahTestRNG? = nil
        switch split {
        case .random(let seed), .randomInPlace(let seed): rng = WahTestRNG(seed: seed)
        default: break
        }
        var position = 0
        var nextEvent = 0
        while position < input.count {
            while nextEvent < events.count && events[nextEvent].at == position {
                switch events[nextEvent].event {
                case .pedal(let p): wah.setPedal(p)
                case .bypass(let b): wah.settings.bypass = b
                }
                nextEvent += 1
            }
            let segmentEnd = nextEvent < events.count ? min(events[nextEvent].at, input.count) : input.count
            while position < segmentEnd {
                var length = segmentEnd - position
                if rng != nil { length = min(length, rng!.int(1, 700)) }
                switch split {
                case .perSample:
                    output[position] = wah.processSample(input[position])
                    length = 1
                case .oneBlock, .random:
                    input.withUnsafeBufferPointer { i in
                        output.withUnsafeMutableBufferPointer { o in
                            wah.process(i.baseAddress! + position, o.baseAddress! + position, count: length)
                        }
                    }
                case .randomInPlace:
                    output.withUnsafeMutableBufferPointer { o in
                        for k in position..<(position + length) { o[k] = input[k] }
                        wah.process(o.baseAddress! + position, o.baseAddress! + position, count: length)
                    }
                }
                position += length
            }
        }
        return output
    }

    static func firstDifference(_ a: [Float], _ b: [Float]) -> Int? {
        precondition(a.count == b.count)
        return zip(a, b).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }?.offset
    }

    static func maxJump(_ y: [Float], from start: Int = 1, to end: Int? = nil) -> Double {
        var m = 0.0
        for n in max(start, 1)..<(end ?? y.count) { m = max(m, abs(Double(y[n]) - Double(y[n - 1]))) }
        return m
    }

    /// FNV-1a 64 over the output quantised to 16 bits (round(y * 32767), clamped), little-endian.
    static func goldenHash(_ y: [Float]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for sample in y {
            let scaled = (Double(sample) * 32767).rounded()
            let q = UInt16(bitPattern: Int16(max(-32768, min(32767, scaled))))
            hash = (hash ^ UInt64(q & 0xFF)) &* 0x0000_0100_0000_01B3
            hash = (hash ^ UInt64(q >> 8)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The golden render: 1 s of a 110 Hz saw plus seeded noise, pedal targets from a 1.3 Hz LFO
    /// every 64 samples with two abrupt jumps, bypass on at 0.625 s and off at 0.75 s.
    static func goldenRender() -> [Float] {
        let count = 48_000
        var rng = WahTestRNG(seed: 0x5EED_0001)
        let input = (0..<count).map { n -> Float in
            let phase = (Double(n) * 110 / sampleRate).truncatingRemainder(dividingBy: 1)
            return Float(0.3 * (2 * phase - 1)) + rng.noise(0.1)
        }
        var events: [(at: Int, event: Event)] = []
        for n in stride(from: 0, to: count, by: 64) {
            var p = Float(0.5 - 0.5 * cos(2 * Double.pi * 1.3 * Double(n) / sampleRate))
            if n >= 12_000 && n < 12_800 { p = 1 }
            if n >= 20_000 && n < 20_640 { p = 0 }
            events.append((n, .pedal(p)))
        }
        events.append((30_000, .bypass(true)))
        events.append((36_000, .bypass(false)))
        events.sort { $0.at < $1.at }
        return render(WahSettings(), input, events: events, split: .random(seed: 7))
    }
}

// MARK: - Tests

final class WahTests: XCTestCase {
    typealias S = WahTestSignals
    let positions: [Float] = [0, 0.25, 0.5, 0.75, 1]
    /// The svf voice's make-up gain (linear): the last gain of its wet path.
    let makeUp = WahVoice.svf.makeUpGain

    /// The designed laws are the Cry Baby's: fc = heel*(toe/heel)^p, Q = 2^(2(1-p)+1).
    func testDesignedLaws() {
        let s = WahSettings()
        XCTAssertEqual(s.centreFrequency(pedal: 0), 450, accuracy: 1e-9)
        XCTAssertEqual(s.centreFrequency(pedal: 1), 2200, accuracy: 1e-9)
        XCTAssertEqual(s.centreFrequency(pedal: 0.5), (450.0 * 2200).squareRoot(), accuracy: 1e-9)
        for p in stride(from: 0.0, through: 1.0, by: 0.125) {
            XCTAssertEqual(s.q(pedal: p), pow(2, 2 * (1 - p) + 1), accuracy: 1e-12)
        }
        XCTAssertEqual(s.centreFrequency(pedal: -3), 450, accuracy: 1e-9)
        XCTAssertEqual(s.centreFrequency(pedal: .nan), 450, accuracy: 1e-9)
        XCTAssertEqual(s.q(pedal: 9), 2, accuracy: 1e-12)
    }

    /// The per-sample approximations (polynomial exp2, Taylor tan) against libm.
    func testApproximationsAgainstLibm() {
        var worstExp = 0.0
        for i in -4000...4000 {
            let y = Double(i) * 0.005  // -20 ... 20
            worstExp = max(worstExp, abs(WahProcessor.fastExp2(y) / exp2(y) - 1))
        }
        XCTAssertLessThan(worstExp, 1e-8)
        var worstTan = 0.0, worstTanWahRange = 0.0
        var co = WahProcessor.Coefficients()
        co.angleSpan = 0  // fastExp2(0) == 1 exactly: laws(0, co) sees w = angleHeel
        co.kHeel = 0.5
        for i in 0...2000 {
            let w = 1e-4 * pow(0.49 * Double.pi / 1e-4, Double(i) / 2000)  // 1e-4 ... 0.49 pi
            co.angleHeel = w
            let c = WahProcessor.laws(0, co)
            let g = c.a2 / c.a1  // = sn / cs, the approximation of tan(w)
            let error = abs(g / tan(w) - 1)
            worstTan = max(worstTan, error)
            if w < Double.pi * 4000 / 48_000 { worstTanWahRange = max(worstTanWahRange, error) }
        }
        XCTAssertLessThan(worstTan, 1e-6, "up to 0.49 fs")
        XCTAssertLessThan(worstTanWahRange, 1e-12, "below 4 kHz at 48 kHz")
    }

    /// (a) Peak of the measured magnitude response within 3% (in fact 0.05%) of the design.
    func testMeasuredCentreFrequencyFollowsLaw() {
        let settings = WahSettings(levelCompensation: 0)
        for p in positions {
            let design = settings.centreFrequency(pedal: Double(p))
            let h = S.impulseResponse(settings, pedal: p)
            let peak = S.peak(h, near: design)
            let error = abs(peak.frequency / design - 1)
            XCTAssertLessThan(error, 0.03, "pedal \(p): measured \(peak.frequency) Hz, designed \(design) Hz")
            XCTAssertLessThan(error, 0.0005, "pedal \(p): measured \(peak.frequency) Hz, designed \(design) Hz")
            // Unity-peak band-pass (k * bp) when the level law is off, times the make-up gain.
            XCTAssertEqual(peak.magnitude / makeUp, 1, accuracy: 0.002, "peak gain at pedal \(p)")
        }
    }

    /// (b) Measured Q = centre / -3 dB bandwidth follows the designed law.
    ///
    /// Tolerance: the bilinear transform (TPT integrators) pre-warps the centre exactly but squeezes
    /// the bandwidth, so the digital Q is above the analogue design by up to +1.7% at 2.2 kHz /
    /// 48 kHz (Q 2). The measurement itself resolves the edges to ~1e-6 relative. So: within 5%
    /// of the designed law (1.7% warping plus margin), and within 0.2% of the exact bilinear
    /// prediction, which pins the implementation down.
    func testMeasuredQFollowsLaw() {
        let settings = WahSettings(levelCompensation: 0)
        for p in positions {
            let design = settings.q(pedal: Double(p))
            let centre = settings.centreFrequency(pedal: Double(p))
            let h = S.impulseResponse(settings, pedal: p)
            let peak = S.peak(h, near: centre)
            let (lower, upper) = S.halfPowerEdges(h, peak: peak)
            let measured = peak.frequency / (upper - lower)
            XCTAssertEqual(measured / design, 1, accuracy: 0.05, "pedal \(p): Q \(measured), designed \(design)")
            let warped = S.bilinearQ(centre: centre, q: design)
            XCTAssertEqual(measured / warped, 1, accuracy: 0.002, "pedal \(p): Q \(measured), bilinear \(warped)")
        }
    }

    /// The level law: peak gain (Q/Qg)^(levelCompensation/2) times the make-up gain; +3 dB heel,
    /// -3 dB toe at full strength.
    func testLevelCompensationLaw() {
        for level in [1.0, 0.5] {
            let settings = WahSettings(levelCompensation: level)
            let qg = (settings.heelQ * settings.toeQ).squareRoot()
            for p in positions {
                let h = S.impulseResponse(settings, pedal: p)
                let peak = S.peak(h, near: settings.centreFrequency(pedal: Double(p)))
                let expected = pow(settings.q(pedal: Double(p)) / qg, level / 2) * makeUp
                XCTAssertEqual(peak.magnitude / expected, 1, accuracy: 0.002, "level \(level) pedal \(p)")
            }
        }
        // outputGain and mix scale the effect; mix 0 is the dry signal times outputGain.
        var dry = S.settled(WahSettings(outputGain: 0.5, mix: 0), pedal: 0.3)
        let x = S.noise(count: 256, seed: 3)
        let y = S.process(&dry, x)
        for n in 0..<x.count { XCTAssertEqual(y[n], x[n] * 0.5) }
    }

    /// (c) One block, sample by sample, random splits and random in-place splits: bit-identical.
    func testBlockSizeInvariance() {
        let count = 24_000
        let input = S.noise(count: count, seed: 42)
        var rng = WahTestRNG(seed: 99)
        var events: [(at: Int, event: S.Event)] = []
        var n = 0
        while n < count {
            let lfo = Float(0.5 + 0.6 * sin(Double(n) / 900))  // also leaves 0...1 a little
            events.append((n, .pedal(rng.int(0, 9) == 0 ? Float(rng.unit()) : lfo)))
            n += rng.int(1, 300)
        }
        events.append((9_000, .bypass(true)))
        events.append((9_100, .bypass(false)))  // reversed mid-crossfade
        events.append((15_000, .bypass(true)))
        events.append((15_600, .bypass(false)))
        events.sort { $0.at < $1.at }
        for settings in [WahSettings(), WahSettings(levelCompensation: 0.3, mix: 0.7, smoothingTime: 0.004)] {
            let reference = S.render(settings, input, events: events, split: .oneBlock)
            XCTAssertGreaterThan(reference.map { abs($0) }.max()!, 0.01)
            for split: S.Split in [.perSample, .random(seed: 1), .random(seed: 2), .randomInPlace(seed: 3)] {
                let other = S.render(settings, input, events: events, split: split)
                XCTAssertNil(S.firstDifference(reference, other), "\(split) differs from one block")
            }
        }
    }

    /// (d) Pedal stepped 0 <-> 1 every 512 samples under a 700 Hz sine (inside the sweep) of
    /// amplitude A = 0.5.
    ///
    /// Bound: with the unity-peak band-pass (|H| <= 1), a steady filter output is a sine of
    /// amplitude <= A whose sample-to-sample change is at most 2 A sin(pi f/fs) = 0.0458. The
    /// smoothed sweep adds the change of H along the path: |dH/dp| = 2Q ln(toe/heel) at resonance,
    /// <= 25 (heel, Q 8), times the fastest smoothed pedal rate after a full step, a/e = 1.02e-3
    /// per sample (two one-poles of a = 2.77e-3), times A: 0.013. Bound: 0.0458 + 0.013, plus
    /// 0.011 for the quasi-static approximation, = 0.07, times the make-up gain g that follows the
    /// band-pass (3.0): 0.21 (measured: 0.025 g = 0.075). Without smoothing the coefficient steps
    /// make the output jump by ~0.2 g: at least twice the bound.
    /// The TPT structure also produces no transient at all on DC (its DC steady state, s1 = 0,
    /// s2 = x, does not depend on the coefficients), which is checked too.
    func testParameterStepSmoothness() {
        let count = 16_384
        let amplitude = 0.5
        let frequency = 700.0
        let sine = S.sine(count: count, frequency: frequency, amplitude: amplitude)
        let events: [(at: Int, event: S.Event)] = stride(from: 0, to: count, by: 512).map {
            ($0, .pedal(($0 / 512) % 2 == 0 ? 0 : 1))
        }
        let smoothed = S.render(WahSettings(levelCompensation: 0), sine, events: events, split: .oneBlock)
        let unsmoothed = S.render(
            WahSettings(levelCompensation: 0, smoothingTime: 0), sine, events: events, split: .oneBlock)
        let settle = 2_048  // skip the filter's start-up from silence
        let quasiStatic = 2 * amplitude * sin(Double.pi * frequency / S.sampleRate)
        let bound = (quasiStatic + 0.013 + 0.011) * makeUp
        let jumpSmoothed = S.maxJump(smoothed, from: settle)
        let jumpUnsmoothed = S.maxJump(unsmoothed, from: settle)
        XCTAssertLessThan(jumpSmoothed, bound, "smoothed max jump")
        XCTAssertGreaterThan(jumpUnsmoothed, 2 * bound, "without smoothing the steps must show")
        XCTAssertGreaterThan(jumpUnsmoothed, 3 * jumpSmoothed)

        // DC: no zipper at all. Settle on DC for 1 s (start-up ringing gone), then step the pedal.
        var wah = S.settled(WahSettings(levelCompensation: 0, smoothingTime: 0), pedal: 0)
        let dc = [Float](repeating: 0.5, count: 512)
        for _ in 0..<94 { _ = S.process(&wah, dc) }
        var worstDC: Float = 0
        for block in 0..<32 {
            wah.setPedal(block % 2 == 0 ? 1 : 0)
            worstDC = max(worstDC, S.process(&wah, dc).map { abs($0) }.max()!)
        }
        XCTAssertLessThan(worstDC, 1e-6)
    }

    /// (e) Pedal far out of range, NaN and infinities, changing every sample and every 16
    /// samples, with and without smoothing: every output finite and bounded.
    ///
    /// Bound: for |x| <= 1 and fixed coefficients the largest possible output is the l1 norm of
    /// the impulse response: 1.27 for the unity-peak band-pass (~4/pi), 1.80 at the heel with the
    /// +3 dB level law, each times the make-up gain g (3.0). Measured here, under the wildest
    /// modulation (smoothing off, pedal 0 <-> 1 every sample): < 0.8 g. 4 g leaves room for
    /// modulation transients without hiding a blow-up.
    func testOutOfRangeControl() {
        let wild: [Float] = [-5, 7, .nan, .infinity, -.infinity, 0.5, .greatestFiniteMagnitude, -0.0, 1, 0]
        let input = S.noise(count: 20_000, seed: 5, amplitude: 1)
        for settings in [WahSettings(), WahSettings(smoothingTime: 0)] {
            for every in [1, 16] {
                var i = 0
                let events = stride(from: 0, to: input.count, by: every).map { n -> (at: Int, event: S.Event) in
                    defer { i += 1 }
                    return (n, .pedal(wild[i % wild.count]))
                }
                let y = S.render(settings, input, events: events, split: .oneBlock)
                XCTAssertTrue(y.allSatisfy { $0.isFinite })
                XCTAssertLessThan(
                    y.map { abs($0) }.max()!, Float(4 * makeUp), "every \(every), smoothing \(settings.smoothingTime)")
            }
        }
        // Input at the edge of the Float range, at the heel's centre where the gain is +3 dB: the
        // output is clamped to the Float range, never infinite.
        var loud = S.settled(WahSettings(), pedal: 0)
        let huge = S.sine(count: 8_000, frequency: 450, amplitude: Double(Float.greatestFiniteMagnitude))
        let hugeOut = S.process(&loud, huge)
        XCTAssertTrue(hugeOut.allSatisfy { $0.isFinite })
        XCTAssertEqual(hugeOut.map { abs($0) }.max(), .greatestFiniteMagnitude)

        // setPedal clamps and ignores NaN.
        var wah = S.settled(WahSettings(), pedal: 0.3)
        wah.setPedal(.nan)
        wah.reset()
        XCTAssertEqual(wah.pedal, 0.3, accuracy: 1e-7)
        wah.setPedal(7)
        wah.reset()
        XCTAssertEqual(wah.pedal, 1)
        wah.setPedal(-.infinity)
        wah.reset()
        XCTAssertEqual(wah.pedal, 0)
    }

    /// Nonsense settings are sanitised, not propagated.
    func testInvalidSettingsStayFinite() {
        let bad = WahSettings(
            heelFrequency: .nan, toeFrequency: 1e9, heelQ: -3, toeQ: .infinity, levelCompensation: .nan,
            outputGain: .infinity, mix: 9, smoothingTime: -1)
        let input = S.noise(count: 4_000, seed: 8, amplitude: 1)
        for rate in [48_000.0, 0, .nan, 8_000] {
            var wah = WahProcessor(settings: bad)
            wah.prepare(sampleRate: rate)
            wah.setPedal(0.7)
            let y = S.process(&wah, input)
            XCTAssertTrue(y.allSatisfy { $0.isFinite && abs($0) < 100 }, "sample rate \(rate)")
        }
    }

    /// (f) A NaN or infinite input sample: that sample's output is 0, all later outputs are finite,
    /// and from the next sample on the output is that of a fresh filter (same pedal) started there.
    func testNonFiniteInputRecovers() {
        let count = 6_000, hit = 1_000
        for bad: Float in [.nan, .infinity, -.infinity] {
            for settings in [WahSettings(), WahSettings(mix: 0.5), WahSettings(bypass: true)] {
                var input = S.noise(count: count, seed: 11)
                input[hit] = bad
                var wah = S.settled(settings, pedal: 0.6)
                let y = S.process(&wah, input)
                XCTAssertEqual(y[hit], 0, "\(bad)")
                XCTAssertTrue(y.allSatisfy { $0.isFinite }, "\(bad)")
                let state = wah.stateForTesting
                XCTAssertTrue(state.s1.isFinite && state.s2.isFinite)

                var fresh = S.settled(settings, pedal: 0.6)
                let tail = S.process(&fresh, Array(input[(hit + 1)...]))
                XCTAssertNil(S.firstDifference(Array(y[(hit + 1)...]), tail), "\(bad) \(settings)")
            }
        }
    }

    /// (g) After a loud burst and long silence the state is exactly zero or normal (never
    /// subnormal), sample by sample, and it ends at exact zero.
    func testNoSubnormalsAfterSilence() {
        func zeroOrNormal(_ v: Double) -> Bool { v == 0 || v.isNormal }
        for pedal: Float in [0, 1] {
            var wah = S.settled(WahSettings(), pedal: 1 - pedal)
            wah.setPedal(pedal)  // the smoother also decays toward 0 (or 1) during the silence
            var rng = WahTestRNG(seed: 21)
            for _ in 0..<4_800 { _ = wah.processSample(rng.noise(1)) }
            for n in 0..<(10 * 48_000) {
                let y = wah.processSample(0)
                let s = wah.stateForTesting
                if !(zeroOrNormal(s.s1) && zeroOrNormal(s.s2) && zeroOrNormal(s.p1) && zeroOrNormal(s.p2)
                    && (y == 0 || y.isNormal))
                {
                    XCTFail("subnormal at silent sample \(n): \(s), output \(y)")
                    return
                }
            }
            let s = wah.stateForTesting
            XCTAssertEqual(s.s1, 0)
            XCTAssertEqual(s.s2, 0)
            XCTAssertEqual(s.p2, Double(pedal))
        }
    }

    /// (h) Bypass: after the 5 ms crossfade the output is the input exactly; after switching back,
    /// exactly the never-bypassed effect; and during the crossfade no step is larger than the
    /// signals' own steps plus the crossfade's: out = x + c (e - x) gives
    /// |dout| <= max(|dx|, |de|) + |dc| * |e - x|.
    func testBypassCrossfade() {
        let count = 12_000, on = 2_000, off = 6_000
        let fade = Int((0.005 * S.sampleRate).rounded())
        let x = zip(
            S.sine(count: count, frequency: 440, amplitude: 0.5), S.noise(count: count, seed: 4, amplitude: 0.05)
        )
        .map { $0 + $1 }
        let pedal: [(at: Int, event: S.Event)] = [(0, .pedal(0.4))]
        let effect = S.render(WahSettings(), x, events: pedal, split: .oneBlock)
        let y = S.render(
            WahSettings(), x, events: pedal + [(on, .bypass(true)), (off, .bypass(false))], split: .random(seed: 9))

        XCTAssertNil(S.firstDifference(Array(y[..<on]), Array(effect[..<on])))
        XCTAssertNil(S.firstDifference(Array(y[(on + fade)..<off]), Array(x[(on + fade)..<off])))
        XCTAssertNil(S.firstDifference(Array(y[(off + fade)...]), Array(effect[(off + fade)...])))

        let step = 1 / (0.005 * S.sampleRate)
        for start in [on, off] {
            let range = (start - 1)..<(start + fade + 2)
            var dx = 0.0, de = 0.0, gap = 0.0
            for n in range {
                dx = max(dx, abs(Double(x[n]) - Double(x[n - 1])))
                de = max(de, abs(Double(effect[n]) - Double(effect[n - 1])))
                gap = max(gap, abs(Double(effect[n]) - Double(x[n])))
            }
            let jump = S.maxJump(y, from: range.lowerBound, to: range.upperBound)
            XCTAssertLessThanOrEqual(jump, max(dx, de) + step * gap + 1e-6, "switch at \(start)")
            XCTAssertLessThan(jump, gap, "a hard switch would jump by up to \(gap)")
        }

        // Starting bypassed: the input from the first sample.
        var bypassed = S.settled(WahSettings(bypass: true), pedal: 0.5)
        XCTAssertNil(S.firstDifference(S.process(&bypassed, x), x))
    }

    /// The smoother: two one-poles of smoothingTime/2 each; after smoothingTime a unit step has
    /// covered 1 - 3e^-2 = 59.4%, and it lands exactly on the target.
    func testPedalSmoother() {
        var wah = S.settled(WahSettings(), pedal: 0)
        wah.setPedal(1)
        let samples = Int(0.015 * S.sampleRate)
        for _ in 0..<samples { _ = wah.processSample(0) }
        XCTAssertEqual(Double(wah.pedal), 1 - 3 * exp(-2.0), accuracy: 0.002)
        for _ in 0..<48_000 { _ = wah.processSample(0) }
        XCTAssertEqual(wah.pedal, 1)
        // Two processors fed the same targets follow identical pedal paths (multi-channel).
        var left = S.settled(WahSettings(), pedal: 0.2), right = left
        for n in 0..<5_000 {
            if n % 100 == 0 { left.setPedal(Float(n) / 5_000); right.setPedal(Float(n) / 5_000) }
            _ = left.processSample(0.1)
            _ = right.processSample(-0.3)
            XCTAssertEqual(left.pedal, right.pedal)
        }
    }

    func testPedalFromMIDI() {
        let table: [(value: Int, bits: Int, expected: Float)] = [
            (0, 7, 0), (127, 7, 1), (64, 7, Float(64.0 / 127.0)), (-3, 7, 0), (200, 7, 1),
            (0, 14, 0), (16_383, 14, 1), (8_192, 14, Float(8_192.0 / 16_383.0)), (20_000, 14, 1)
        ]
        for row in table {
            XCTAssertEqual(WahProcessor.pedal(fromMIDI: row.value, bits: row.bits), row.expected, "\(row)")
        }
        XCTAssertEqual(WahProcessor.pedal(fromMIDI: 127), 1)
    }

    /// (i) Golden render, hashed after 16-bit quantisation (robust to last-bit differences).
    /// `SENSORWAH_REGENERATE_GOLDEN=1 swift test --filter WahTests/testGoldenRender` rewrites it.
    func testGoldenRender() throws {
        let hash = S.goldenHash(S.goldenRender())
        let value = "0x" + String(hash, radix: 16, uppercase: false)
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden").appendingPathComponent("wah-golden.txt")
        if ProcessInfo.processInfo.environment["SENSORWAH_REGENERATE_GOLDEN"] == "1" {
            let text = """
                # Wah golden render (WahTests.testGoldenRender): FNV-1a 64 over the output quantised to
                # 16 bits, round(y * 32767) clamped, little-endian. 48000 samples at 48 kHz, default settings.
                # Regenerate: SENSORWAH_REGENERATE_GOLDEN=1 swift test --filter WahTests/testGoldenRender
                fnv1a64 \(value)

                """
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
            print("SENSORWAH_REGENERATE_GOLDEN=1: wrote \(value) to \(url.path)")
            return
        }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("missing \(url.path); run with SENSORWAH_REGENERATE_GOLDEN=1 to create it")
            return
        }
        let stored = text.split(separator: "\n").first { $0.hasPrefix("fnv1a64 ") }?.dropFirst(8)
        XCTAssertEqual(stored.map(String.init), value, "golden render changed; review, then regenerate")
    }

    #if canImport(CWahReference)
        /// The Swift processor and the plain C reference agree (bit for bit on x86-64; 1e-6 allowed).
        func testMatchesCReference() {
            let count = 30_000
            let input = S.noise(count: count, seed: 77, amplitude: 0.8)
            var rng = WahTestRNG(seed: 78)
            let variants = [
                WahSettings(),
                WahSettings(levelCompensation: 0.3, outputGain: 1.5, mix: 0.6),
                WahSettings(heelFrequency: 300, toeFrequency: 3_000, heelQ: 5, toeQ: 1.2, smoothingTime: 0)
            ]
            for settings in variants {
                var wah = WahProcessor(settings: settings)
                wah.prepare(sampleRate: S.sampleRate)
                var cs = wah_ref_settings()
                wah_ref_default_settings(&cs)
                cs.heel_frequency = settings.heelFrequency
                cs.toe_frequency = settings.toeFrequency
                cs.heel_q = settings.heelQ
                cs.toe_q = settings.toeQ
                cs.level_compensation = settings.levelCompensation
                cs.output_gain = settings.outputGain
                cs.mix = settings.mix
                cs.smoothing_time = settings.smoothingTime
                var c = wah_ref_state()
                wah_ref_prepare(&c, S.sampleRate, &cs)

                var swiftOut = [Float](repeating: 0, count: count), cOut = swiftOut
                var position = 0
                var bypass = false
                while position < count {
                    let length = min(rng.int(1, 512), count - position)
                    let pedal = Float(rng.unit() * 1.2 - 0.1)
                    wah.setPedal(pedal)
                    wah_ref_set_pedal(&c, pedal)
                    if rng.int(0, 20) == 0 {
                        bypass.toggle()
                        wah.settings.bypass = bypass
                        cs.bypass = bypass ? 1 : 0
                        wah_ref_update_settings(&c, &cs)
                    }
                    input.withUnsafeBufferPointer { i in
                        swiftOut.withUnsafeMutableBufferPointer { o in
                            wah.process(i.baseAddress! + position, o.baseAddress! + position, count: length)
                        }
                        cOut.withUnsafeMutableBufferPointer { o in
                            wah_ref_process(&c, i.baseAddress! + position, o.baseAddress! + position, Int32(length))
                        }
                    }
                    position += length
                }
                var worst: Float = 0
                for n in 0..<count { worst = max(worst, abs(swiftOut[n] - cOut[n])) }
                XCTAssertLessThanOrEqual(worst, 1e-6, "\(settings)")
                XCTAssertEqual(wah.pedal, wah_ref_pedal(&c))
            }
        }
    #endif
}
