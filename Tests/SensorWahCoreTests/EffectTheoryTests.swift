import XCTest
@testable import SensorWahCore

/// The tremolo against its theory: the envelope's period is exactly the rate (free or synced to a
/// tempo), its extremes are 1 and 1 - depth, the shapes are what they say.
final class EffectTremoloTests: XCTestCase {
    /// Output for a constant input of 1: the gain itself.
    func envelope(_ chain: String, seconds: Double = 2, tempo: Double? = nil) throws -> [Double] {
        let c = EffectChain(spec: try EffectChainSpec(parsing: chain), sampleRate: 48_000)
        defer { c.destroy() }
        if let tempo { c.setTempo(bpm: tempo) }
        c.reset()
        return EffectSignals.run(c, [Float](repeating: 1, count: Int(seconds * 48_000))).map(Double.init)
    }

    /// Mean period (samples) from the upward crossings of the envelope's mid level, linearly interpolated.
    func period(_ e: [Double]) -> Double {
        let mid = (e.max()! + e.min()!) / 2
        var crossings: [Double] = []
        for i in 1..<e.count where e[i - 1] < mid && e[i] >= mid {
            crossings.append(Double(i - 1) + (mid - e[i - 1]) / (e[i] - e[i - 1]))
        }
        return (crossings.last! - crossings.first!) / Double(crossings.count - 1)
    }

    func testRateIsExact() throws {
        for rate in [0.5, 5, 7.3, 20] {
            let e = try envelope("tremolo rate=\(rate) depth=1", seconds: max(2, 4 / rate))
            XCTAssertEqual(period(e), 48_000 / rate, accuracy: 48_000 / rate * 1e-6, "rate \(rate) Hz")
        }
    }

    func testSyncedRateFollowsTheTempo() throws {
        // 1/8 notes at 120 BPM: 4 Hz; dotted 1/8 at 100 BPM: 0.45 s
        XCTAssertEqual(period(try envelope("tremolo sync=1/8 depth=1", tempo: 120)), 12_000, accuracy: 0.01)
        XCTAssertEqual(
            period(try envelope("tremolo sync=1/8d depth=1", seconds: 3, tempo: 100)), 0.45 * 48_000, accuracy: 0.02)
    }

    func testDepthFromTheEnvelope() throws {
        for depth in [0.0, 0.3, 0.7, 1] {
            for shape in ["sine", "triangle", "square"] {
                let e = try envelope("tremolo rate=4 depth=\(depth) shape=\(shape)").dropFirst(4_800)
                XCTAssertEqual(e.max()!, 1, accuracy: 1e-6, "\(shape) \(depth)")
                XCTAssertEqual(e.min()!, 1 - depth, accuracy: 1e-6, "\(shape) \(depth)")
            }
        }
        // on a carrier: the output's peaks follow the same envelope
        let c = EffectChain(spec: try EffectChainSpec(parsing: "tremolo rate=2 depth=0.6"), sampleRate: 48_000)
        defer { c.destroy() }
        let y = EffectSignals.run(c, EffectSignals.sine(1_000, amplitude: 0.5, count: 96_000))
        let peaks = stride(from: 0, to: y.count - 48, by: 48).map { i in y[i..<(i + 48)].map { abs(Double($0)) }.max()!
        }
        XCTAssertEqual(peaks.max()!, 0.5, accuracy: 0.001)
        XCTAssertEqual(peaks.min()!, 0.5 * 0.4, accuracy: 0.001)
    }

