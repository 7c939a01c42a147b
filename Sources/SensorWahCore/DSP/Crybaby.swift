// Crybaby.swift — the `crybaby` voice: a model of the Dunlop GCB-95 Cry Baby circuit.
//
// The reference is an ngspice simulation of the published schematic (tools/spice/crybaby.cir:
// 0.5 H coil, 10 nF tank capacitor, 33k, 68k/10 nF input network, 100k audio-taper pot, two
// high-gain NPNs). The model, fitted to it by tools/spice/fit:
//
//     H(s) = K(p) * (s + wz1)/(s + wp1)                     input network
//                 * (s^2/wz3 + (1 + wz2/wz3) s + wz2)        the loop's fixed zeros
//                 / (s^2 + (w0(p)/Q(p)) s + w0(p)^2)         the pot-tuned resonance
//                 * s/(s + wo)                               output coupling (C4 into the load)
//
// with log2 w0, log2 Q and log2 K polynomials of degree 6 in the pedal p, the pot's audio taper
// and the pedal's travel folded in. Each part is discretised with the trapezoidal rule (TPT,
// zero-delay feedback): one-pole sections and a state-variable resonator pre-warped at w0, so
// the peak sits exactly at its analog frequency and the filter stays clean when w0 moves every
// sample.
//
// The transistor stage: Q1's exponential characteristic makes distortion at its collector,
// mostly second harmonic, which the feedback loop shapes like the signal itself. The model
// makes it from the linear output y: d1 = a2 y^2 through a copy of the resonator (same
// coefficients), then d2 = 2 a2 y r1 + a3 y^3 (the second harmonic going round the loop once
// more, and the cubic term) through another copy; the sum is soft-limited to the collector's
// headroom (about 4.4 V either way from its 4.56 V bias). a2 rises toward the heel
// (a2 * 2^(c (1 - p))). a2, a3 and c are scaled to ngspice's transient harmonics at 1 V peak.
// Samples are volts: 1.0 in the buffer is a 1 V signal from the guitar. What the voice outputs
// is the circuit's output times the voice's make-up gain (`WahVoice.crybaby.makeUpGainDB`,
// -7.75 dB), which brings a plucked guitar swept through it back to the level of bypass; the
// tests divide it out to compare the model with SPICE.
//
// Per sample: +, -, *, / and sqrt only; no library calls, no allocation.

/// The Cry Baby model's constants and laws (fitted by tools/spice/fit; see the file header).
public enum CrybabyModel {
    /// Input network zero and pole, loop zeros, output coupling corner (Hz).
    @inlinable public static var inputZeroHz: Double { 22.151955 }
    @inlinable public static var inputPoleHz: Double { 231.727680 }
    @inlinable public static var loopZeroHz: Double { 471.821743 }
    @inlinable public static var highZeroHz: Double { 10097.8321 }
    /// C4 (220 nF) into the pot in parallel with a 1 M amplifier input: 1/(2 pi 220n 90.9k).
    @inlinable public static var outputCornerHz: Double { 7.958 }
    /// The transistor stage (see the file header).
    @inlinable public static var a2: Double { 0.0176257 }
    @inlinable public static var a3: Double { -0.00260259 }
    @inlinable public static var heelDistortionSlope: Double { 0.9294779 }
    /// Collector headroom, volts.
    @inlinable public static var headroom: Double { 4.4 }

    /// The pot: rotation `r = 1 - 0.8 p` (heel: wiper at the top), audio taper
    /// `R = 100k (81^r - 1) / 80` between wiper and ground (the netlist's `rvm`).
    public static func potResistance(pedal: Double) -> Double {
        let p = WahProcessor.clampUnit(pedal)
        let r = 1 - 0.8 * p
        return 100_000 * (WahProcessor.fastExp2(r * 6.339850002884625) - 1) / 80  // 81^r = 2^(r log2 81)
    }

    /// log2 of the resonance frequency (Hz) at pedal `p` (0...1).
    @inlinable @inline(__always)
    static func log2Frequency(_ p: Double) -> Double {
        8.6704348899e+00 + p
            * (2.3222015926e+00 + p
                * (-9.8858452204e-01 + p
                    * (3.0139140040e+00
                        + p * (-4.1998607859e+00 + p * (2.6425668727e+00 + p * -6.8951411284e-01)))))
    }

