import ArgumentParser
import Logging
import SensorWahCore
#if canImport(Glibc)
import Glibc
#endif

extension SensorFormat: ExpressibleByArgument {}

struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "More log detail on stderr.")
    var verbose = false
    @Flag(name: .shortAndLong, help: "Only errors on stderr (the summary is still printed).")
    var quiet = false

    func bootstrapLogging() {
        let level: Logger.Level = verbose ? .debug : (quiet ? .error : .info)
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
    }
}

/// Timing of a recording played back (`replay`, `stream`).
struct PlaybackOptions: ParsableArguments {
    @Option(help: "Playback speed: 2 is twice as fast, 0.5 half speed.")
    var speed = 1.0
    @Flag(help: "Start again from the top at the end, until stopped.")
    var loop = false
    @Flag(help: "Ignore timing: as fast as possible.")
    var fast = false
    @Option(help: ArgumentHelp("Longest pause kept from the recording, in seconds.", valueName: "SECONDS"))
    var maxGap = 2.0

    func validate() throws {
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number") }
        guard maxGap > 0 else { throw ValidationError("--max-gap must be positive") }
    }

    func schedule() -> ReplaySchedule { ReplaySchedule(speed: speed, maxGap: maxGap) }
}

struct InputOptions: ParsableArguments {
    @Option(help: "Input dialect: auto, sensorlog, hyperimu, sensorstream.")
    var format: SensorFormat = .auto
    @Option(help: ArgumentHelp("Column names for SensorLog streams that send no header, comma-separated.", valueName: "NAMES"))
    var columns: String?
    @Option(help: ArgumentHelp("Longest line accepted, in bytes; longer lines are counted and dropped.", valueName: "BYTES"))
    var maxLine = 16_384

    func parserOptions() -> ParserOptions {
        var o = ParserOptions(format: format)
        if let c = columns {
            o.fallbackColumns = c.split(whereSeparator: { $0 == "," || $0 == "|" || $0 == ";" || $0 == "\t" }).map(String.init)
        }
        return o
    }
}

struct MappingOptions: ParsableArguments {
    @Option(name: .customLong("map"), help: ArgumentHelp(
        "A mapping, e.g. \"accel.x cc=11 ch=1 range=-1..1 bipolar smooth=40\" (repeatable; see `sensorwah mappings`).",
        valueName: "MAPPING"))
    var maps: [String] = []
    @Option(help: ArgumentHelp("A file with one mapping per line (# starts a comment).", valueName: "FILE"))
    var mapFile: String?

    func mappings() throws -> [Mapping] {
        var lines = maps
        if let path = mapFile {
            guard let text = readWholeFile(path) else {
                throw ValidationError("cannot read mapping file '\(path)'")
            }
            for raw in text.split(whereSeparator: \.isNewline) {
                let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                if !line.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.append(String(line)) }
            }
        }
        if lines.isEmpty { return [.default] }
        return try lines.map { line in
            do { return try Mapping(parsing: line) } catch let e as MappingSyntaxError {
                throw ValidationError("mapping \"\(line)\": \(e.message)")
            }
        }
    }
}

func readWholeFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
        if n < 0 { return nil }
        if n == 0 { break }
        bytes += buf[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes to a file descriptor, all of it, retrying on EINTR.
@discardableResult
func writeAll(_ fd: Int32, _ p: UnsafeRawPointer, _ count: Int) -> Bool {
    var off = 0
    while off < count {
        let n = write(fd, p + off, count - off)
        if n < 0 { if errno == EINTR { continue }; return false }
        off += n
    }
    return true
}

func printError(_ s: String) {
    var line = s + "\n"
    line.withUTF8 { _ = writeAll(2, $0.baseAddress!, $0.count) }
}