    func testShapes() throws {
        let period = 12_000  // 4 Hz
        // sine: 1 - d (1 - (1 + cos)/2)
        let sine = try envelope("tremolo rate=4 depth=1 shape=sine")
        for i in stride(from: 24_000, to: 36_000, by: 37) {
            let expected = 0.5 + 0.5 * cos(2 * Double.pi * Double(i) / Double(period))
            XCTAssertEqual(sine[i], expected, accuracy: 1e-6, "sample \(i)")
        }
        // triangle: straight lines between 1 at the cycle's start and 1 - depth half-way
        let tri = try envelope("tremolo rate=4 depth=1 shape=triangle")
        for i in stride(from: 24_000, to: 36_000, by: 37) {
            let p = Double(i % period) / Double(period)
            XCTAssertEqual(tri[i], abs(2 * p - 1), accuracy: 1e-6, "sample \(i)")
        }
        // square: at 1 or 1 - depth but for the edges' 1 ms one-pole (99 % within 5 ms)
        let sq = try envelope("tremolo rate=4 depth=0.8 shape=square")
        let settled = sq.enumerated().filter { i, _ in
            let p = i % period; return (p > 240 && p < 6_000) || p > 6_240
        }
        XCTAssertTrue(settled.allSatisfy { _, v in abs(v - 1) < 0.01 || abs(v - 0.2) < 0.01 })
        // no jump: 1 - e^(-1/48) of the swing
        XCTAssertLessThan(EffectSignals.largestStep(sq.map(Float.init)), 0.8 * 0.021)
    }
}

/// The phaser against the all-pass formula: notches where the chain's phase is -180 degrees
/// (odd multiples), the whole response equal to the formula with and without feedback.
final class EffectPhaserTests: XCTestCase {
    /// Impulse response with the sweep held at LFO `phase` (rate 0).
    func impulseResponse(stages: Int, depth: Double, phase: Double, feedback: Double = 0, count: Int = 16_384) throws
        -> (ir: [Double], corner: Double)
    {
        let c = EffectChain(
            spec: try EffectChainSpec(parsing: "phaser rate=0 depth=\(depth) stages=\(stages) feedback=\(feedback)"),
            sampleRate: 48_000)
        defer { c.destroy() }
        let corner = c.withPhaser { p -> Double in
            p.setPhase(phase)
            return p.cornerFrequency(phase: phase, depth: depth)
        }
        var x = [Float](repeating: 0, count: count)
        x[0] = 1
        return (EffectSignals.run(c, x, block: 256).map(Double.init), corner)
    }

    /// |H(f)| of an impulse response by direct DTFT.
    func magnitude(_ ir: [Double], _ f: Double) -> Double {
        var re = 0.0, im = 0.0
        let w = 2 * Double.pi * f / 48_000
        for (n, h) in ir.enumerated() where h != 0 {
            re += h * cos(w * Double(n)); im -= h * sin(w * Double(n))
        }
        return (re * re + im * im).squareRoot()
    }

    /// The notches the formula gives: tan(pi f/fs) = tan(pi fc/fs) tan((2k+1) pi / (2N)).
    func theoreticalNotches(corner: Double, stages: Int) -> [Double] {
        (0..<(stages / 2)).map { k in
            let t = tan(Double.pi * corner / 48_000) * tan(Double(2 * k + 1) * Double.pi / Double(2 * stages))
            return atan(t) * 48_000 / Double.pi
        }
    }

    /// The minimum of |H| near `guess` (golden-section search over +-10 %).
    func measuredNotch(_ ir: [Double], near guess: Double) -> Double {
        var a = guess * 0.9, b = guess * 1.1
        let r = (5.0.squareRoot() - 1) / 2
        while b - a > guess * 1e-7 {
            let c = b - r * (b - a), d = a + r * (b - a)
            if magnitude(ir, c) < magnitude(ir, d) { b = d } else { a = c }
        }
        return (a + b) / 2
    }

