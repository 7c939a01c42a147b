import SensorWahCore
import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

/// `sensorwah export`: a sensor log through the parser and the motion stage (tilt, gestures)
/// into a CSV table, one row per frame, as fast as it reads.
public struct FileExport {
    public var path: String
    public var parserOptions: ParserOptions
    public var maxLineLength: Int
    public var motion: MotionSettings

    public init(path: String, parserOptions: ParserOptions, maxLineLength: Int, motion: MotionSettings = .init()) {
        self.path = path
        self.parserOptions = parserOptions
        self.maxLineLength = maxLineLength
        self.motion = motion
    }

    /// Every frame after the motion stage, in order; returns the parser's counts.
    public func forEachFrame(_ body: (borrowing SensorFrame) -> Void) throws -> ParserStats {
        let parser = try frames {
            body($0); return true
        }
        if let r = parser.refusal, parser.stats.frames == 0 {
            throw FileReplay.Failure.notUnderstood(path: path, message: r)
        }
        return parser.stats
    }

    /// The one read loop: lines, parser, motion stage; `body` returns false to stop early.
    private func frames(_ body: (borrowing SensorFrame) -> Bool) throws -> SensorParser {
        var reader = FileLineSource(path: path, maxLineLength: maxLineLength)
        var options = parserOptions
        // the file's name and head: the layout table's data checks, as replay has them
        if options.preview == nil { options.preview = FileReplay.preview(path) }
        var parser = SensorParser(options: options)
        var step = FrameStep(sender: path.split(separator: "/").last.map(String.init) ?? path, motion: motion)
        var frame = SensorFrame()
        var going = true
        let ok = reader.forEachLine { line in
            switch line {
            case .tooLong: parser.noteTooLong()
            case .line(let bytes):
                guard parser.parse(bytes, into: &frame) == .frame else { return true }
                if step.derive(&frame, motionNeeded: true, monitor: nil) {
                    noteAccelerometerOnly(step.accelerometerOnlyNotice)
                }
                going = body(frame)
            }
            return going
        }
        if !ok { throw FileReplay.Failure.unreadable(path: path, reason: String(cString: strerror(errno))) }
        return parser
    }

    /// Writes the table to `fd`; returns the parser's counts.
    public func run(columns: [ExportColumn], to fd: Int32) throws -> ParserStats {
        var table = ExportTable(columns: columns)
        var text = table.header + "\n"
        var writeFailed = false
        func flush() {
            var bytes = Array(text.utf8)
            text.removeAll(keepingCapacity: true)
            var off = 0
            while off < bytes.count && !writeFailed {
                let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
                if n < 0 { if errno == EINTR { continue }; writeFailed = true; break }
                off += n
            }
        }
        let parser = try frames { frame in
            text += table.row(frame)
            text += "\n"
            if text.utf8.count > 1 << 16 { flush() }
            return !writeFailed
        }
        flush()
        if writeFailed { throw FileReplay.Failure.unreadable(path: "output", reason: String(cString: strerror(errno))) }
        return parser.stats
    }
}
