import Foundation
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime
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
///
/// Several files of one recording (Sensor Logger writes one CSV per sensor; `replay FOLDER`
/// gives them all) are each parsed with the sensor their file name names and merged on their
/// common clock into one stream of frames.
public struct FileReplay {
    public struct Result {
        public var parser = ParserStats()
        public var format = SensorFormat.auto
        public var gapsShortened = 0
        public var elapsed = 0.0
        /// Lines for the summary: files left out, header notes, timing notes, rate warnings.
        public var notes: [String] = []
        /// Several files: how many takes they made (1: merged on their shared clock).
        public var takes = 1
    }

    public enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        /// The file's header is not one SensorWah understands: nothing was played.
        case notUnderstood(path: String, message: String)
        case nothingToPlay(String)
        /// Every row was skipped (or there were none): what was seen, and the first reason.
        case nothingUsable(path: String, message: String)
        /// No line but blank ones (a log the app never wrote into, a copy cut short).
        case empty(path: String, bytes: Int)
        public var description: String {
            switch self {
            case .empty(let p, let n):
                return
                    "'\(p)' is empty (\(n == 0 ? "0 bytes" : "only blank lines")): nothing to play; check that the app finished writing it, or pick another file"
            case .unreadable(let p, let why): return "cannot read '\(p)': \(why)"
            case .notUnderstood(let p, let m): return "'\(p)': \(m)"
            case .nothingToPlay(let m): return m
            case .nothingUsable(let p, let m): return "'\(p)': nothing usable: \(m)"
            }
        }
    }

    /// One file, or the files of one recording.
    public var paths: [String]
    public var parserOptions: ParserOptions
    public var maxLineLength: Int
    public var timing: PlaybackTiming
    /// The recording is one sender: one motion stage (tilt, gestures) for the whole run. It runs
    /// only when something reads what it computes: a mapping (`Mapper.needsMotionStage`), the
    /// live view (`monitor`) or `afterFrame` (the plot marks gestures).
    public var motion: MotionSettings
    /// Called now and then with the fraction of the input read (0...1), for a progress line.
    public var progress: ((Double) -> Void)?
    /// The live view's feed (`--monitor`): frames noted, a picture published every 50 ms.
    public var monitor: MonitorFeed?
    /// Called after the pipeline has mapped each frame, with the frame and the mapper (its
    /// probe): `sensorwah plot` draws what the pipeline computed from this.
    public var afterFrame: ((borrowing SensorFrame, borrowing Mapper) -> Void)?
    /// The live view's commands: a re-zero (`z`) and the end of the run (`q`) are carried out
    /// between frames; the others mean nothing to a replay and are dropped.
    public var control: LiveControl?
    /// Asked before each line (each frame of merged files): true ends the replay there, as a
    /// stop request does (`replay`: every output has failed for good).
    public var shouldStop: (() -> Bool)?

    /// A stop request, or `shouldStop`.
    private var stopping: Bool { Shutdown.isRequested || (shouldStop?() ?? false) }

    public init(
        path: String, parserOptions: ParserOptions, maxLineLength: Int, timing: PlaybackTiming,
        motion: MotionSettings = .init()
    ) {
        self.init(
            paths: [path], parserOptions: parserOptions, maxLineLength: maxLineLength, timing: timing, motion: motion)
    }

    public init(
        paths: [String], parserOptions: ParserOptions, maxLineLength: Int, timing: PlaybackTiming,
        motion: MotionSettings = .init()
    ) {
        self.paths = paths
        self.parserOptions = parserOptions
        self.maxLineLength = maxLineLength
        self.timing = timing
        self.motion = motion
    }

    /// The files a command-line argument names: a folder gives its `.csv` files (a Sensor
    /// Logger export), sorted; a file gives itself. Nil if the path cannot be read.
    public static func expand(_ path: String) -> [String]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return [path] }
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") || !name.lowercased().hasSuffix(".csv") { continue }
            names.append(name)
        }
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        return names.sorted().map { "\(base)/\($0)" }
    }

    /// Plays the files into `pipeline` (which is not finished here: the caller decides whether
    /// the end of the file rests the controllers). Stops early on `Shutdown` or `shouldStop`.
    public func run(into pipeline: inout Pipeline) throws -> Result {
        paths.count == 1 ? try runStreaming(paths[0], into: &pipeline) : try runMerged(into: &pipeline)
    }

    /// Checks a parser after a file: a refused header before any frame is a failure (nothing
    /// plays); later ones and the parser's notes go into the summary.
    private func review(_ parser: SensorParser, path: String, into result: inout Result, label: String) throws {
        if let refusal = parser.refusal {
            if parser.stats.frames == 0 { throw Failure.notUnderstood(path: path, message: refusal) }
            result.notes.append("\(label)a later header was not understood, its rows were skipped: \(refusal)")
        }
        for n in parser.headerNotes { result.notes.append(label + n) }
        if let why = parser.stats.firstSkipReason {
            result.notes.append("\(label)first skipped row: line \(parser.stats.firstSkipLine) (\(why.label))")
        }
        if let n = parser.timingNote { result.notes.append(label + n) }
        if let w = parser.stats.implausibleRateWarning() { result.notes.append("warning: \(label)\(w)") }
    }

    /// Whether the motion stage's work is read by anyone in this run (a plain `accel.x` replay
    /// skips it; what it costs a frame: the `parse+motion+map` cases of `ParseMapBenchmarks`,
    /// docs/performance.md).
    private func needsMotionStage(_ pipeline: Pipeline) -> Bool {
        monitor != nil || afterFrame != nil || pipeline.mapper.needsMotionStage
    }

    private func runStreaming(_ path: String, into pipeline: inout Pipeline) throws -> Result {
        var result = Result()
        var offset = 0.0
        var options = parserOptions
        // the file's name and head: the table's data checks (gravity, units, time unit)
        if options.preview == nil { options.preview = Self.preview(path) }
        var firstPass = true
        let senderName = path.split(separator: "/").last.map(String.init) ?? path
        var player = Player(replay: self, sender: senderName, pipeline: pipeline)
        // the stage reads the device attitude; without it only a quat.* mapping does
        if !player.motionOn && !pipeline.mapper.readsQuaternion { options.skipsQuaternions = true }
        repeat {
            var reader = FileLineSource(path: path, maxLineLength: maxLineLength)
            var parser = SensorParser(options: options)
            var frame = SensorFrame()
            player.latest = 0
            let passOffset = offset
            var refused = false
            let size = progress == nil ? nil : fileSize(path)
            let report: ((Int) -> Void)? = size.flatMap { total in
                total > 0 ? { [progress] read in progress?(Double(read) / Double(total)) } : nil
            }
            let ok = reader.forEachLine(chunk: report) { line in
                if stopping || player.quit { return false }
                switch line {
                case .tooLong: parser.noteTooLong()
                case .line(let bytes):
                    let r = parser.parse(bytes, into: &frame)
                    if r != .frame {
                        // a header that is not understood before any frame: stop, play nothing
                        if parser.refusal != nil && parser.stats.frames == 0 { refused = true; return false }
                        return true
                    }
                    if passOffset != 0 {
                        for g in 0..<3 { frame.times[g] += passOffset }
                    }
                    player.play(&frame, into: &pipeline) {
                        let p = parser.stats
                        return (senderName, p.frames, p.totalSkipped + p.lateSamples)
                    }
                }
                return true
            }
            if !ok && !player.quit { throw Failure.unreadable(path: path, reason: String(cString: strerror(errno))) }
            if refused, let why = parser.refusal {
                // a binary file whose bytes happened to make one "line" of text: say what it is
                if parser.stats.firstSkipReason == .binary {
                    throw Failure.nothingUsable(path: path, message: Self.whatWasSeen(parser))
                }
                throw Failure.notUnderstood(path: path, message: why)
            }
            if firstPass && parser.stats.lines == parser.stats.blank && !stopping {
                throw Failure.empty(path: path, bytes: reader.bytesRead)
            }
            if firstPass && parser.stats.frames == 0 && !stopping {
                throw Failure.nothingUsable(path: path, message: Self.whatWasSeen(parser))
            }
            if firstPass { try review(parser, path: path, into: &result, label: "") }
            firstPass = false
            result.parser.add(parser.stats)
            result.format = parser.detectedFormat
            offset = player.latest + 0.01
            if parser.stats.frames == 0 { break }  // nothing to loop over
        } while timing.loop && !stopping && !player.quit
        result.gapsShortened = player.schedule.gapsShortened
        result.elapsed = monotonicSeconds() - player.start
        return result
    }

    /// Several files: each parsed whole with the sensor its name gives, then merged on time.
    private func runMerged(into pipeline: inout Pipeline) throws -> Result {
        var result = Result()
        var sources: [(frames: [SensorFrame], origin: Double)] = []
        var names: [String] = []
        for path in paths {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            var options = parserOptions
            // one file of a recording folder: the sensor its name says (files whose name says
            // none are left out below, not judged by their data: AccelerometerUncalibrated is
            // G on iOS and m/s^2 on Android)
            if options.sensor == nil { options.sensor = LoggedSensor.fromFileName(path) }
            options.preview = Self.preview(path)
            if options.sensor == nil && options.format == .auto {
                // a recording folder also holds other things (Metadata.csv, Location.csv ...)
                if Self.looksLikeSensorLogger(path) {
                    result.notes.append("\(name): not a motion sensor SensorWah reads; left out")
                    continue
                }
            }
            var reader = FileLineSource(path: path, maxLineLength: maxLineLength)
            var parser = SensorParser(options: options)
            var frame = SensorFrame()
            var frames: [SensorFrame] = []
            let ok = reader.forEachLine { line in
                if Shutdown.isRequested { return false }
                switch line {
                case .tooLong: parser.noteTooLong()
                case .line(let bytes):
                    if parser.parse(bytes, into: &frame) == .frame { frames.append(frame) }
                }
                return true
            }
            if !ok { throw Failure.unreadable(path: path, reason: String(cString: strerror(errno))) }
            if parser.stats.lines == parser.stats.blank {
                result.notes.append("\(name): empty; left out")
                continue
            }
            do { try review(parser, path: path, into: &result, label: "\(name): ") } catch let Failure.notUnderstood(
                _, why)
            {
                // one file of a folder that is not a motion log (metadata, annotations ...)
                let short = why.components(separatedBy: ". Known layouts").first ?? why
                result.notes.append("\(name): left out (\(short))")
                continue
            }
            result.parser.add(parser.stats)
            result.format = parser.detectedFormat
            if !frames.isEmpty { sources.append((frames, parser.timeOrigin ?? 0)); names.append(name) }
        }
        guard !sources.isEmpty else {
            throw Failure.nothingToPlay(
                "no sensor frames in \(paths.count) files" + result.notes.map { "\n  " + $0 }.joined())
        }
        let (merged, takes) = FrameMerger.mergeTakes(sources)
        result.takes = takes.count
        if takes.count > 1 {
            let list = takes.map { $0.map { names[$0] }.joined(separator: " + ") }.joined(separator: "; then ")
            result.notes.append(
                "\(takes.count) takes (files whose times do not overlap) played one after another, half a second apart: \(list)"
            )
        }
        var offset = 0.0
        var player = Player(replay: self, sender: "these files", pipeline: pipeline)
        var frames = 0
        let label = "\(paths.count) files"
        repeat {
            player.latest = 0
            for var f in merged {
                if stopping || player.quit { break }
                if offset != 0 { for g in 0..<3 { f.times[g] += offset } }
                frames += 1
                player.play(&f, into: &pipeline) { (label, frames, 0) }
            }
            offset = player.latest + 0.01
        } while timing.loop && !stopping && !player.quit
        result.gapsShortened = player.schedule.gapsShortened
        result.elapsed = monotonicSeconds() - player.start
        return result
    }

    /// One run's way from a parsed frame to the pipeline, the same for one file and for merged
    /// files: the live view's commands and a re-zero signal, the frame step (motion stage, live view), pacing to the frame's
    /// time, the pipeline, `afterFrame`, and the live view's picture when one is due.
    private struct Player {
        var step: FrameStep
        let motionOn: Bool
        var schedule: ReplaySchedule
        let start = monotonicSeconds()
        let fast: Bool
        let monitor: MonitorFeed?
        let afterFrame: ((borrowing SensorFrame, borrowing Mapper) -> Void)?
        let control: LiveControl?
        /// The latest sensor time played in this pass (a loop continues after it).
        var latest = 0.0
        /// The live view's `q`: the replay ends before the next frame.
        var quit = false

        init(replay: FileReplay, sender: String, pipeline: Pipeline) {
            step = FrameStep(sender: sender, motion: replay.motion)
            motionOn = replay.needsMotionStage(pipeline)
            schedule = replay.timing.schedule()
            fast = replay.timing.fast
            monitor = replay.monitor
            afterFrame = replay.afterFrame
            control = replay.control
        }

        private mutating func takeCommands(_ c: LiveControl) {
            for command in c.take() {
                switch command {
                case .rezero: step.motion.captureRest()
                case .quit: quit = true
                default: break
                }
            }
        }

        /// Sleeps until `deadline` (monotonic seconds) in steps of at most 0.1 s, taking the
        /// live view's commands as they come; a stop or a `q` ends the wait.
        private mutating func wait(until deadline: Double) {
            while !Shutdown.isRequested && !quit && monotonicSeconds() < deadline {
                sleep(until: deadline) { control?.hasCommands ?? false }
                if let c = control, c.hasCommands { takeCommands(c) }
            }
        }

        /// `counts`: the live view's sender line (name, frames, skipped), asked only when a
        /// picture is due.
        @inline(__always)
        mutating func play(_ frame: inout SensorFrame, into pipeline: inout Pipeline, counts: () -> (String, Int, Int))
        {
            if let c = control, c.hasCommands { takeCommands(c) }
            if motionOn && Shutdown.takeRezeroRequest() { step.motion.captureRest() }
            if step.derive(&frame, motionNeeded: motionOn, monitor: monitor) {
                noteAccelerometerOnly(step.accelerometerOnlyNotice)
            }
            let t = frame.latestTime
            latest = max(latest, t)
            if !fast {
                let due = schedule.due(t)
                if start + due > monotonicSeconds() {
                    pipeline.flushOutputs()
                    wait(until: start + due)
                }
            }
            pipeline.process(frame)
            if let a = afterFrame { a(frame, pipeline.mapper) }
            if let m = monitor {
                let now = monotonicNanos()
                if m.due(now: now) {
                    let (name, frames, skipped) = counts()
                    m.publish(now: now, mapper: pipeline.mapper) { r in
                        r.setSender(0, name: name, frames: frames, skipped: skipped)
                        return 1
                    }
                }
            }
        }
    }

    /// The head of a file for the recognition table (nil if it cannot be read).
    public static func preview(_ path: String) -> InputPreview? {
        // only a regular file can be read twice: a pipe or a FIFO (a log streamed in) would
        // lose what the preview read, so it is judged by its header alone, like a live stream
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: InputPreview.maxBytes)
        var got = 0
        while got < buf.count {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n <= 0 { break }
            got += n
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return InputPreview(fileName: name, head: Array(buf[0..<got]), complete: got < buf.count)
    }

    /// What a file that gave no frame held: rows, what was skipped and why, the first reason.
    static func whatWasSeen(_ parser: SensorParser) -> String {
        let st = parser.stats
        let binary = st.skipped(.binary) + st.skipped(.tooLong)
        if st.rows > 0 && (binary * 2 >= st.rows || st.firstSkipReason == .binary) {
            return
                "not a text sensor log (\(binary) of \(st.lines) lines are binary data or too long for a text line); nothing was played"
        }
        var s =
            "\(st.lines) lines read (\(st.rows) rows, \(st.headers) header\(st.headers == 1 ? "" : "s"), \(st.comments) comments), no sensor frame"
        if st.totalSkipped > 0 {
            let parts = SkipReason.allCases.filter { st.skipped($0) > 0 }.map { "\(st.skipped($0)) \($0.label)" }
            s += "; rows skipped \(st.totalSkipped): " + parts.joined(separator: ", ")
            if let why = st.firstSkipReason { s += "; the first at line \(st.firstSkipLine): \(why.label)" }
        }
        if st.held > 0 { s += "; \(st.held) rows repeated samples already seen" }
        if parser.detectedFormat != .auto {
            s += " (read as \(parser.choice?.winner.name ?? parser.detectedFormat.rawValue))"
        }
        return s + "; nothing was played"
    }

    /// A Sensor Logger file (header `time,seconds_elapsed,...`) whose sensor is not one of the
    /// motion sensors SensorWah reads (location, battery, metadata ...).
    static func looksLikeSensorLogger(_ path: String) -> Bool {
        guard let text = readHead(path, bytes: 512) else { return false }
        let first = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        return first.hasPrefix("time,seconds_elapsed") || first.hasPrefix("\"time\",\"seconds_elapsed\"")

    }

    static func readHead(_ path: String, bytes: Int) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: bytes)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, bytes) }
        guard n >= 0 else { return nil }
        return String(decoding: buf[0..<n], as: UTF8.self)
    }
}

