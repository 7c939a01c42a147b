import SensorWahCore
import SensorWahEngine
#if canImport(Glibc)
import Glibc
#endif

/// How a recording is played back: its own timing scaled by `speed` (long pauses shortened),
/// or as fast as possible, once or looped.
public struct PlaybackTiming: Sendable {
    public var speed = 1.0
    public var maxGap = 2.0
    public var fast = false
    public var loop = false
    public init(speed: Double = 1, maxGap: Double = 2, fast: Bool = false, loop: Bool = false) {
        self.speed = speed; self.maxGap = maxGap; self.fast = fast; self.loop = loop
    }
    public func schedule() -> ReplaySchedule { ReplaySchedule(speed: speed, maxGap: maxGap) }
}

/// The file input: reads a sensor log line by line, parses it and feeds the frames to a
/// pipeline at the times the sensor timestamps give (or at once with `fast`). A looped file
/// continues on the timeline after its last frame.
public struct FileReplay {
    public struct Result {
        public var parser = ParserStats()
        public var format = SensorFormat.auto
        public var gapsShortened = 0
        public var elapsed = 0.0
    }

    public enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        public var description: String {
            switch self { case .unreadable(let p, let why): return "cannot read '\(p)': \(why)" }
        }
    }

    public var path: String
    public var parserOptions: ParserOptions
    public var maxLineLength: Int
    public var timing: PlaybackTiming
    /// The file is one sender: one motion stage (tilt, gestures) for the whole run.
    public var motion: MotionSettings

    public init(path: String, parserOptions: ParserOptions, maxLineLength: Int, timing: PlaybackTiming,
                motion: MotionSettings = .init()) {
        self.path = path
        self.parserOptions = parserOptions
        self.maxLineLength = maxLineLength
        self.timing = timing
        self.motion = motion
    }

    /// Plays the file into `pipeline` (which is not finished here: the caller decides whether
    /// the end of the file rests the controllers). Stops early on `Shutdown`.
    public func run(into pipeline: inout Pipeline) throws -> Result {
        var result = Result()
        var schedule = timing.schedule()
        let start = monotonicSeconds()
        var offset = 0.0
        var stage = MotionStage(settings: motion)
        repeat {
            var reader = FileLineSource(path: path, maxLineLength: maxLineLength)
            var parser = SensorParser(options: parserOptions)
            var frame = SensorFrame()
            var latest = 0.0
            let fast = timing.fast
            let passOffset = offset
            let ok = reader.forEachLine { line in
                if Shutdown.isRequested { return false }
                switch line {
                case .tooLong: parser.noteTooLong()
                case .line(let bytes):
                    guard parser.parse(bytes, into: &frame) == .frame else { return true }
                    if passOffset != 0 {
                        for g in 0..<3 { frame.times[g] += passOffset }
                    }
                    if Shutdown.takeRezeroRequest() { stage.captureRest() }
                    stage.process(&frame)
                    let t = frame.latestTime
                    latest = max(latest, t)
                    if !fast {
                        let due = schedule.due(t)
                        if start + due > monotonicSeconds() {
                            pipeline.flushOutputs()
                            sleep(until: start + due)
                        }
                    }
                    pipeline.process(frame)
                }
                return true
            }
            if !ok { throw Failure.unreadable(path: path, reason: String(cString: strerror(errno))) }
            result.parser.add(parser.stats)
            result.format = parser.detectedFormat
            offset = latest + 0.01
            if parser.stats.frames == 0 { break }   // nothing to loop over
        } while timing.loop && !Shutdown.isRequested
        result.gapsShortened = schedule.gapsShortened
        result.elapsed = monotonicSeconds() - start
        return result
    }
}