    func testNotchesWhereTheAllPassFormulaPutsThem() throws {
        for (stages, phase) in [(4, 0.0), (4, 0.25), (4, 0.75), (2, 0.1), (8, 0.6), (12, 0.25)] {
            let (ir, corner) = try impulseResponse(stages: stages, depth: 0.8, phase: phase)
            for f in theoreticalNotches(corner: corner, stages: stages) where f < 20_000 {
                XCTAssertLessThan(
                    20 * log10(magnitude(ir, f)), -60, "\(stages) stages, corner \(corner) Hz: notch at \(f) Hz")
                XCTAssertEqual(
                    measuredNotch(ir, near: f), f, accuracy: f * 1e-4, "\(stages) stages, corner \(corner) Hz")
            }
        }
        // the sweep's ends: 630 Hz * 2^(+-2.5 depth)
        let c = EffectChain(spec: try EffectChainSpec(parsing: "phaser"), sampleRate: 48_000)
        defer { c.destroy() }
        c.withPhaser { p in
            XCTAssertEqual(p.cornerFrequency(phase: 0.25, depth: 1), 630 * pow(2, 2.5), accuracy: 1e-4)
            XCTAssertEqual(p.cornerFrequency(phase: 0.75, depth: 1), 630 * pow(2, -2.5), accuracy: 1e-4)
        }
    }

    /// The whole response: H = (1 + W) / 2, W = A^N / (1 - fb e^(-jw) A^N),
    /// A = (g - j tan(w/2)) / (g + j tan(w/2)), g = tan(pi fc / fs).
    func testResponseEqualsTheFormulaWithFeedback() throws {
        for feedback in [0.0, 0.5, 0.9] {
            let (ir, corner) = try impulseResponse(stages: 4, depth: 0.5, phase: 0.3, feedback: feedback, count: 32_768)
            let g = tan(Double.pi * corner / 48_000)
            for f in [100.0, 300, 700, 1_500, 3_000, 8_000, 15_000] {
                let w = 2 * Double.pi * f / 48_000, t = tan(w / 2)
                // A = (g - jt)/(g + jt) = e^(-2j atan(t/g))
                let phi = -2 * atan(t / g) * 4
                let (ar, ai) = (cos(phi), sin(phi))
                // denominator 1 - fb e^(-jw) A^N
                let dr = 1 - feedback * (cos(-w) * ar - sin(-w) * ai)
                let di = -feedback * (cos(-w) * ai + sin(-w) * ar)
                let den = dr * dr + di * di
                let wr = (ar * dr + ai * di) / den, wi = (ai * dr - ar * di) / den
                let expected = 0.5 * ((1 + wr) * (1 + wr) + wi * wi).squareRoot()
                XCTAssertEqual(
                    magnitude(ir, f), expected, accuracy: 1e-6 + expected * 1e-6, "feedback \(feedback), \(f) Hz")
            }
        }
    }
}

/// The delay against its theory: echoes exactly `time * fs` samples apart, each `feedback` times
/// the one before (tone open), time glides without a jump, the buffer holds 2 s.
final class EffectDelayTests: XCTestCase {
    func testEchoTimesToTheSampleAndDecayPerRepeat() throws {
        for (time, feedback, mix) in [(0.3, 0.5, 0.5), (0.0125, 0.95, 1.0), (2.0, 0.2, 0.3), (0.1, 0.0, 0.4)] {
            let c = EffectChain(
                spec: try EffectChainSpec(parsing: "delay time=\(time) feedback=\(feedback) mix=\(mix) tone=1"),
                sampleRate: 48_000)
            defer { c.destroy() }
            let d = Int((time * 48_000).rounded())
            var x = [Float](repeating: 0, count: min(3 * d + 100, 200_000))
            x[7] = 1
            let y = EffectSignals.run(c, x, block: 128)
            XCTAssertEqual(Double(y[7]), 1 - mix, accuracy: 1e-7)
            var expected = mix
            for k in 1...3 where 7 + k * d < y.count {
                XCTAssertEqual(Double(y[7 + k * d]), expected, accuracy: 1e-6, "echo \(k) of time \(time)")
                if k > 1, feedback > 0 {
                    XCTAssertEqual(
                        Double(y[7 + k * d] / y[7 + (k - 1) * d]), feedback, accuracy: 1e-5, "decay per repeat")
                }
                expected *= feedback
            }
            // nothing but the dry impulse and the echoes
            let others = y.indices.filter { $0 != 7 && ($0 - 7) % d != 0 }.map { abs(y[$0]) }.max() ?? 0
            XCTAssertLessThan(others, 1e-6, "time \(time)")
        }
    }

