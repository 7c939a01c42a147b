/// When the next read from a sender that sends at a steady rate is due, learned from the
/// times of the reads so far: a running mean of the interval and of its absolute deviation
/// (as TCP estimates a round trip). It gives a window around the next read only while the
/// reads are regular enough for a window of at most `share` of the interval (and at most
/// `widest`) either side to catch nearly all of them; otherwise (several senders interleaved,
/// Wi-Fi bursts, a flood, a pause) it gives none.
public struct ArrivalForecast: Sendable {
    /// Mean interval and mean absolute deviation from it (ns); 0 before the first interval.
    public private(set) var period: Double = 0
    public private(set) var deviation: Double = 0
    /// Intervals seen in a row without a break.
    public private(set) var regularRun = 0
    private var last: UInt64 = 0
    /// Intervals outside this range break the run (a flood, or a pause). `shortest` is the
    /// output pump's `denseNanos`: closer reads get no early wake-up to end a wait.
    public var shortest: UInt64 = 2_000_000
    public var longest: UInt64 = 1_000_000_000
    /// The window's half width: `margin` plus `spread` deviations (a uniform jitter of ±a has a
    /// mean deviation of a/2), when that is at most `share` of the interval and at most
    /// `widest`; a run shorter than `settle` intervals gives no window (the first interval's
    /// deviation is taken as an eighth of it, at most 0.5 ms, and has to fall from there).
    public var margin: Double = 200_000
    public var spread: Double = 2
    public var share: Double = 0.1
    public var widest: Double = 1_000_000
    public var settle = 8

    public init() {}

    /// A read began at `now` (ns, monotonic).
    public mutating func note(at now: UInt64) {
        defer { last = now }
        let interval = now &- last
        guard last != 0, interval >= shortest, interval <= longest else { regularRun = 0; return }
        let x = Double(interval)
        if regularRun == 0 {
            period = x
            deviation = min(x / 8, 500_000)
        } else {
            deviation += (abs(x - period) - deviation) / 8
            period += (x - period) / 16
        }
        regularRun += 1
    }

    /// The half width of the window (ns), or nil when there is none.
    public var halfWidth: Double? {
        guard regularRun >= settle else { return nil }
        let w = margin + spread * deviation
        return w <= share * period && w <= widest ? w : nil
    }

    /// The window around the next read (ns, monotonic), or nil.
    public var window: (from: UInt64, until: UInt64)? {
        guard let w = halfWidth else { return nil }
        let due = Double(last) + period
        return (UInt64(due - w), UInt64(due + w))
    }
}
