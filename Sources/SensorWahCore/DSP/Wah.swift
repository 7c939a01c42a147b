// Wah.swift — a real-time wah: a pedal-controlled, trapezoidal (TPT / zero-delay-feedback)
// state-variable band-pass filter.
//
// No Foundation. The only libm functions used (log2, exp2, expm1, pow, sqrt) are called when
// settings or the sample rate change, never per sample: the per-sample path uses only
// +, -, *, / and bit manipulation, so the C reference (Sources/CWahReference) reproduces it
// bit for bit.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Settings

/// Parameters of the wah. Plain value; changing it never allocates.
public struct WahSettings: Sendable, Equatable {
    /// Centre frequency in Hz at pedal 0 (heel). Default 450 Hz.
    public var heelFrequency: Double
    /// Centre frequency in Hz at pedal 1 (toe). Default 2200 Hz. The sweep between heel and toe
    /// is exponential: `fc(p) = heel * (toe / heel)^p` (the Cry Baby law is `450 * 2^(2.3 p)`).
    public var toeFrequency: Double
    /// Resonance Q at the heel. Default 8.
    public var heelQ: Double
    /// Resonance Q at the toe. Default 2. Q is interpolated geometrically,
    /// `Q(p) = heelQ * (toeQ / heelQ)^p`; with the defaults this is the Cry Baby law
    /// `Q = 2^(2(1 - p) + 1)`.
    public var toeQ: Double
    /// Strength (0...1) of the level law that keeps perceived loudness steady across the sweep.
    ///
    /// The wet signal is always the *unity-peak-gain* band-pass `k * bp` (`k = 1/Q`), so the
    /// level at the centre frequency never changes with the pedal. But a broadband source (a
    /// guitar is roughly pink, i.e. constant energy per octave, above its fundamentals) loses
    /// power in proportion to the relative bandwidth `1/Q` of the filter: the narrow heel
    /// (Q 8) would sound about 6 dB quieter than the wide toe (Q 2). The level law multiplies
    /// the wet signal by `(Q(p) / Qg)^(levelCompensation / 2)`, with `Qg = sqrt(heelQ * toeQ)`
    /// the geometric-mean Q, i.e. the wet gain at the centre frequency is:
    ///
    /// - `levelCompensation == 0`: 0 dB everywhere (plain unity-peak band-pass);
    /// - `levelCompensation == 1` (default): `sqrt(Q / Qg)`, which makes the output power
    ///   constant across the sweep for pink input: +3 dB at the heel, 0 dB in the middle and
    ///   -3 dB at the toe with the default Qs;
    /// - in between: a proportionally milder slope (the exponent is interpolated).
    ///
    /// (The Cry Baby instead raises its gain toward the toe, `0.1 * 4^p`, to offset its
    /// resonator's falling peak gain; the unity-peak form makes that unnecessary.)
    public var levelCompensation: Double
    /// Linear output gain of the effect (wet and dry mix). Not applied in bypass. Default 1.
    public var outputGain: Double
    /// Dry/wet mix: 0 = dry only, 1 = wet only (default).
    public var mix: Double
    /// Pedal smoothing time in seconds (default 0.015). The pedal passes through two cascaded
    /// one-pole low-passes of time constant `smoothingTime / 2` each (critically damped, so
    /// the total mean delay is `smoothingTime` and the centre frequency never moves with a
    /// kink), at audio rate and *before* the exponential map. 0 disables smoothing.
    public var smoothingTime: Double
    /// Bypass. Switching crossfades linearly over 5 ms between the effect and the input; the
    /// filter keeps running while bypassed so re-engaging starts from a warm state.
    public var bypass: Bool

    public init(
        heelFrequency: Double = 450,
        toeFrequency: Double = 2200,
        heelQ: Double = 8,
        toeQ: Double = 2,
        levelCompensation: Double = 1,
        outputGain: Double = 1,
        mix: Double = 1,
        smoothingTime: Double = 0.015,
        bypass: Bool = false
    ) {
        self.heelFrequency = heelFrequency
        self.toeFrequency = toeFrequency
        self.heelQ = heelQ
        self.toeQ = toeQ
        self.levelCompensation = levelCompensation
        self.outputGain = outputGain
        self.mix = mix
        self.smoothingTime = smoothingTime
        self.bypass = bypass
    }

    /// The designed centre frequency `heel * (toe / heel)^p` in Hz; `pedal` is clamped to 0...1
    /// (NaN counts as 0). The processor additionally keeps the frequency within
    /// `[1 Hz, 0.49 * sampleRate]`.
    public func centreFrequency(pedal: Double) -> Double {
        let p = WahProcessor.clampUnit(pedal)
        return heelFrequency * exp2(p * log2(toeFrequency / heelFrequency))
    }

