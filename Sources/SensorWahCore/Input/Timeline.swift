/// Turns each sensor group's raw timestamps into one monotonic stream time (seconds since the
/// first sample). A group whose timestamp did not advance carries no new sample
/// (sample-and-hold rows); a small step backwards is an out-of-order sample and is dropped;
/// a large step backwards is a clock restart (a new session or a rebooted sender), after
/// which time continues from where it was.
public struct Timeline: Sendable {
    public enum Admission: Equatable { case new(Double), held, outOfOrder }

    /// A backwards step larger than this (seconds) is a restart, not an out-of-order sample.
    public var restartThreshold: Double
    /// The step placed between the old and the new clock after a restart.
    public var restartStep: Double
    /// Seconds per unit of the raw timestamps (0.001 for epoch milliseconds). Differences are
    /// taken in raw units first so large epoch values keep their precision.
    public var unitScale: Double = 1
    private var origin: Double = .nan
    private var lastRaw: InlineArray<3, Double> = .init(repeating: .nan)
    public private(set) var latest: Double = 0
    public private(set) var restarts = 0

    public init(restartThreshold: Double = 1.0, restartStep: Double = 0.01) {
        self.restartThreshold = restartThreshold
        self.restartStep = restartStep
    }

    public var started: Bool { !origin.isNaN }

    /// The raw timestamp of stream time 0 (moves on a clock restart), nil before the first.
    public var originRaw: Double? { origin.isNaN ? nil : origin }

    /// Sets the origin explicitly (the earliest timestamp of the first row).
    public mutating func start(at raw: Double) {
        if origin.isNaN { origin = raw }
    }

    public mutating func admit(_ group: SensorGroup, raw: Double) -> Admission {
        if origin.isNaN { origin = raw }
        let g = group.rawValue
        let last = lastRaw[g]
        if !last.isNaN {
            if raw == last { return .held }
            if raw < last {
                if (last - raw) * unitScale <= restartThreshold { return .outOfOrder }
                // clock restart: re-base so this sample lands just after the latest time
                origin = raw - (latest + restartStep) / unitScale
                lastRaw = .init(repeating: .nan)
                restarts &+= 1
            }
        }
        lastRaw[g] = raw
        let t = (raw - origin) * unitScale
        if t > latest { latest = t }
        return .new(t)
    }
}
