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

/// What moves the pedal.
public enum WahMode: String, Sendable, CaseIterable {
    /// The sensor alone (`setPedal`). The default.
    case sensor
    /// An envelope follower on the input alone: `pedal = sensitivity * envelope` (an auto-wah).
    case envelope
    /// Both: `pedal = sensor + sensitivity * envelope`, clamped to 1. The wrist sets where the
    /// sweep starts, the pick attack opens it.
    case both
}

/// The wah's voice: the filter at its heart.
public enum WahVoice: String, Sendable, CaseIterable {
    /// A trapezoidal state-variable band-pass with designed laws (heel/toe frequency and Q,
    /// level law), unity gain at the peak, then the voice's make-up gain. The default.
    case svf
    /// A model of the Dunlop GCB-95 Cry Baby circuit (Crybaby.swift): its input and output
    /// networks, the pot's audio taper, the resonance and its boost (up to about 19 dB over the
    /// circuit's own low-frequency gain), and the transistor stage's soft clipping, then the
    /// voice's make-up gain. Samples are volts. Ignores the heel/toe frequency and Q settings and
    /// the level law.
    case crybaby

    /// The voice's make-up gain in dB: the wet signal's last gain, so that the wah at its default
    /// settings is as loud as bypass on a guitar. Every path gets it (JACK, `render`, the effect
    /// chain, the LV2 plugin), and so does each voice's C reference (Sources/CWahReference).
    ///
    /// How it is chosen: `tools/wah-level` renders six plucked-string materials (sox `synth
    /// pluck`, -6 dBFS peak, about 20 s each: the low strings E2 A2 D3; the high notes G3 to E5;
    /// E2 to E5 with sox's default, a bright and a dark tone; a four-note chord every 0.4 s)
    /// through a full pedal sweep, heel to toe and back every 4.3 s, and reads the RMS of the
    /// output against the input's. With no make-up gain the svf voice measures -10.3 to -8.8 dB
    /// on them (a band-pass keeps only part of a broadband spectrum) and the crybaby +7.0 to
    /// +8.5 dB (the circuit's resonant boost). The make-up gain is minus the middle of that span,
    /// so every material lands within +-0.75 dB of bypass (docs/effects.md has the table;
    /// `FirstHourTests` runs the tool and holds each cell to +-1.5 dB). The gain is fixed: it
    /// does not follow the heel/toe, Q or level-law settings or the material (a guitar with
    /// less of its sound between heel and toe comes out quieter, one with more louder), and the
    /// crybaby's distortion, which comes before it, still depends on the input's level in volts.
    public var makeUpGainDB: Double {
        switch self {
        case .svf: return 9.55
        case .crybaby: return -7.75
        }
    }

