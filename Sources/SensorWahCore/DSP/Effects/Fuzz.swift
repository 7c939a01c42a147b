// Fuzz.swift — a tanh waveshaper run at 8x the sample rate between two 256-tap polyphase
// FIR filters (Kaiser-windowed sinc), so the harmonics it makes above the base Nyquist are
// filtered before they can fold back.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fuzz: `tanh(g x + b) - tanh(b)` with `g` from 1 (drive 0) to 30 (+29.5 dB, drive 1) and a
/// small bias `b` (0.15) for the even harmonics of an asymmetric clipper, at 8x oversampling;
/// then a DC blocker (10 Hz), the tone low-pass and the output level.
///
/// Anti-aliasing: the input is interpolated to 8x by a polyphase FIR (8 phases of 32 taps of one
/// 256-tap low-pass, cut-off at the base Nyquist, Kaiser window beta 8: 0.001 dB ripple to 20 kHz,
/// >= 81 dB down from 28 kHz, >= 89 dB from 33 kHz at 48 kHz), shaped there, and decimated by the
/// same filter. The shaper's harmonics up to 4x the base rate are represented, not folded; what
/// the decimator lets through folds only above 20 kHz. Latency: exactly 31 samples at the base
/// rate (both filters are linear phase). The figures are measured by EffectFuzzTests.
///
/// Per sample: drive smoother and gain, 8 x 32-tap dot products, 8 tanh (the wah's polynomial
/// exp2), one 256-tap dot product, DC blocker, tone one-pole, level, bypass fade. Buffers (4.3 kB)
/// are allocated by `init`, freed by `deallocate()`.
public struct FuzzEffect: @unchecked Sendable {
    public enum Parameter: Int, Sendable { case bypass, drive, tone, level }

    /// Oversampling factor and filter length.
    public static let factor = 8
    public static let taps = 256
    @usableFromInline static var tapsPerPhase: Int { 32 }
    /// Gain into the shaper at full drive (+29.5 dB) and the bias. More gain puts more of the
    /// shaper's harmonics above 4x the base rate, where they fold even at 8x: at 40 (+32 dB)
    /// the 5 kHz test's aliases rise from -78 dB to -64 dB.
    public static let maximumGain = 30.0
    public static let bias = 0.15
    /// The latency in samples at the base rate.
    public static let latency = 31

    /// `factor` phases of `tapsPerPhase` interpolation taps (x8 gain), then the 256 decimation
    /// taps; the input history (64, doubled ring) and the 8x history (512, doubled ring).
    @usableFromInline let up: UnsafeMutablePointer<Float>
    @usableFromInline let down: UnsafeMutablePointer<Float>
    @usableFromInline let inputHistory: UnsafeMutablePointer<Float>
    @usableFromInline let shapedHistory: UnsafeMutablePointer<Float>
    @usableFromInline var inputIndex = 0
    @usableFromInline var shapedIndex = 0

    @usableFromInline var drive: Smoother
    @usableFromInline var tone: Smoother
    @usableFromInline var level: Smoother
    @usableFromInline var fade: BypassFade
    /// DC blocker state and pole; tone one-pole state and its coefficient at tone 0.
    @usableFromInline var dcIn = 0.0
    @usableFromInline var dcOut = 0.0
    @usableFromInline var dcPole: Double
    @usableFromInline var lowPass = 0.0
    @usableFromInline var toneFloor: Double
    @usableFromInline let gainSpan = log2(FuzzEffect.maximumGain)
    @usableFromInline let biasOffset: Double