    func testToneDampsEachRepeat() throws {
        // tone 0: the loop's one-pole at 500 Hz; a repeat of a 5 kHz burst loses most of its level
        let c = EffectChain(
            spec: try EffectChainSpec(parsing: "delay time=0.05 feedback=0.9 mix=1 tone=0"), sampleRate: 48_000)
        defer { c.destroy() }
        var x = EffectSignals.sine(5_000, amplitude: 0.5, count: 1_200)
        x += [Float](repeating: 0, count: 6_000)
        let y = EffectSignals.run(c, x)
        // the level of each repeat once the one-pole's start transient is over
        func peak(_ k: Int) -> Float { y[(k * 2_400 + 300)..<(k * 2_400 + 1_200)].map(abs).max()! }
        XCTAssertEqual(Double(peak(1)), 0.5, accuracy: 0.01)  // the first echo is not filtered
        // one-pole y += a (x - y) at 5 kHz: |H| = a / |1 - (1 - a) e^(-jw)|
        let a = 1 - exp(-2 * Double.pi * 500 / 48_000), w = 2 * Double.pi * 5_000 / 48_000
        let h = a / ((1 - (1 - a) * cos(w)) * (1 - (1 - a) * cos(w)) + pow((1 - a) * sin(w), 2)).squareRoot()
        XCTAssertEqual(Double(peak(2) / peak(1)), 0.9 * h, accuracy: 0.01)
    }

    func testTimeGlidesWithoutAJump() throws {
        let spec = try EffectChainSpec(parsing: "delay time=0.3 feedback=0 mix=1")
        let c = EffectChain(spec: spec, sampleRate: 48_000)
        defer { c.destroy() }
        let x = EffectSignals.sine(440, amplitude: 0.5, count: 4 * 48_000)
        var y = x
        let slot = try spec.slot(for: "delay.time")
        y.withUnsafeMutableBufferPointer { b in
            c.process(b.baseAddress!, count: 24_000)
            c.setParameter(slot: slot, value: 0.05)
            c.process(b.baseAddress! + 24_000, count: 12_000)
            XCTAssertEqual(c.value(slot: slot), 0.3 - 0.5 * 0.25, accuracy: 1e-9)  // 0.5 s per second at most
            c.process(b.baseAddress! + 36_000, count: 12_000)
            c.setParameter(slot: slot, value: 1.2)
            c.process(b.baseAddress! + 48_000, count: b.count - 48_000)
        }
        XCTAssertEqual(c.value(slot: slot), 1.2, accuracy: 1e-6)
        // a 440 Hz sine read up to 50 % faster: steps below 2 pi 660 0.5 / 48000 = 0.043
        let steady = EffectSignals.largestStep(Array(y[15_000..<24_000]))
        let moving = EffectSignals.largestStep(Array(y[24_000...]))
        XCTAssertLessThan(moving, 0.044)
        XCTAssertLessThan(moving, steady * 1.55)
    }

    func testSyncedTime() throws {
        let c = EffectChain(spec: try EffectChainSpec(parsing: "delay sync=1/4 mix=1 feedback=0"), sampleRate: 48_000)
        defer { c.destroy() }
        c.setTempo(bpm: 90)
        c.reset()
        var x = [Float](repeating: 0, count: 40_000)
        x[0] = 1
        let y = EffectSignals.run(c, x)
        XCTAssertEqual(y[32_000], 1, accuracy: 1e-6)  // a quarter note at 90 BPM: 2/3 s
    }
}

/// What every effect must do: bypass is the input bit for bit once the crossfade is over,
/// no parameter step makes a click on a sine, reset clears the state.
final class EffectCommonTests: XCTestCase {
    static let kinds = EffectKind.allCases