    /// The designed resonance `heelQ * (toeQ / heelQ)^p`; `pedal` is clamped to 0...1.
    public func q(pedal: Double) -> Double {
        let p = WahProcessor.clampUnit(pedal)
        return heelQ * exp2(p * log2(toeQ / heelQ))
    }
}

// MARK: - Processor

/// One channel of wah. JUCE-style `prepare` / `reset` / `process`.
///
/// Per sample: pedal smoother (pedal domain) -> exponential laws for centre frequency, `k = 1/Q`
/// and wet gain -> TPT state-variable band-pass (coefficients recomputed every sample) -> mix,
/// gain -> bypass crossfade.
///
/// Real-time safe: a value type with no references; `process` never allocates, locks or
/// dispatches dynamically, and calls no library functions. Filter state and coefficients are
/// `Double`: the recursion cannot be vectorised across time anyway, so on x86-64 and arm64
/// scalar `Double` costs the same as `Float`, and it buys a -300 dB noise floor for the
/// low-frequency, high-Q corner, a smoother that converges exactly instead of stalling at
/// Float resolution, and state that cannot overflow for any finite `Float` input.
///
/// For multi-channel audio use one processor per channel with identical settings and
/// identical `setPedal` calls: their pedal paths are identical.
public struct WahProcessor: Sendable {

    /// Per-sample constants derived from the settings and the sample rate.
    @usableFromInline
    struct Coefficients: Sendable {
        /// `pi * heelFrequency / sampleRate`: the pre-warped angle at the heel.
        @usableFromInline var angleHeel: Double = 0
        /// `log2(toe / heel)`: the angle is `angleHeel * 2^(p * angleSpan)`.
        @usableFromInline var angleSpan: Double = 0
        /// `1 / heelQ`: damping is `kHeel * 2^(p * kSpan)`.
        @usableFromInline var kHeel: Double = 0
        @usableFromInline var kSpan: Double = 0
        /// Wet gain (k, level law, mix and output gain together) is `wetHeel * 2^(p * wetSpan)`.
        @usableFromInline var wetHeel: Double = 0
        @usableFromInline var wetSpan: Double = 0
        /// `(1 - mix) * outputGain`.
        @usableFromInline var dryGain: Double = 0
        /// One-pole coefficient of each smoother stage (1 = no smoothing).
        @usableFromInline var smoothing: Double = 1
        /// Bypass crossfade increment per sample.
        @usableFromInline var crossfadeStep: Double = 1
        /// 1 = effect, 0 = bypassed.
        @usableFromInline var crossfadeTarget: Double = 1
        @usableFromInline init() {}
    }

    /// Everything that evolves sample by sample.
    @usableFromInline
    struct State: Sendable {
        /// TPT integrator states (`ic1eq`, `ic2eq`).
        @usableFromInline var s1: Double = 0
        @usableFromInline var s2: Double = 0
        /// Pedal target and the two smoother stages (`p2` is the pedal in use).
        @usableFromInline var target: Double = 0
        @usableFromInline var p1: Double = 0
        @usableFromInline var p2: Double = 0
        /// Bypass crossfade position: 1 = effect, 0 = input.
        @usableFromInline var crossfade: Double = 1
        @usableFromInline init() {}
    }

    @usableFromInline var coefficients = Coefficients()
    @usableFromInline var state = State()
    @usableFromInline var sampleRate: Double = 48_000

    /// The settings. Setting them recomputes the derived constants (no allocation, a few libm
    /// calls) but keeps the filter and pedal state, so it may be done between process calls.
    public var settings: WahSettings {
        didSet { updateCoefficients() }
    }

    public init(settings: WahSettings = .init()) {
        self.settings = settings
        updateCoefficients()
        reset()
    }

    /// Sets the sample rate, recomputes constants and resets the state.
    public mutating func prepare(sampleRate: Double) {
        self.sampleRate = (sampleRate.isFinite && sampleRate > 0) ? sampleRate : 48_000
        updateCoefficients()
        reset()
    }

    /// Clears the filter state; the pedal jumps to its target and bypass to its final state.
    public mutating func reset() {
        state.s1 = 0
        state.s2 = 0
        state.p1 = state.target
        state.p2 = state.target
        state.crossfade = coefficients.crossfadeTarget
    }

    /// Sets the pedal target (0 = heel, 1 = toe). Out-of-range values clamp, NaN is ignored.
    /// Takes effect from the next processed sample, whatever the block boundaries.
    @inlinable
    public mutating func setPedal(_ target: Float) {
        if target.isNaN { return }
        state.target = Double(min(max(target, 0), 1))
    }

