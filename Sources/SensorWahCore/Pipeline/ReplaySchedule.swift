/// When each frame of a replay is due, in seconds after the replay started: the sensor
/// timestamps divided by the speed, with long gaps shortened to `maxGap` so a recording that
/// paused for minutes does not leave the stage silent, and loops stitched end to start.
public struct ReplaySchedule: Sendable {
    public var speed: Double
    public var maxGap: Double
    private var lastTime = Double.nan
    private var removed = 0.0  // gap time cut out so far (sensor seconds)
    public private(set) var gapsShortened = 0

    public init(speed: Double = 1, maxGap: Double = 2) {
        self.speed = speed
        self.maxGap = maxGap
    }

    /// The due time (seconds since start of replay) of a frame at sensor time `t`.
    public mutating func due(_ t: Double) -> Double {
        if !lastTime.isNaN {
            let step = t - lastTime
            if step > maxGap {
                removed += step - maxGap
                gapsShortened += 1
            }
        }
        if lastTime.isNaN || t > lastTime { lastTime = t }
        return max(0, (t - removed) / speed)
    }
}
