import XCTest
@testable import SensorWahCore

/// An in-place iterative radix-2 FFT (tests only): power spectrum of a real signal.
enum Spectrum {
    /// |X[k]|^2 for k = 0 ... n/2, `x.count` a power of two, no window (use coherent frequencies).
    static func power(_ x: [Double]) -> [Double] {
        let n = x.count
        precondition(n > 1 && n & (n - 1) == 0)
        var re = x, im = [Double](repeating: 0, count: n)
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let angle = -2 * Double.pi / Double(len)
            let wr = cos(angle), wi = sin(angle)
            var start = 0
            while start < n {
                var cr = 1.0, ci = 0.0
                for k in 0..<(len / 2) {
                    let a = start + k, b = a + len / 2
                    let tr = re[b] * cr - im[b] * ci
                    let ti = re[b] * ci + im[b] * cr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                    let nr = cr * wr - ci * wi
                    ci = cr * wi + ci * wr
                    cr = nr
                }
                start += len
            }
            len <<= 1
        }
        return (0...(n / 2)).map { re[$0] * re[$0] + im[$0] * im[$0] }
    }
}

/// The fuzz against the figure: full drive on a 5 kHz sine of amplitude 0.5 at 48 kHz,
/// the aliases folding below 15 kHz at least 70 dB under the output, harmonic distortion at
/// least 10 %; and the same shaper run plainly at 48 kHz for contrast.
final class EffectFuzzTests: XCTestCase {
    static let n = 1 << 15
    /// The test tone sits exactly on bin 3413 of a 32768-point FFT (4999.5 Hz): every harmonic
    /// and every alias of it falls exactly on a bin too (48 kHz is bin 32768), so a rectangular
    /// window shows them without leakage.
    static let bin = 3413
    static var frequency: Double { Double(bin) * 48_000 / Double(n) }

    struct Figures {
        var aliasDB: Double  // all alias power below 15 kHz against the output's power
        var worstAliasDB: Double  // the largest single alias bin
        var thd: Double  // sqrt(sum of harmonics 2...4 below Nyquist) / fundamental
    }

    /// Analyses one steady period of `y` (n samples): harmonics at bin k*3413 (k = 1...4, below
    /// Nyquist), everything else below 15 kHz but DC counts as aliasing (or noise).
    static func analyse(_ y: [Float]) -> Figures {
        let p = Spectrum.power(y.map(Double.init))
        let total = p.dropFirst().reduce(0, +)
        let harmonicBins = Set((1...4).map { $0 * bin })
        let limit = Int(15_000.0 / 48_000 * Double(n))
        var alias = 0.0, worst = 0.0
        for k in 1...limit where !harmonicBins.contains(k) {
            alias += p[k]
            worst = max(worst, p[k])
        }
        let fundamental = p[bin]
        let harmonics = (2...4).map { p[$0 * bin] }.reduce(0, +)
        return Figures(
            aliasDB: 10 * log10(alias / total), worstAliasDB: 10 * log10(worst / total),
            thd: (harmonics / fundamental).squareRoot())
    }

    func testFullDriveAliasingAndDistortion() throws {
        let n = Self.n
        let settle = 24_000  // the 10 Hz DC blocker's tail (the bias makes DC) decays by e^-31
        let input = EffectSignals.sine(Self.frequency, amplitude: 0.5, count: settle + n)
        let spec = try EffectChainSpec(parsing: "fuzz drive=1 tone=1 level=1")
        let chain = EffectChain(spec: spec, sampleRate: 48_000, maximumBlock: 512)
        defer { chain.destroy() }
        let out = Array(EffectSignals.run(chain, input, block: 512).suffix(n))
        let fuzz = Self.analyse(out)

        // the same shaper at 48 kHz, no oversampling
        let g = FuzzEffect.maximumGain, b = FuzzEffect.bias
        let plain = Self.analyse(
            input.suffix(n).map { Float(Foundation.tanh(g * Double($0) + b) - Foundation.tanh(b)) })

        print(
            String(
                format:
                    "fuzz, full drive, 5 kHz sine at 0.5, 48 kHz: aliases below 15 kHz %.1f dB (worst single %.1f dB), THD %.1f %%; plain 48 kHz shaper: aliases %.1f dB (worst %.1f dB), THD %.1f %%",
                fuzz.aliasDB, fuzz.worstAliasDB, fuzz.thd * 100, plain.aliasDB, plain.worstAliasDB, plain.thd * 100))
        XCTAssertLessThanOrEqual(fuzz.aliasDB, -70, "aliases below 15 kHz")
        XCTAssertGreaterThanOrEqual(fuzz.thd, 0.10, "harmonic distortion")
        XCTAssertGreaterThan(plain.aliasDB, -40, "the plain shaper should alias badly (contrast)")
    }

    /// The oversampling filter: passband flat to 20 kHz, stopband from 28 kHz (at 48 kHz), unity DC.
    func testFilterDesign() {
        let h = FuzzEffect.design()
        XCTAssertEqual(h.count, FuzzEffect.taps)
        XCTAssertEqual(h.reduce(0, +), 1, accuracy: 1e-12)
        func gainDB(_ f: Double) -> Double {  // f in Hz at the 8x rate of 384 kHz
            var re = 0.0, im = 0.0
            for (i, c) in h.enumerated() {
                let w = 2 * Double.pi * f / 384_000 * Double(i)
                re += c * cos(w); im -= c * sin(w)
            }
            return 10 * log10(re * re + im * im)
        }
        for f in stride(from: 0.0, through: 20_000, by: 1_000) {
            XCTAssertEqual(gainDB(f), 0, accuracy: 0.01, "\(f) Hz")
        }
        for f in stride(from: 28_000.0, through: 192_000, by: 250) { XCTAssertLessThan(gainDB(f), -80, "\(f) Hz") }
    }

    /// Latency is the 31 samples the doc states; a small signal (drive 0) passes with the
    /// shaper's slope at the bias, tanh'(b), and that delay.
    func testLatencyAndSmallSignal() throws {
        let chain = EffectChain(spec: try EffectChainSpec(parsing: "fuzz drive=0 tone=1 level=1"), sampleRate: 48_000)
        defer { chain.destroy() }
        var x = [Float](repeating: 0, count: 256)
        x[10] = 0.001
        let y = EffectSignals.run(chain, x)
        let peak = y.indices.max { abs(y[$0]) < abs(y[$1]) }!
        XCTAssertEqual(peak, 10 + FuzzEffect.latency)
        chain.reset()
        let sine = EffectSignals.sine(1_000, amplitude: 0.001, count: 9_600)
        let out = EffectSignals.run(chain, sine)
        // tanh'(b), then the 10 Hz DC blocker's response at 1 kHz: (1 - z^-1) / (1 - R z^-1)
        let slope = 1 - pow(Foundation.tanh(FuzzEffect.bias), 2)
        let r = 1 - 2 * Double.pi * 10 / 48_000, w = 2 * Double.pi * 1_000 / 48_000
        let (nr, ni) = (1 - cos(w), sin(w)), (dr, di) = (1 - r * cos(w), r * sin(w))
        let gain = ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
        let shift = atan2(ni, nr) - atan2(di, dr)
        for i in stride(from: 4_800, to: 9_600, by: 37) {
            let expected = slope * gain * 0.001 * sin(w * Double(i - FuzzEffect.latency) + shift)
            XCTAssertEqual(Double(out[i]), expected, accuracy: 2e-7, "sample \(i)")
        }
    }
}