    /// The current (smoothed) pedal position.
    public var pedal: Float { Float(state.p2) }

    /// Maps a MIDI controller value (0...127 for 7 bits, 0...16383 for 14 bits) to 0...1.
    /// Values outside the range clamp; `bits` is clamped to 1...30.
    public static func pedal(fromMIDI value: Int, bits: Int = 7) -> Float {
        let b = min(max(bits, 1), 30)
        let top = (1 << b) - 1
        let v = min(max(value, 0), top)
        return Float(Double(v) / Double(top))
    }

    /// Processes `count` samples. `input` and `output` may be the same buffer.
    @inlinable
    public mutating func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int) {
        // Work on scalar locals so the state lives in registers and stores through `output`
        // cannot force reloads.
        let co = coefficients
        let target = state.target
        var s1 = state.s1, s2 = state.s2, p1 = state.p1, p2 = state.p2, crossfade = state.crossfade
        var i = 0
        while i < count {
            output[i] = Self.tick(input[i], &s1, &s2, &p1, &p2, &crossfade, target, co)
            i &+= 1
        }
        state.s1 = s1
        state.s2 = s2
        state.p1 = p1
        state.p2 = p2
        state.crossfade = crossfade
    }

    /// Processes one sample. Identical, sample for sample, to `process`.
    @inlinable
    public mutating func processSample(_ x: Float) -> Float {
        Self.tick(x, &state.s1, &state.s2, &state.p1, &state.p2, &state.crossfade, state.target, coefficients)
    }

    // MARK: Internals

    /// One sample of the whole effect. The C reference `wah_ref_process` is this function,
    /// operation for operation.
    @inlinable @inline(__always)
    static func tick(
        _ input: Float, _ s1: inout Double, _ s2: inout Double, _ p1: inout Double, _ p2: inout Double,
        _ crossfade: inout Double, _ target: Double, _ co: Coefficients
    ) -> Float {
        let snap = 1e-12   // smoother stages snap to their input when closer (no subnormals)
        let flush = 1e-20  // filter states below this are flushed to zero (no subnormals)

        // 1. Pedal smoothing: two one-poles in the pedal domain, snapping when close.
        let d1 = target - p1
        p1 = abs(d1) < snap ? target : p1 + co.smoothing * d1
        let d2 = p1 - p2
        p2 = abs(d2) < snap ? p1 : p2 + co.smoothing * d2
        let p = p2

        // 2. Laws (all exponential in p): angle w = pi*fc/fs, damping k = 1/Q, wet gain.
        let w = co.angleHeel * fastExp2(p * co.angleSpan)
        let k = co.kHeel * fastExp2(p * co.kSpan)
        let wetGain = co.wetHeel * fastExp2(p * co.wetSpan)

        // 3. g = tan(w) = sn / cs (Taylor series, w <= 0.49*pi; only the ratio matters).
        //    With a1 = 1/(1 + g(g + k)), a2 = g*a1, a3 = g*a2 and numerator/denominator
        //    multiplied by cs^2, one division gives all three coefficients.
        let w2 = w * w
        let sn = w * (1.0 + w2 * (-1.0 / 6.0 + w2 * (1.0 / 120.0 + w2 * (-1.0 / 5040.0
            + w2 * (1.0 / 362880.0 + w2 * (-1.0 / 39916800.0))))))
        let cs = 1.0 + w2 * (-1.0 / 2.0 + w2 * (1.0 / 24.0 + w2 * (-1.0 / 720.0
            + w2 * (1.0 / 40320.0 + w2 * (-1.0 / 3628800.0 + w2 * (1.0 / 479001600.0))))))
        let ss = sn * sn
        let sc = sn * cs
        let cc = cs * cs
        let inv = 1.0 / (cc + ss + k * sc)
        let a1 = cc * inv
        let a2 = sc * inv
        let a3 = ss * inv

        // 4. TPT state-variable filter (Simper's form of hp/bp/lp = the note's equations).
        let x = Double(input)
        let v3 = x - s2
        var bp = a1 * s1 + a2 * v3
        let lp = s2 + a2 * s1 + a3 * v3
        var n1 = 2.0 * bp - s1
        var n2 = 2.0 * lp - s2
        var dry = x
        // Non-finite state (a NaN/Inf input, or anything else): reset, output 0 this sample.
        if !(abs(n1) + abs(n2) <= Double.greatestFiniteMagnitude) {
            n1 = 0
            n2 = 0
            bp = 0
            dry = 0
        }
        s1 = abs(n1) < flush ? 0 : n1
        s2 = abs(n2) < flush ? 0 : n2

        // 5. Mix, gain, bypass crossfade.
        let effect = co.dryGain * dry + wetGain * bp
        var c = crossfade
        if c != co.crossfadeTarget {
            if c < co.crossfadeTarget {
                c += co.crossfadeStep
                if c > co.crossfadeTarget { c = co.crossfadeTarget }
            } else {
                c -= co.crossfadeStep
                if c < co.crossfadeTarget { c = co.crossfadeTarget }
            }
            crossfade = c
        }
        var y: Double
        if c == 1.0 {
            y = effect
        } else if c == 0.0 {
            y = dry
        } else {
            y = dry + c * (effect - dry)
        }
        let limit = Double(Float.greatestFiniteMagnitude)
        if y > limit { y = limit }
        if y < -limit { y = -limit }
        return Float(y)
    }

    /// 2^y for |y| < 2^50, relative error < 6e-9, no library call: round y to the nearest
    /// integer n with the 1.5*2^52 trick, e^((y - n) ln 2) by its Taylor series to degree 7
    /// (|t| <= 0.347), and 2^n built from the exponent bits.
    @inlinable @inline(__always)
    static func fastExp2(_ y: Double) -> Double {
        let magic = 6755399441055744.0 // 1.5 * 2^52
        let r = y + magic
        let n = r - magic
        let t = (y - n) * 0.6931471805599453
        let e = 1.0 + t * (1.0 + t * (1.0 / 2.0 + t * (1.0 / 6.0 + t * (1.0 / 24.0
            + t * (1.0 / 120.0 + t * (1.0 / 720.0 + t * (1.0 / 5040.0)))))))
        let exponent = Int64(bitPattern: r.bitPattern) &- Int64(bitPattern: magic.bitPattern) &+ 1023
        return e * Double(bitPattern: UInt64(bitPattern: exponent) &<< 52)
    }

    @usableFromInline
    static func clampUnit(_ v: Double) -> Double {
        v.isNaN ? 0 : min(max(v, 0), 1)
    }

    /// Clamps a setting to a range; NaN (or any non-comparable value) takes the fallback.
    static func sanitize(_ v: Double, _ lo: Double, _ hi: Double, _ fallback: Double) -> Double {
        v.isNaN ? fallback : min(max(v, lo), hi)
    }

    /// Derived constants from settings + sample rate. Mirrors `wah_ref_update_settings`.
    mutating func updateCoefficients() {
        let s = settings
        let fs = sampleRate
        let nyquistGuard = 0.49 * fs
        let heel = Self.sanitize(s.heelFrequency, 1, nyquistGuard, 450)
        let toe = Self.sanitize(s.toeFrequency, 1, nyquistGuard, 2200)
        let heelQ = Self.sanitize(s.heelQ, 0.05, 200, 8)
        let toeQ = Self.sanitize(s.toeQ, 0.05, 200, 2)
        let level = Self.sanitize(s.levelCompensation, 0, 1, 1)
        let gain = s.outputGain.isFinite ? min(max(s.outputGain, -1000), 1000) : 1
        let mix = Self.sanitize(s.mix, 0, 1, 1)
        let smoothingTime = Self.sanitize(s.smoothingTime, 0, 10, 0.015)

        var c = Coefficients()
        c.angleHeel = Double.pi * heel / fs
        c.angleSpan = log2(toe / heel)
        c.kHeel = 1.0 / heelQ
        c.kSpan = log2(heelQ / toeQ)
        // wet = mix * gain * k * (Q/Qg)^(level/2) = mix*gain*Qg^(-level/2) * k^(1 - level/2)
        let qg = sqrt(heelQ * toeQ)
        let exponent = 1.0 - 0.5 * level
        c.wetHeel = mix * gain * pow(qg, -0.5 * level) * pow(c.kHeel, exponent)
        c.wetSpan = c.kSpan * exponent
        c.dryGain = (1.0 - mix) * gain
        let stageTime = 0.5 * smoothingTime
        c.smoothing = stageTime > 0 ? -expm1(-1.0 / (stageTime * fs)) : 1.0
        c.crossfadeStep = 1.0 / (0.005 * fs)
        c.crossfadeTarget = s.bypass ? 0.0 : 1.0
        coefficients = c
    }

    /// Internal view of the state, for tests (denormal and NaN checks).
    var stateForTesting: (s1: Double, s2: Double, p1: Double, p2: Double, crossfade: Double) {
        (state.s1, state.s2, state.p1, state.p2, state.crossfade)
    }
}
