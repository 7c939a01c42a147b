// EffectMath.swift — what every effect shares: the audio-rate parameter smoother, the bypass
// crossfade, a polynomial cosine and tangent, and the tanh the fuzz uses. Per sample only
// +, -, *, / and bit manipulation (no library calls), so the C reference
// (Sources/CEffectReference) follows the same operations.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parameter at audio rate: a one-pole low-pass toward the target, snapping to it when closer
/// than 1e-12 (so it lands exactly and never goes subnormal). 20 ms time constant in the chain.
@usableFromInline
struct Smoother: Sendable {
    @usableFromInline var current: Double
    @usableFromInline var target: Double
    @usableFromInline var coefficient: Double

    @usableFromInline init(_ value: Double, coefficient: Double) {
        current = value
        target = value
        self.coefficient = coefficient
    }

    /// The one-pole coefficient for a time constant in seconds (1 = no smoothing).
    @usableFromInline static func coefficient(time: Double, sampleRate: Double) -> Double {
        time > 0 ? -expm1(-1.0 / (time * sampleRate)) : 1.0
    }

    @inlinable @inline(__always)
    mutating func next() -> Double {
        let d = target - current
        current = abs(d) < 1e-12 ? target : current + coefficient * d
        return current
    }

    @inlinable var isSettled: Bool { current == target }

    @inlinable mutating func jump() { current = target }
}

/// The 5 ms linear crossfade between the effect (1) and its input (0). At 0 the output is the
/// input itself, bit for bit; at 1 the effect's output.
@usableFromInline
struct BypassFade: Sendable {
    @usableFromInline var position: Double
    @usableFromInline var target: Double
    @usableFromInline var step: Double

    @usableFromInline init(bypassed: Bool, sampleRate: Double) {
        position = bypassed ? 0 : 1
        target = position
        step = 1.0 / (0.005 * sampleRate)
    }

    @inlinable var isBypassed: Bool { target == 0 }

    @inlinable mutating func set(bypassed: Bool) { target = bypassed ? 0 : 1 }

    /// One sample: advance the fade, mix, clamp to the finite Float range.
    @inlinable @inline(__always)
    mutating func apply(dry: Float, wet: Double) -> Float {
        var c = position
        if c != target {
            if c < target {
                c += step
                if c > target { c = target }
            } else {
                c -= step
                if c < target { c = target }
            }
            position = c
        }
        if c == 0.0 { return dry }
        var y = c == 1.0 ? wet : Double(dry) + c * (wet - Double(dry))
        let limit = Double(Float.greatestFiniteMagnitude)
        if !(y <= limit) { y = y.isNaN ? 0 : limit }
        if y < -limit { y = -limit }
        return Float(y)
    }
}

@usableFromInline
enum EffectMath {
    /// cos(2 pi t) for any finite t (turns), absolute error < 1e-9: reduced to a quarter turn,
    /// then Taylor series of cos and sin to degree 12 / 13.
    @inlinable @inline(__always)
    static func cosTurns(_ t: Double) -> Double {
        let magic = 6755399441055744.0  // 1.5 * 2^52: round to nearest
        var x = t - ((t + magic) - magic)  // -0.5 ... 0.5
        if x < 0 { x = -x }  // cos is even: 0 ... 0.5
        var sign = 1.0
        if x > 0.25 { x = 0.5 - x; sign = -1 }  // cos(pi - a) = -cos(a): 0 ... 0.25
        let w = x * 6.283185307179586  // 0 ... pi/2
        let w2 = w * w
        let c =
            1.0 + w2
            * (-1.0 / 2.0 + w2
                * (1.0 / 24.0 + w2
                    * (-1.0 / 720.0 + w2
                        * (1.0 / 40320.0
                            + w2 * (-1.0 / 3628800.0 + w2 * (1.0 / 479001600.0))))))
        return sign * c
    }

    /// sin(2 pi t) = cos(2 pi (t - 1/4)).
    @inlinable @inline(__always)
    static func sinTurns(_ t: Double) -> Double { cosTurns(t - 0.25) }

    /// tan(w) for 0 <= w <= 1.5 from Taylor series of sin and cos (as the wah does).
    @inlinable @inline(__always)
    static func tan(_ w: Double) -> Double {
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
        return sn / cs
    }

    /// tanh(x) = 1 - 2 / (e^(2|x|) + 1) with the sign of x, e^(2|x|) by the wah's polynomial exp2;
    /// |x| >= 20 gives +-1. Relative error < 1e-8 (absolute < 1e-15 near 0 is not kept: the
    /// subtraction loses digits below |x| ~ 1e-8, where tanh(x) ~ x within 1e-8 anyway).
    @inlinable @inline(__always)
    static func tanh(_ x: Double) -> Double {
        var a = x < 0 ? -x : x
        if !(a < 20) { a = 20 }
        let e = WahProcessor.fastExp2(a * 2.8853900817779268)  // 2 / ln 2
        let t = 1.0 - 2.0 / (e + 1.0)
        return x < 0 ? -t : t
    }

    /// Values below 1e-20 in magnitude become 0 (no subnormals in recursive state).
    @inlinable @inline(__always)
    static func flush(_ v: Double) -> Double { abs(v) < 1e-20 ? 0 : v }

    /// Clamps a parameter value from outside: NaN gives nil (ignored).
    @inlinable @inline(__always)
    static func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double? {
        v.isNaN ? nil : min(max(v, lo), hi)
    }
}