    /// `makeUpGainDB` as a linear factor, `10^(dB/20)` (libm's `pow`, as the C references).
    public var makeUpGain: Double { pow(10, makeUpGainDB / 20) }
}

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
    /// the geometric-mean Q, i.e. the wet gain at the centre frequency, before the voice's
    /// make-up gain (`WahVoice.makeUpGainDB`, +9.55 dB for the svf voice), is:
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
    /// The filter (default `.svf`). Switching voices keeps the pedal but clears the filter.
    public var voice: WahVoice
    /// What moves the pedal (default `.sensor`).
    public var mode: WahMode
    /// Envelope follower: attack and release time constants in seconds (one-pole on the
    /// rectified input; defaults 5 ms and 150 ms) and the pedal's travel per unit of envelope
    /// (default 2: a 0.5 envelope opens the pedal fully). The envelope's pedal goes through the
    /// same smoother as the sensor's.
    public var attackTime: Double
    public var releaseTime: Double
    public var sensitivity: Double

    public init(
        heelFrequency: Double = 450,
        toeFrequency: Double = 2200,
        heelQ: Double = 8,
        toeQ: Double = 2,
        levelCompensation: Double = 1,
        outputGain: Double = 1,
        mix: Double = 1,
        smoothingTime: Double = 0.015,
        bypass: Bool = false,
        voice: WahVoice = .svf,
        mode: WahMode = .sensor,
        attackTime: Double = 0.005,
        releaseTime: Double = 0.15,
        sensitivity: Double = 2
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
        self.voice = voice
        self.mode = mode
        self.attackTime = attackTime
        self.releaseTime = releaseTime
        self.sensitivity = sensitivity
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
/// Real-time safe: a value type with no references; `process` never allocates (its 256-byte
/// scratch is on the stack), locks or dispatches dynamically, and calls no library functions,
/// so the output is also the same on every libm. Its time per sample against the same
/// algorithm in C at -O2: `tools/jack-bench wah` (figures in docs/performance.md).
///
/// Filter state and coefficients are `Double`: the recursion cannot be vectorised across time
/// anyway and scalar `Double` arithmetic costs the same as `Float` on x86-64 and arm64, while it
/// gives a noise floor far below audibility in the low-frequency, high-Q corner, a smoother that
/// lands exactly on its target instead of stalling at Float resolution, and state that cannot
/// overflow for any finite `Float` input.
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
        /// Wet gain (k, level law, mix, output gain and the voice's make-up gain together) is
        /// `wetHeel * 2^(p * wetSpan)`.
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
        // crybaby voice
        @usableFromInline var crybaby = false
        /// `pi / sampleRate`.
        @usableFromInline var piOverRate: Double = 0
        /// TPT one-pole gains `g/(1+g)` of the input network's pole and the output coupling.
        @usableFromInline var cbInputG: Double = 0
        @usableFromInline var cbOutputG: Double = 0
        /// `wz1 / wp1`: the input network's low-frequency shelf.
        @usableFromInline var cbInputRatio: Double = 0
        /// The loop zeros' numerator `s^2/wz3 + (1 + wz2/wz3) s + wz2`.
        @usableFromInline var cbHigh: Double = 0
        @usableFromInline var cbBand: Double = 0
        @usableFromInline var cbLow: Double = 0
        /// `mix * outputGain * WahVoice.crybaby.makeUpGain`.
        @usableFromInline var cbWetGain: Double = 0
        // envelope follower
        @usableFromInline var following = false
        @usableFromInline var envelopeOnly = false
        @usableFromInline var attack: Double = 1
        @usableFromInline var release: Double = 1
        @usableFromInline var sensitivity: Double = 0
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
        /// crybaby voice: input network and output coupling one-poles, the two distortion
        /// resonators (`s1`, `s2` serve its main resonator).
        @usableFromInline var c0: Double = 0
        @usableFromInline var c1: Double = 0
        @usableFromInline var t1: Double = 0
        @usableFromInline var t2: Double = 0
        @usableFromInline var u1: Double = 0
        @usableFromInline var u2: Double = 0
        /// Envelope follower output.
        @usableFromInline var envelope: Double = 0
        @usableFromInline init() {}
    }

    @usableFromInline var coefficients = Coefficients()
    @usableFromInline var state = State()
    @usableFromInline var sampleRate: Double = 48_000

    /// The settings. Setting them recomputes the derived constants (no allocation, a few libm
    /// calls) but keeps the filter and pedal state, so it may be done between process calls.
    public var settings: WahSettings {
        didSet {
            updateCoefficients()
            if settings.voice != oldValue.voice { clearFilter() }
        }
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
        clearFilter()
        // the envelope (cleared) is the whole pedal in envelope mode
        let start = coefficients.envelopeOnly ? 0 : state.target
        state.p1 = start
        state.p2 = start
        state.crossfade = coefficients.crossfadeTarget
    }

    mutating func clearFilter() {
        state.s1 = 0
        state.s2 = 0
        state.c0 = 0
        state.c1 = 0
        state.t1 = 0
        state.t2 = 0
        state.u1 = 0
        state.u2 = 0
        state.envelope = 0
    }

    /// Engages (false) or bypasses (true) the effect at run time with the usual 5 ms crossfade,
    /// touching nothing else: one store, real-time safe (`settings.bypass` is the initial state
    /// and applies again when the settings change).
    @inlinable
    public mutating func setBypass(_ bypassed: Bool) {
        coefficients.crossfadeTarget = bypassed ? 0 : 1
    }

    /// True while bypassed or fading out (the crossfade target).
    public var isBypassed: Bool { coefficients.crossfadeTarget == 0 }

    /// Sets the pedal target (0 = heel, 1 = toe). Out-of-range values clamp, NaN is ignored.
    /// Takes effect from the next processed sample, whatever the block boundaries.
    @inlinable
    public mutating func setPedal(_ target: Float) {
        if target.isNaN { return }
        state.target = Double(min(max(target, 0), 1))
    }

    /// The current (smoothed) pedal position, envelope included.
    public var pedal: Float { Float(state.p2) }

    /// The envelope follower's output (0 unless the mode follows the envelope).
    public var envelope: Double { state.envelope }

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
        if count <= 0 { return }
        if coefficients.following {
            state = Self.renderFollowing(input, output, count, state, coefficients)
        } else if coefficients.crybaby {
            state = Self.renderCrybaby(input, output, count, state, coefficients)
        } else {
            state = Self.render(input, output, count, state, coefficients)
        }
    }

    /// Processes one sample. Identical, bit for bit, to `process` over the same samples.
    @inlinable
    public mutating func processSample(_ x: Float) -> Float {
        if coefficients.following {
            var y: Float = 0
            withUnsafePointer(to: x) { i in
                withUnsafeMutablePointer(to: &y) { o in
                    state = Self.renderFollowing(i, o, 1, state, coefficients)
                }
            }
            return y
        }
        let p = Self.smooth(&state.p1, &state.p2, state.target, coefficients.smoothing)
        if coefficients.crybaby {
            return Self.crybabySample(x, Self.crybabyLaws(p, coefficients), &state, coefficients)
        }
        let c = Self.laws(p, coefficients)
        return Self.filter(x, c.a1, c.a2, c.a3, c.wet, &state.s1, &state.s2, &state.crossfade, coefficients)
    }

    // MARK: Internals

    /// Samples per chunk in `render` (scratch is `4 * chunk` Doubles = 256 bytes on the stack).
    @usableFromInline static var chunk: Int { 8 }

    /// The block loop, in chunks of `chunk` samples and three passes per chunk:
    /// 1. the pedal smoother (a short recurrence),
    /// 2. the coefficients of every sample of the chunk (no recurrence: the CPU overlaps the
    ///    samples and the optimiser may vectorise),
    /// 3. the filter recurrence, mix and crossfade.
    /// Every sample gets exactly the operations of `processSample`, so the output does not depend
    /// on block or chunk boundaries. State goes in and out by value: a local the compiler keeps in
    /// registers, which no store through `output` can alias.
    @inlinable
    static func render(
        _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int,
        _ initial: State, _ co: Coefficients
    ) -> State {
        var st = initial
        let n = chunk
        // 256 bytes: always on the stack (the standard library heap-allocates only above 1 KiB).
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 4 * n) { scratch in
            let pw = scratch.baseAddress!  // pedal position, then wet gain
            let c1 = pw + n, c2 = pw + 2 * n, c3 = pw + 3 * n
            let target = st.target, smoothing = co.smoothing
            var s1 = st.s1, s2 = st.s2, p1 = st.p1, p2 = st.p2, crossfade = st.crossfade
            var base = 0
            while base < count {
                let m = min(count &- base, n)
                var i = 0
                while i < m {
                    pw[i] = smooth(&p1, &p2, target, smoothing)
                    i &+= 1
                }
                i = 0
                while i < m {
                    let c = laws(pw[i], co)
                    c1[i] = c.a1
                    c2[i] = c.a2
                    c3[i] = c.a3
                    pw[i] = c.wet
                    i &+= 1
                }
                i = 0
                while i < m {
                    output[base &+ i] = filter(
                        input[base &+ i], c1[i], c2[i], c3[i], pw[i], &s1, &s2, &crossfade, co)
                    i &+= 1
                }
                base &+= m
            }
            st.s1 = s1
            st.s2 = s2
            st.p1 = p1
            st.p2 = p2
            st.crossfade = crossfade
        }
        return st
    }

    /// Pedal smoothing: two one-poles in the pedal domain, each snapping to its input when
    /// closer than 1e-12 (so they reach the target exactly and never go subnormal).
    /// Returns the pedal position to use for this sample.
    @inlinable @inline(__always)
    static func smooth(_ p1: inout Double, _ p2: inout Double, _ target: Double, _ a: Double) -> Double {
        let snap = 1e-12
        let d1 = target - p1
        p1 = abs(d1) < snap ? target : p1 + a * d1
        let d2 = p1 - p2
        p2 = abs(d2) < snap ? p1 : p2 + a * d2
        return p2
    }

    /// The laws at pedal `p` and the filter coefficients they give.
    ///
    /// All three laws are exponential in `p`: angle `w = pi*fc/fs`, damping `k = 1/Q` and wet gain.
    /// `g = tan(w) = sn / cs` from Taylor series of sin and cos (w <= 0.49*pi; only the ratio
    /// matters). With `a1 = 1/(1 + g(g + k))`, `a2 = g*a1`, `a3 = g*a2` and numerator and
    /// denominator multiplied by `cs^2`, a single division gives all three coefficients.
    @inlinable @inline(__always)
    static func laws(_ p: Double, _ co: Coefficients) -> (a1: Double, a2: Double, a3: Double, wet: Double) {
        let w = co.angleHeel * fastExp2(p * co.angleSpan)
        let k = co.kHeel * fastExp2(p * co.kSpan)
        let wet = co.wetHeel * fastExp2(p * co.wetSpan)
        let w2 = w * w
        let sn =
            w
            * (1.0 + w2
                * (-1.0 / 6.0 + w2
                    * (1.0 / 120.0 + w2
                        * (-1.0 / 5040.0
                            + w2 * (1.0 / 362880.0 + w2 * (-1.0 / 39916800.0))))))
        let cs =
            1.0 + w2
            * (-1.0 / 2.0 + w2
                * (1.0 / 24.0 + w2
                    * (-1.0 / 720.0
                        + w2 * (1.0 / 40320.0 + w2 * (-1.0 / 3628800.0 + w2 * (1.0 / 479001600.0))))))
        let ss = sn * sn
        let sc = sn * cs
        let cc = cs * cs
        let inv = 1.0 / (cc + ss + k * sc)
        return (cc * inv, sc * inv, ss * inv, wet)
    }

    /// One sample of the TPT state-variable filter (Simper's form, algebraically the note's
    /// `hp/bp/lp` equations: `bp = a1*s1 + a2*(x - s2)`, `lp = s2 + a2*s1 + a3*(x - s2)`,
    /// `s1 = 2bp - s1`, `s2 = 2lp - s2`), then mix, gain and bypass crossfade.
    ///
    /// - Non-finite state (from a NaN/Inf input or anything else): both states reset to 0 and the
    ///   sample's output is 0.
    /// - States below 1e-20 are flushed to 0: silence decays to exact zeros, never subnormals.
    /// - The output is clamped to the finite Float range.
    @inlinable @inline(__always)
    static func filter(
        _ input: Float, _ a1: Double, _ a2: Double, _ a3: Double, _ wetGain: Double,
        _ s1: inout Double, _ s2: inout Double, _ crossfade: inout Double, _ co: Coefficients
    ) -> Float {
        let flush = 1e-20
        let x = Double(input)
        let v3 = x - s2
        var bp = a1 * s1 + a2 * v3
        let lp = s2 + a2 * s1 + a3 * v3
        var n1 = (bp + bp) - s1
        var n2 = 2.0 * lp - s2
        var dry = x
        if !(abs(n1) + abs(n2) <= Double.greatestFiniteMagnitude) {
            n1 = 0
            n2 = 0
            bp = 0
            dry = 0
        }
        s1 = abs(n1) < flush ? 0 : n1
        s2 = abs(n2) < flush ? 0 : n2

        return crossfadeAndLimit(co.dryGain * dry + wetGain * bp, dry, &crossfade, co)
    }

    /// The end of every voice's sample: one step of the 5 ms bypass crossfade from `dry` to
    /// `effect` (the voice's wet signal mixed with the dry one), then the output clamped to the
    /// finite Float range.
    @inlinable @inline(__always)
    static func crossfadeAndLimit(_ effect: Double, _ dry: Double, _ crossfade: inout Double, _ co: Coefficients)
        -> Float
    {
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

    /// 2^y for |y| < 2^50, relative error < 1e-8 (7e-9 measured), no library call: round y to the nearest
    /// integer n with the 1.5*2^52 trick, e^((y - n) ln 2) by its Taylor series to degree 7
    /// (|t| <= 0.347), and 2^n built from the exponent bits.
    @inlinable @inline(__always)
    static func fastExp2(_ y: Double) -> Double {
        let magic = 6755399441055744.0  // 1.5 * 2^52
        let r = y + magic
        let n = r - magic
        let t = (y - n) * 0.6931471805599453
        let e =
            1.0 + t
            * (1.0 + t
                * (1.0 / 2.0 + t
                    * (1.0 / 6.0 + t
                        * (1.0 / 24.0
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
        // wet = mix * gain * makeUp * k * (Q/Qg)^(level/2)
        //     = mix * gain * makeUp * Qg^(-level/2) * k^(1 - level/2)
        let qg = sqrt(heelQ * toeQ)
        let exponent = 1.0 - 0.5 * level
        c.wetHeel = mix * gain * WahVoice.svf.makeUpGain * pow(qg, -0.5 * level) * pow(c.kHeel, exponent)
        c.wetSpan = c.kSpan * exponent
        c.dryGain = (1.0 - mix) * gain
        let stageTime = 0.5 * smoothingTime
        c.smoothing = stageTime > 0 ? -expm1(-1.0 / (stageTime * fs)) : 1.0
        c.crossfadeStep = 1.0 / (0.005 * fs)
        c.crossfadeTarget = s.bypass ? 0.0 : 1.0
        c.crybaby = s.voice == .crybaby
        c.piOverRate = Double.pi / fs
        func onePoleG(_ hz: Double) -> Double {
            let g = tan(Double.pi * min(hz, nyquistGuard) / fs)
            return g / (1 + g)
        }
        c.cbInputG = onePoleG(CrybabyModel.inputPoleHz)
        c.cbOutputG = onePoleG(CrybabyModel.outputCornerHz)
        c.cbInputRatio = CrybabyModel.inputZeroHz / CrybabyModel.inputPoleHz
        let wz2 = 2 * Double.pi * CrybabyModel.loopZeroHz, wz3 = 2 * Double.pi * CrybabyModel.highZeroHz
        c.cbHigh = 1 / wz3
        c.cbBand = 1 + wz2 / wz3
        c.cbLow = wz2
        c.cbWetGain = mix * gain * WahVoice.crybaby.makeUpGain
        c.following = s.mode != .sensor
        c.envelopeOnly = s.mode == .envelope
        let attack = Self.sanitize(s.attackTime, 0, 10, 0.005)
        let release = Self.sanitize(s.releaseTime, 0, 10, 0.15)
        c.attack = attack > 0 ? -expm1(-1.0 / (attack * fs)) : 1.0
        c.release = release > 0 ? -expm1(-1.0 / (release * fs)) : 1.0
        c.sensitivity = Self.sanitize(s.sensitivity, 0, 1000, 2)
        coefficients = c
    }

    /// The block loop when an envelope moves the pedal (any voice): per sample, the envelope
    /// follower (rectify, attack/release one-pole; a non-finite input counts as silence), the
    /// pedal target from the mode, the smoother, then the voice's laws and sample exactly as in
    /// the sensor-only loops.
    @inlinable
    static func renderFollowing(
        _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int,
        _ initial: State, _ co: Coefficients
    ) -> State {
        var st = initial
        var cbLaws = crybabyLaws(st.p2, co)
        var lawsPedal = st.p2
        var i = 0
        while i < count {
            let x = input[i]
            var rectified = abs(Double(x))
            if !(rectified <= Double(Float.greatestFiniteMagnitude)) { rectified = 0 }
            var e = st.envelope
            e += (rectified > e ? co.attack : co.release) * (rectified - e)
            st.envelope = e < 1e-20 ? 0 : e
            let opened = co.sensitivity * st.envelope
            let target = min(co.envelopeOnly ? opened : st.target + opened, 1.0)
            let p = smooth(&st.p1, &st.p2, target, co.smoothing)
            if co.crybaby {
                if p != lawsPedal {
                    cbLaws = crybabyLaws(p, co)
                    lawsPedal = p
                }
                output[i] = crybabySample(x, cbLaws, &st, co)
            } else {
                let c = laws(p, co)
                output[i] = filter(x, c.a1, c.a2, c.a3, c.wet, &st.s1, &st.s2, &st.crossfade, co)
            }
            i &+= 1
        }
        return st
    }

    /// Internal view of the state, for tests (denormal and NaN checks).
    var stateForTesting: (s1: Double, s2: Double, p1: Double, p2: Double, crossfade: Double) {
        (state.s1, state.s2, state.p1, state.p2, state.crossfade)
    }
}
