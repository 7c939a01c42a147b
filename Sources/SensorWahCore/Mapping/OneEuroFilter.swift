#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one-euro filter (Casiez, Roussel and Vogel, CHI 2012): a low-pass whose cutoff rises
/// with the signal's speed, so it is calm at rest and responsive on fast moves. Time steps
/// come from the sensor timestamps, so 30 Hz and 100 Hz streams are smoothed alike.
public struct OneEuroFilter: Sendable {
    /// Cutoff at rest (Hz). A time constant τ in seconds corresponds to 1 / (2π τ).
    public var minCutoff: Double
    /// How much speed raises the cutoff (Hz per unit/s).
    public var beta: Double
    /// Cutoff for the speed estimate (Hz).
    public var derivativeCutoff: Double
    /// A gap longer than this (seconds) restarts the filter at the new value.
    public var resetAfter: Double

    public private(set) var value = Double.nan
    private var speed = 0.0
    private var lastTime = Double.nan

    public init(timeConstant: Double, beta: Double = 0.5, derivativeCutoff: Double = 1.0, resetAfter: Double = 1.0) {
        self.minCutoff = timeConstant > 0 ? 1 / (2 * .pi * timeConstant) : .infinity
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
        self.resetAfter = resetAfter
    }

    @inline(__always) static func alpha(cutoff: Double, dt: Double) -> Double {
        if cutoff.isInfinite { return 1 }
        let tau = 1 / (2 * .pi * cutoff)
        return dt / (dt + tau)
    }

    public mutating func reset() { value = .nan; speed = 0; lastTime = .nan }

    public mutating func filter(_ x: Double, at t: Double) -> Double {
        guard !value.isNaN, !lastTime.isNaN else { return start(x, t) }
        let dt = t - lastTime
        if !(dt > 0) { return value }  // same or earlier time: keep the current estimate
        if dt > resetAfter { return start(x, t) }
        let dx = (x - value) / dt
        speed += Self.alpha(cutoff: derivativeCutoff, dt: dt) * (dx - speed)
        let cutoff = minCutoff + beta * abs(speed)
        value += Self.alpha(cutoff: cutoff, dt: dt) * (x - value)
        lastTime = t
        return value
    }

    mutating func start(_ x: Double, _ t: Double) -> Double {
        value = x; speed = 0; lastTime = t
        return x
    }
}
