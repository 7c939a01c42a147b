#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@inline(__always)
public func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// A latency histogram with fixed buckets (no allocation when recording):
/// 1 µs resolution up to 10 ms, everything above in the last bucket.
public struct LatencyHistogram: Sendable {
    public static let buckets = 10_001
    private var counts: [UInt32]
    public private(set) var total = 0
    public private(set) var maxNanos: UInt64 = 0

    public init() { counts = .init(repeating: 0, count: Self.buckets) }

    @inline(__always)
    public mutating func record(nanos: UInt64) {
        let us = Int(min(nanos / 1000, UInt64(Self.buckets - 1)))
        counts[us] &+= 1
        total &+= 1
        if nanos > maxNanos { maxNanos = nanos }
    }

    /// The latency (µs) below which `q` of the samples fall.
    public func percentile(_ q: Double) -> Int {
        guard total > 0 else { return 0 }
        let want = Int((Double(total) * q).rounded(.up))
        var seen = 0
        for i in 0..<Self.buckets {
            seen += Int(counts[i])
            if seen >= want { return i }
        }
        return Self.buckets - 1
    }

    public mutating func merge(_ o: LatencyHistogram) {
        for i in 0..<Self.buckets { counts[i] &+= o.counts[i] }
        total += o.total
        maxNanos = max(maxNanos, o.maxNanos)
    }
}
