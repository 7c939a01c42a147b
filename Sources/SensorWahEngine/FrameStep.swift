import SensorWahCore

/// The step every sensor frame takes between its input and the pipeline, the same in `replay`,
/// `export`, `plot` and `listen`: its sender's motion stage writes what it derives (tilt,
/// gestures, taught gestures) when anything reads that, and the live view notes the frame.
///
/// What a command does around the step stays with the command: `replay` paces the frame to its
/// time before `Pipeline.process`, `listen` stamps its arrival, moves the scene gesture and
/// publishes a captured rest. One value per sender.
public struct FrameStep {
    /// The sender's motion stage: its rest orientation, its taught gestures.
    public var motion: MotionStage
    /// Whom the frames come from, as the logs name it.
    public var sender: String

    public init(sender: String, motion settings: MotionSettings) {
        self.sender = sender
        motion = MotionStage(settings: settings)
    }

    /// Runs the motion stage on `frame` when `motionNeeded` (whether anything reads what it
    /// derives: a plain `accel.x` run skips it, as it costs about as much as parsing four more
    /// columns), then lets `monitor` note the frame. True once, on the frame that shows the
    /// stream carries no rotation rate: the caller then says `accelerometerOnlyNotice` where its
    /// user reads.
    @inline(__always)
    public mutating func derive(_ frame: inout SensorFrame, motionNeeded: Bool, monitor: MonitorFeed?) -> Bool {
        var accelerometerOnly = false
        if motionNeeded {
            motion.process(&frame)
            accelerometerOnly = motion.takeAccelerometerOnlyNotice()
        }
        if let m = monitor { m.note(frame) }
        return accelerometerOnly
    }

    /// What to tell the user when `derive` returns true.
    public var accelerometerOnlyNotice: String {
        "\(sender): no gyroscope in the stream: tilt.* follows the accelerometer alone (a shake or a swing tilts it; gestures still work)"
    }
}