    /// log2 of the resonance's Q.
    @inlinable @inline(__always)
    static func log2Q(_ p: Double) -> Double {
        3.5893152308e+00 + p
            * (-1.7675786260e+00 + p
                * (1.7089026197e+00 + p
                    * (-6.3217008313e+00
                        + p * (8.8010379283e+00 + p * (-5.6908470907e+00 + p * 1.4964348046e+00)))))
    }

    /// log2 of the gain K.
    @inlinable @inline(__always)
    static func log2Gain(_ p: Double) -> Double {
        1.0486126328e+01 + p
            * (4.9669805705e+00 + p
                * (-3.1441138531e+00 + p
                    * (8.4757535730e+00
                        + p * (-1.1392236346e+01 + p * (7.2398252717e+00 + p * -1.9026414790e+00)))))
    }

    /// Resonance frequency (Hz) and Q at a pedal position (clamped to 0...1).
    public static func resonance(pedal: Double) -> (frequency: Double, q: Double) {
        let p = WahProcessor.clampUnit(pedal)
        return (WahProcessor.fastExp2(log2Frequency(p)), WahProcessor.fastExp2(log2Q(p)))
    }

    /// The analog prototype's response |H(j 2 pi f)| at a pedal position (small signal).
    public static func analogMagnitude(pedal: Double, frequency f: Double) -> Double {
        let p = WahProcessor.clampUnit(pedal)
        let w = 2 * Double.pi * f
        let w0 = 2 * Double.pi * WahProcessor.fastExp2(log2Frequency(p))
        let q = WahProcessor.fastExp2(log2Q(p))
        let k = WahProcessor.fastExp2(log2Gain(p))
        let z1 = 2 * Double.pi * inputZeroHz, p1 = 2 * Double.pi * inputPoleHz
        let z2 = 2 * Double.pi * loopZeroHz, z3 = 2 * Double.pi * highZeroHz
        let wo = 2 * Double.pi * outputCornerHz
        func abs2(_ re: Double, _ im: Double) -> Double { re * re + im * im }
        let input = abs2(z1, w) / abs2(p1, w)
        let numerator = abs2(z2 - w * w / z3, w * (1 + z2 / z3))
        let denominator = abs2(w0 * w0 - w * w, w * w0 / q)
        let output = (w * w) / abs2(wo, w)
        return k * (input * numerator / denominator * output).squareRoot()
    }
}

extension WahProcessor {
    /// Per-pedal coefficients of the crybaby voice.
    @usableFromInline
    struct CrybabyLaws: Sendable {
        @usableFromInline var a1 = 0.0, a2 = 0.0, a3 = 0.0, k = 0.0
        /// Output mix of the resonator's high-, band- and low-pass.
        @usableFromInline var mh = 0.0, mb = 0.0, ml = 0.0
        /// The distortion's second-order coefficient at this pedal.
        @usableFromInline var dist2 = 0.0
        @usableFromInline init() {}
    }

    @inlinable @inline(__always)
    static func crybabyLaws(_ p: Double, _ co: Coefficients) -> CrybabyLaws {
        var l = CrybabyLaws()
        let f0 = fastExp2(CrybabyModel.log2Frequency(p))
        let q = fastExp2(CrybabyModel.log2Q(p))
        let gain = fastExp2(CrybabyModel.log2Gain(p))
        let w = min(f0 * co.piOverRate, 1.5)
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
        let k = 1.0 / q
        let ss = sn * sn, sc = sn * cs, cc = cs * cs
        let inv = 1.0 / (cc + ss + k * sc)
        l.a1 = cc * inv
        l.a2 = sc * inv
        l.a3 = ss * inv
        l.k = k
        let w0 = 2 * Double.pi * f0
        l.mh = gain * co.cbHigh
        l.mb = gain * co.cbBand / w0
        l.ml = gain * co.cbLow / (w0 * w0)
        l.dist2 = CrybabyModel.a2 * fastExp2(CrybabyModel.heelDistortionSlope * (1 - p))
        return l
    }