    public init(sampleRate: Double, stage: EffectChainSpec.Stage = .init(.fuzz)) {
        let fs = (sampleRate.isFinite && sampleRate > 0) ? sampleRate : 48_000
        let a = Smoother.coefficient(time: 0.02, sampleRate: fs)
        drive = Smoother(stage.value(Parameter.drive.rawValue), coefficient: a)
        tone = Smoother(stage.value(Parameter.tone.rawValue), coefficient: a)
        level = Smoother(stage.value(Parameter.level.rawValue), coefficient: a)
        fade = BypassFade(bypassed: stage.value(Parameter.bypass.rawValue) >= 0.5, sampleRate: fs)
        dcPole = 1 - 2 * Double.pi * 10 / fs
        toneFloor = -expm1(-2 * Double.pi * 700 / fs)
        biasOffset = EffectMath.tanh(Self.bias)
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: 2 * Self.taps + 64 + 2 * Self.taps)
        storage.initialize(repeating: 0, count: 2 * Self.taps + 64 + 2 * Self.taps)
        up = storage
        down = storage + Self.taps
        inputHistory = storage + 2 * Self.taps
        shapedHistory = storage + 2 * Self.taps + 64
        let h = Self.design()
        for k in 0..<Self.factor {
            for j in 0..<Self.tapsPerPhase {
                up[k * Self.tapsPerPhase + j] = Float(Double(Self.factor) * h[j * Self.factor + k])
            }
        }
        for i in 0..<Self.taps { down[i] = Float(h[i]) }
    }

    /// Frees the buffers. Once, when no copy is used any more.
    public func deallocate() {
        up.deallocate()
    }

    /// The low-pass both filters use: a 256-tap windowed sinc cut off at the base rate's Nyquist
    /// (1/16 of the 8x rate), Kaiser window with beta 8, unity DC gain before normalisation
    /// errors (the taps are scaled to sum to 1).
    public static func design() -> [Double] {
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0
            var k = 1.0
            while term > 1e-17 * sum {
                term *= (x / (2 * k)) * (x / (2 * k))
                sum += term
                k += 1
            }
            return sum
        }
        let n = taps
        let beta = 8.0
        let cutoff = 0.5 / Double(factor)  // cycles per 8x sample
        let centre = Double(n - 1) / 2
        var h = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let t = Double(i) - centre
            let x = 2 * cutoff * t
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            let r = t / centre
            let window = besselI0(beta * (1 - r * r).squareRoot()) / besselI0(beta)
            h[i] = 2 * cutoff * sinc * window
        }
        let sum = h.reduce(0, +)
        return h.map { $0 / sum }
    }

    public mutating func set(_ parameter: Int, _ value: Double) {
        switch Parameter(rawValue: parameter) {
        case .bypass: fade.set(bypassed: value >= 0.5)
        case .drive: drive.target = value
        case .tone: tone.target = value
        case .level: level.target = value
        case nil: break
        }
    }

    public func value(_ parameter: Int) -> Double {
        switch Parameter(rawValue: parameter) {
        case .bypass: return fade.isBypassed ? 1 : 0
        case .drive: return drive.current
        case .tone: return tone.current
        case .level: return level.current
        case nil: return 0
        }
    }

    public mutating func reset() {
        inputHistory.update(repeating: 0, count: 64)
        shapedHistory.update(repeating: 0, count: 2 * Self.taps)
        inputIndex = 0
        shapedIndex = 0
        dcIn = 0; dcOut = 0; lowPass = 0
        drive.jump(); tone.jump(); level.jump()
        fade.position = fade.target
    }

    /// A dot product of `n` (a multiple of 8) Floats in eight interleaved partial sums, added
    /// pairwise at the end (the C reference sums in the same order).
    @inlinable @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var s4: Float = 0, s5: Float = 0, s6: Float = 0, s7: Float = 0
        var i = 0
        while i < n {
            s0 += a[i] * b[i]
            s1 += a[i &+ 1] * b[i &+ 1]
            s2 += a[i &+ 2] * b[i &+ 2]
            s3 += a[i &+ 3] * b[i &+ 3]
            s4 += a[i &+ 4] * b[i &+ 4]
            s5 += a[i &+ 5] * b[i &+ 5]
            s6 += a[i &+ 6] * b[i &+ 6]
            s7 += a[i &+ 7] * b[i &+ 7]
            i &+= 8
        }
        return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))
    }

    @inlinable
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        let taps = Self.taps, phaseTaps = Self.tapsPerPhase, factor = Self.factor
        let up = self.up, down = self.down, xh = self.inputHistory, sh = self.shapedHistory
        var xi = inputIndex, si = shapedIndex
        var drive = self.drive, tone = self.tone, level = self.level, fade = self.fade
        var dcIn = self.dcIn, dcOut = self.dcOut, lowPass = self.lowPass
        let dcPole = self.dcPole, toneFloor = self.toneFloor, gainSpan = self.gainSpan
        let bias = Self.bias, biasOffset = self.biasOffset
        var i = 0
        while i < count {
            let x = buffer[i]
            let finite = x.isFinite ? x : 0
            // newest input first: the window xh[xi ..< xi + 32] is x[n], x[n-1], ...
            xi = xi == 0 ? phaseTaps &- 1 : xi &- 1
            xh[xi] = finite
            xh[xi &+ phaseTaps] = finite
            let g = WahProcessor.fastExp2(drive.next() * gainSpan)
            var k = 0
            while k < factor {
                let u = Double(Self.dot(up + k &* phaseTaps, xh + xi, phaseTaps))
                let s = EffectMath.tanh(g * u + bias) - biasOffset
                si = si == 0 ? taps &- 1 : si &- 1
                sh[si] = Float(s)
                sh[si &+ taps] = Float(s)
                k &+= 1
            }
            let y = Double(Self.dot(down, sh + si, taps))
            let d = y - dcIn + dcPole * dcOut
            dcIn = y
            dcOut = EffectMath.flush(d)
            let a = 1.0 - (1.0 - toneFloor) * (1.0 - tone.next())
            lowPass = EffectMath.flush(lowPass + a * (dcOut - lowPass))
            buffer[i] = fade.apply(dry: x, wet: lowPass * level.next())
            i &+= 1
        }
        inputIndex = xi
        shapedIndex = si
        self.drive = drive; self.tone = tone; self.level = level; self.fade = fade
        self.dcIn = dcIn; self.dcOut = dcOut; self.lowPass = lowPass
    }
}
