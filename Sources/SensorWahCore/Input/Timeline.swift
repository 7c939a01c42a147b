/// Turns each sensor group's raw timestamps into one monotonic stream time (seconds since the
/// first sample). A group whose timestamp did not advance carries no new sample
/// (sample-and-hold rows); a small step backwards is an out-of-order sample and is dropped;
/// a large step backwards is a clock restart (a new session, a rebooted sender, or a sender
/// whose clock was set back while it kept sending), after which time continues from where it
/// was, one usual step of the stream later.
public struct Timeline: Sendable {
    public enum Admission: Equatable { case new(Double), held, outOfOrder }

    /// A backwards step larger than this (seconds) is a restart, not an out-of-order sample.
    public var restartThreshold: Double
    /// The step placed between the old and the new clock after a restart while the stream's
    /// usual step is not known yet (fewer than two times).
    public var restartStep: Double
    /// Seconds per unit of the raw timestamps (0.001 for epoch milliseconds). Differences are
    /// taken in raw units first so large epoch values keep their precision.
    public var unitScale: Double = 1
    private var origin: Double = .nan
    private var lastRaw: InlineArray<3, Double> = .init(repeating: .nan)
    public private(set) var latest: Double = 0
    public private(set) var restarts = 0
    /// The stream's usual step (seconds): a running mean of how far each new time moved the
    /// latest on, steps of `restartThreshold` or more left out; nan before the first. A restart
    /// continues by it, so a stream whose clock was set back keeps its spacing (a sender's clock
    /// map downstream would otherwise read the difference as the network's delay).
    public private(set) var usualStep: Double = .nan

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
        var stepped = !last.isNaN  // this time is a step of the stream (not its first, nor a restart)
        if !last.isNaN {
            if raw == last { return .held }
            if raw < last {
                if (last - raw) * unitScale <= restartThreshold { return .outOfOrder }
                // clock restart: re-base so this sample lands just after the latest time
                origin = raw - (latest + (usualStep.isNaN ? restartStep : usualStep)) / unitScale
                lastRaw = .init(repeating: .nan)
                restarts &+= 1
                stepped = false
            }
        }
        lastRaw[g] = raw
        let t = (raw - origin) * unitScale
        if t > latest {
            let step = t - latest
            if stepped, step < restartThreshold {
                usualStep = usualStep.isNaN ? step : usualStep + (step - usualStep) / 64
            }
            latest = t
        }
        return .new(t)
    }
}