/// What `sensorwah inspect` found in a file: the layout the table chose (and the runner-up),
/// the columns used with their units, the time column and its unit, the rate, duration and
/// gaps, and the rows skipped and why.
public struct FileInspection {
    public var path: String
    public var app = "none"
    public var format = SensorFormat.auto
    public var confidence: Double?
    public var runnerUp: String?
    public var columnCount = 0
    public var columns: [ColumnUse] = []
    public var stats = ParserStats()
    public var notes: [String] = []
    /// Why the file was refused (nil: read).
    public var refusal: String?
    public var rate: Double?
    public var duration = 0.0
    /// Pauses longer than `gapThreshold`: how many, the longest, and where the first starts.
    public var gapThreshold = 0.0
    public var gaps = 0
    public var longestGap = 0.0
    public var firstGapAt: Double?

    public var usable: Bool { refusal == nil && stats.frames > 0 }

    /// The report, one item a line.
    public var text: String {
        var s = "file: \(path)\n"
        s += "recognised as: \(app) (\(format.rawValue))"
        if let c = confidence { s += ", confidence \(NumberText.rounded(c, 2))" }
        s += "\nrunner-up: \(runnerUp ?? "none")\n"
        if let refusal { s += "refused: \(refusal)\n" }
        if columnCount > 0 { s += "columns: \(columnCount), used \(columns.count):\n" }
        for c in columns { s += "  \(c.index + 1) \"\(c.name)\" -> \(c.feeds) (\(c.unit))\n" }
        if let t = columns.first(where: { $0.feeds.hasPrefix("time") }) {
            s += "time column: \"\(t.name)\" in \(t.unit)\n"
        } else if stats.assumedTiming > 0 {
            s += "time column: none (timing from an assumed rate)\n"
        }
        s += "rows: \(stats.rows) read, \(stats.frames) used"
        if stats.held > 0 { s += ", \(stats.held) repeating samples already seen" }
        s += ", headers \(stats.headers), comments \(stats.comments), blank \(stats.blank)\n"
        let skipped = stats.totalSkipped
        if skipped > 0 {
            let parts = SkipReason.allCases.filter { stats.skipped($0) > 0 }.map { "\(stats.skipped($0)) \($0.label)" }
            s += "rows skipped: \(skipped) (\(parts.joined(separator: ", ")))"
            if let why = stats.firstSkipReason { s += "; first at line \(stats.firstSkipLine): \(why.label)" }
            s += "\n"
        } else {
            s += "rows skipped: 0\n"
        }
        if let rate {
            s += "rate: \(NumberText.rounded(rate, 1)) Hz (median interval \(NumberText.rounded(1000 / rate, 2)) ms)\n"
        }
        s += "duration: \(NumberText.rounded(duration, 3)) s\n"
        if stats.frames > 1 {
            s += "gaps over \(NumberText.rounded(gapThreshold, 3)) s: \(gaps)"
            if gaps > 0 {
                s +=
                    " (longest \(NumberText.rounded(longestGap, 3)) s, the first at \(NumberText.rounded(firstGapAt ?? 0, 3)) s)"
            }
            s += "\n"
        }
        for n in notes { s += "note: \(n)\n" }
        return s
    }
}

