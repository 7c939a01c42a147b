import SensorWahCore
#if canImport(Glibc)
    import Glibc
#endif

/// A recording split into lines, each with the sensor time at which a phone would send it.
public struct StreamScript: Sendable {
    public struct Line: Sendable {
        public var bytes: [UInt8]  // the line with its original terminator
        public var time: Double  // sensor seconds since the first sample
        public var isHeader: Bool
    }
    public var lines: [Line] = []
    public var duration: Double { lines.last?.time ?? 0 }

    public enum LoadError: Error, CustomStringConvertible {
        case unreadable(String, String)
        public var description: String {
            switch self {
            case .unreadable(let p, let why): return "cannot read '\(p)': \(why)"
            }
        }
    }

    public init(path: String, options: ParserOptions = .init()) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw LoadError.unreadable(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }; throw LoadError.unreadable(path, String(cString: strerror(errno)))
            }
            if n == 0 { break }
            data += chunk[0..<n]
        }
        self.init(bytes: data, options: options)
    }

    public init(bytes data: [UInt8], options: ParserOptions = .init()) {
        var parser = SensorParser(options: options)
        var frame = SensorFrame()
        var t = 0.0
        var start = 0
        data.withUnsafeBytes { all in
            var i = 0
            while i <= all.count {
                if i == all.count || all[i] == 0x0A {
                    if i > start || i < all.count {
                        let end = i < all.count ? i + 1 : i
                        let body = UnsafeRawBufferPointer(rebasing: all[start..<i])
                        let r = parser.parse(body, into: &frame)
                        if r == .frame { t = max(t, frame.latestTime) }
                        lines.append(Line(bytes: Array(all[start..<end]), time: t, isHeader: r == .header))
                    }
                    start = i + 1
                }
                i += 1
            }
        }
    }
}
