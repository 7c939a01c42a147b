/// Maps one sender's clock onto the local one from its readings alone (a phone that only sends:
/// no round trip to measure). Each reading gives `arrival - senderTime`: the offset between the
/// clocks plus the delay that reading met on the way, never less than the offset. So the lower
/// envelope of those differences is the offset, and its slope over minutes is the skew between
/// the two clocks (a phone's crystal runs some tens of parts per million off).
///
/// The envelope is a line fitted through the smallest difference of each `bucketSeconds` of
/// sender time (the last `buckets` of them), then moved down until no bucket's smallest lies
/// below it. A reading that arrives earlier than the line allows moves the line down at once.
///
/// A jump of the sender's clock (backwards, a long gap, or a difference far from the line) in
/// a stream that keeps arriving (the previous reading came less than `bridgeSeconds` before)
/// is bridged: the jumping reading is taken to follow the previous one by the sender's usual
/// step (a running mean of its steps), and everything learnt moves onto the new clock, so
/// the mapping carries on as if the clock had not jumped. After a pause in the stream the
/// mapping starts over. Fixed storage, no allocation after `init`.
public struct SenderClock: Sendable {
    /// Seconds of sender time per bucket, and how many buckets the fit looks at.
    public let bucketSeconds: Double
    public let buckets: Int
    /// A difference this far above or below the line (seconds) is a jump of the sender's clock.
    public let jumpSeconds: Double

    private var minima: [Double]  // smallest arrival - sender time per bucket (nan: none)
    private var starts: [Double]  // each bucket's first sender time
    private var current = -1  // index of the bucket being filled (-1: none yet)
    private var currentStart = 0.0
    private var lastSenderTime = -Double.infinity
    /// The previous reading's sender time and arrival, and the sender's usual step between
    /// readings (a running mean of steps shorter than a second; nan before two readings).
    private var previousSenderTime = Double.nan
    private var previousArrival = -Double.infinity
    private var step = Double.nan
    /// The envelope: `intercept + slope * (s - reference)`.
    private var reference = 0.0
    private var intercept = Double.nan
    private(set) public var slope = 0.0
    /// How many times the mapping started over (the first reading included), and how many
    /// jumps of the sender's clock it bridged.
    private(set) public var restarts = 0
    private(set) public var bridges = 0
    /// A jump is bridged when the previous reading arrived less than this before (seconds).
    public let bridgeSeconds: Double

    public init(bucketSeconds: Double = 1, buckets: Int = 120, jumpSeconds: Double = 1, bridgeSeconds: Double = 1) {
        precondition(bucketSeconds > 0 && buckets >= 2)
        self.bucketSeconds = bucketSeconds
        self.buckets = buckets
        self.jumpSeconds = jumpSeconds
        self.bridgeSeconds = bridgeSeconds
        minima = Array(repeating: .nan, count: buckets)
        starts = Array(repeating: 0, count: buckets)
    }

    /// Whether a reading has been seen since the last restart.
    public var isMapped: Bool { !intercept.isNaN }

    /// The local time at which a reading stamped `senderTime` would arrive with no delay on
    /// the way (nan before the first reading).
    @inline(__always)
    public func local(_ senderTime: Double) -> Double {
        senderTime + intercept + slope * (senderTime - reference)
    }

    /// Takes one reading: stamped `senderTime` by the sender, arrived at `arrival` (local
    /// seconds). Returns how late it arrived against the envelope (seconds, 0 or more).
    @discardableResult
    public mutating func observe(senderTime s: Double, arrival a: Double) -> Double {
        let d = a - s
        defer {
            let gap = s - previousSenderTime
            if gap > 0 && gap < 1 { step = step.isNaN ? gap : step + (gap - step) / 64 }
            previousSenderTime = s
            previousArrival = a
        }
        if !isMapped {
            restart(s, d)
            return 0
        }
        if s < lastSenderTime - jumpSeconds || s > lastSenderTime + 60 * bucketSeconds
            || abs(d - (intercept + slope * (s - reference))) > jumpSeconds
        {
            guard a - previousArrival < bridgeSeconds, step.isFinite else {
                restart(s, d)
                return 0
            }
            bridge(by: s - previousSenderTime - step)
        }
        lastSenderTime = max(lastSenderTime, s)
        if s >= currentStart + bucketSeconds {
            current = (current + 1) % buckets
            currentStart = s
            starts[current] = s
            minima[current] = d
            refit()
        } else if !(d >= minima[current]) {
            minima[current] = d
        }
        let line = intercept + slope * (s - reference)
        if d < line {
            intercept -= line - d  // earlier than the envelope: the envelope was too high
            return 0
        }
        return d - line
    }

    /// The sender's clock jumped by `jump` (seconds): what was learnt moves onto its new time.
    private mutating func bridge(by jump: Double) {
        for i in 0..<buckets {
            starts[i] += jump
            minima[i] -= jump
        }
        currentStart += jump
        lastSenderTime += jump
        reference += jump
        intercept -= jump
        bridges += 1
    }

    private mutating func restart(_ s: Double, _ d: Double) {
        for i in 0..<buckets { minima[i] = .nan }
        current = 0
        currentStart = s
        starts[0] = s
        minima[0] = d
        lastSenderTime = s
        reference = s
        intercept = d
        slope = 0
        restarts += 1
    }

    /// Least squares through the closed buckets' minima (the one being filled is partial),
    /// then down to the lowest of them. Fewer than 8 closed buckets: no slope.
    private mutating func refit() {
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        let ref = starts[current]
        for i in 0..<buckets where i != current && !minima[i].isNaN {
            let x = starts[i] - ref, y = minima[i]
            n += 1; sx += x; sy += y; sxx += x * x; sxy += x * y
        }
        guard n >= 1 else { return }
        var k = 0.0
        let denominator = n * sxx - sx * sx
        if n >= 8, denominator > 0 {
            k = (n * sxy - sx * sy) / denominator
            // a skew beyond 1000 ppm is not a crystal: keep none rather than a wrong one
            if abs(k) > 1e-3 { k = 0 }
        }
        var low = Double.infinity
        for i in 0..<buckets where !minima[i].isNaN {
            low = min(low, minima[i] - k * (starts[i] - ref))
        }
        reference = ref
        slope = k
        intercept = low
    }
}