extension FileReplay {
    /// Reads a whole file with the table's choice and reports what was recognised (no MIDI).
    public static func inspect(path: String, parserOptions: ParserOptions, maxLineLength: Int) throws -> FileInspection
    {
        var options = parserOptions
        if options.preview == nil { options.preview = preview(path) }
        var parser = SensorParser(options: options)
        var reader = FileLineSource(path: path, maxLineLength: maxLineLength)
        var frame = SensorFrame()
        var times: [Double] = []
        let ok = reader.forEachLine { line in
            switch line {
            case .tooLong: parser.noteTooLong()
            case .line(let bytes):
                if parser.parse(bytes, into: &frame) == .frame { times.append(frame.latestTime) }
                // a refused file: the first refusal is the answer
                if parser.refusal != nil && parser.stats.frames == 0 { return false }
            }
            return true
        }
        if !ok && parser.refusal == nil {
            throw Failure.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        var out = FileInspection(path: path)
        out.stats = parser.stats
        out.format = parser.detectedFormat
        if let c = parser.choice {
            out.app = c.winner.name
            out.confidence = c.winner.confidence
            out.runnerUp = c.runnerUp.map { "\($0.name) (confidence \($0.confidence))" }
        } else if let d = SensorParser.dialects.first(where: { $0.format == parser.detectedFormat }) {
            out.app = d.name + " (recognised by its rows, no header)"
        }
        out.columnCount = parser.layoutColumnCount
        out.columns = parser.columnsUsed
        out.refusal = parser.refusal
        if parser.stats.frames == 0 && out.refusal == nil {
            out.refusal =
                parser.stats.lines == parser.stats.blank ? "empty: no line but blank ones" : whatWasSeen(parser)
        }
        out.notes = parser.headerNotes
        if let n = parser.timingNote { out.notes.append(n) }
        if let w = parser.stats.implausibleRateWarning() { out.notes.append("warning: " + w) }
        var steps: [Double] = []
        for k in 1..<max(1, times.count) where times[k] > times[k - 1] { steps.append(times[k] - times[k - 1]) }
        steps.sort()
        let median = steps.isEmpty ? 0 : steps[steps.count / 2]
        if median > 0 { out.rate = 1 / median }
        if let first = times.first, let last = times.last { out.duration = last - first }
        out.gapThreshold = max(0.5, 10 * median)
        for k in 1..<max(1, times.count) {
            let d = times[k] - times[k - 1]
            if d > out.gapThreshold {
                out.gaps += 1
                out.longestGap = max(out.longestGap, d)
                if out.firstGapAt == nil { out.firstGapAt = times[k - 1] }
            }
        }
        return out
    }
}

/// One line on stderr when a log turns out to carry no rotation rate (`FrameStep`'s notice).
func noteAccelerometerOnly(_ notice: String) {
    FileHandle.standardError.write(Data("sensorwah: \(notice)\n".utf8))
}