    /// One TPT state-variable section: returns the mix `mh*hp + mb*bp + ml*lp`.
    @inlinable @inline(__always)
    static func crybabyResonator(_ x: Double, _ l: CrybabyLaws, _ s1: inout Double, _ s2: inout Double) -> Double {
        let v3 = x - s2
        let bp = l.a1 * s1 + l.a2 * v3
        let lp = s2 + l.a2 * s1 + l.a3 * v3
        s1 = (bp + bp) - s1
        s2 = (lp + lp) - s2
        let hp = x - l.k * bp - lp
        return l.mh * hp + l.mb * bp + l.ml * lp
    }

    /// Soft limit with a flat knee: `v / (1 + (v/L)^4)^(1/4)` (no cubic term, so small signals
    /// pass untouched; large ones approach +-L).
    @inlinable @inline(__always)
    static func headroomLimit(_ v: Double) -> Double {
        let r = v * (1.0 / CrybabyModel.headroom)
        let r2 = r * r
        return v / (1.0 + r2 * r2).squareRoot().squareRoot()
    }

    /// One sample of the crybaby voice (filter, transistor stage, output coupling), then the
    /// make-up gain, mix, gain and bypass crossfade as the svf voice does. Non-finite state resets to 0; tiny
    /// states flush to 0.
    @inlinable @inline(__always)
    static func crybabySample(_ input: Float, _ l: CrybabyLaws, _ st: inout State, _ co: Coefficients) -> Float {
        let x = Double(input)
        // input network: (s + wz1)/(s + wp1) = hp + (wz1/wp1) lp of a one-pole at wp1
        let v = (x - st.c0) * co.cbInputG
        let lp1 = v + st.c0
        let n0 = lp1 + v
        let u = (x - lp1) + co.cbInputRatio * lp1
        // resonator, then the transistor stage's distortion through two copies of it
        let y = crybabyResonator(u, l, &st.s1, &st.s2)
        let yb = headroomLimit(y)
        let r1 = crybabyResonator(l.dist2 * yb * yb, l, &st.t1, &st.t2)
        let r1b = headroomLimit(r1)
        let r2 = crybabyResonator((2 * l.dist2 * r1b + CrybabyModel.a3 * yb * yb) * yb, l, &st.u1, &st.u2)
        let collector = headroomLimit(y + r1 + r2)
        // output coupling: one-pole high-pass at wo
        let vo = (collector - st.c1) * co.cbOutputG
        let lpo = vo + st.c1
        let n1 = lpo + vo
        var wet = collector - lpo
        var dry = x

        let flush = 1e-20
        let total = abs(n0) + abs(n1) + abs(st.s1) + abs(st.s2) + abs(st.t1) + abs(st.t2) + abs(st.u1) + abs(st.u2)
        if !(total <= Double.greatestFiniteMagnitude) {
            st.c0 = 0; st.c1 = 0; st.s1 = 0; st.s2 = 0; st.t1 = 0; st.t2 = 0; st.u1 = 0; st.u2 = 0
            wet = 0
            dry = 0
        } else {
            st.c0 = abs(n0) < flush ? 0 : n0
            st.c1 = abs(n1) < flush ? 0 : n1
            if abs(st.s1) < flush { st.s1 = 0 }
            if abs(st.s2) < flush { st.s2 = 0 }
            if abs(st.t1) < flush { st.t1 = 0 }
            if abs(st.t2) < flush { st.t2 = 0 }
            if abs(st.u1) < flush { st.u1 = 0 }
            if abs(st.u2) < flush { st.u2 = 0 }
        }

        return crossfadeAndLimit(co.dryGain * dry + co.cbWetGain * wet, dry, &st.crossfade, co)
    }

    /// The crybaby block loop: pedal smoother, laws recomputed only when the smoothed pedal
    /// moved, the sample. Same operations per sample whatever the block boundaries.
    @inlinable
    static func renderCrybaby(
        _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int,
        _ initial: State, _ co: Coefficients
    ) -> State {
        var st = initial
        var laws = crybabyLaws(st.p2, co)
        var lawsPedal = st.p2
        var i = 0
        while i < count {
            let p = smooth(&st.p1, &st.p2, st.target, co.smoothing)
            if p != lawsPedal {
                laws = crybabyLaws(p, co)
                lawsPedal = p
            }
            output[i] = crybabySample(input[i], laws, &st, co)
            i &+= 1
        }
        return st
    }
}