    func testBypassIsBitExactAfterTheCrossfade() throws {
        let x = EffectSignals.sine(220, amplitude: 0.5, count: 9_600)
        for kind in Self.kinds {
            let spec = EffectChainSpec(stages: [.init(kind)])
            let c = EffectChain(spec: spec, sampleRate: 48_000)
            defer { c.destroy() }
            var y = EffectSignals.run(c, x)
            XCTAssertNotEqual(y, x, "\(kind) does something")
            c.setParameter(slot: 0, value: 1)
            y = EffectSignals.run(c, x)
            XCTAssertEqual(Array(y[240...]), Array(x[240...]), "\(kind): bit-exact after 5 ms")
            XCTAssertLessThan(EffectSignals.largestStep(y), 0.05, "\(kind): the crossfade does not click")
            c.setParameter(slot: 0, value: 0)
            y = EffectSignals.run(c, x)
            XCTAssertLessThan(EffectSignals.largestStep(y), 0.05, "\(kind): re-engaging does not click")
        }
    }

    /// Each parameter stepped from one end of its range to the other mid-way through a 220 Hz
    /// sine: no sample-to-sample step in the 100 ms after the change beyond 1.3 x the largest
    /// step of the steady signal before or after it (a click would be a step of the order of the
    /// signal itself). For the wah, whose band-pass sweeps across the tone while its frequency
    /// glides, the bound also allows the tone passing at the svf's peak gain (+3 dB at the heel)
    /// times the voice's make-up gain.
    func testParameterStepsDoNotClick() throws {
        let x = EffectSignals.sine(220, amplitude: 0.5, count: 4 * 48_000)
        let inputStep = EffectSignals.largestStep(x)
        for kind in Self.kinds {
            for (index, p) in kind.parameters.enumerated() where index > 0 {
                let values: [(Double, Double)] = [
                    (p.range.lowerBound, p.range.upperBound), (p.range.upperBound, p.range.lowerBound)
                ]
                for (from, to) in values {
                    var stage = EffectChainSpec.Stage(kind)
                    stage.settings[index] = p.clamp(from)
                    if kind == .delay { stage.set("feedback", index == 2 ? from : 0.3) }
                    let c = EffectChain(spec: EffectChainSpec(stages: [stage]), sampleRate: 48_000, maximumBlock: 64)
                    defer { c.destroy() }
                    var y = x
                    let change = 2 * 48_000
                    y.withUnsafeMutableBufferPointer { b in
                        c.process(b.baseAddress!, count: change)
                        c.setParameter(slot: index, value: to)
                        c.process(b.baseAddress! + change, count: b.count - change)
                    }
                    let before = EffectSignals.largestStep(Array(y[(change - 24_000)..<change]))
                    let after = EffectSignals.largestStep(Array(y[(y.count - 24_000)...]))
                    let transition = EffectSignals.largestStep(Array(y[change..<(change + 4_800)]))
                    let sweep = kind == .wah ? inputStep * 1.42 * Float(WahSettings().voice.makeUpGain) : 0
                    XCTAssertLessThanOrEqual(
                        transition, 1.3 * max(before, after, sweep) + 1e-3,
                        "\(kind).\(p.name) \(from) -> \(to): step \(transition) vs \(before) before, \(after) after")
                }
            }
        }
    }

    func testOutputDoesNotDependOnBlockSize() throws {
        let spec = try EffectChainSpec.preset(named: "everything")
        let x = EffectSignals.noise(count: 9_000)
        var outputs: [[Float]] = []
        for block in [1, 64, 1000] {
            let c = EffectChain(spec: spec, sampleRate: 48_000, maximumBlock: 512)
            defer { c.destroy() }
            outputs.append(EffectSignals.run(c, x, block: block))
        }
        XCTAssertEqual(outputs[0], outputs[1])
        XCTAssertEqual(outputs[0], outputs[2])
    }

    func testNonFiniteInputDoesNotPoisonTheState() throws {
        let c = EffectChain(spec: try EffectChainSpec.preset(named: "everything"), sampleRate: 48_000)
        defer { c.destroy() }
        var x = EffectSignals.noise(count: 4_800)
        x[100] = .nan; x[200] = .infinity
        let y = EffectSignals.run(c, x + EffectSignals.noise(count: 48_000))
        XCTAssertTrue(y.allSatisfy(\.isFinite))
    }
}
