import SensorWahCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file in large chunks and frames it into lines (no copy for lines inside a chunk).
struct FileLineSource: ~Copyable {
    let path: String
    var framer: LineFramer
    static let chunkSize = 1 << 20

    init(path: String, maxLineLength: Int) {
        self.path = path
        self.framer = LineFramer(maxLineLength: maxLineLength)
    }

    /// Calls `body` per line until it returns false. Returns false if the file could not be read.
    mutating func forEachLine(_ body: (FramedLine) -> Bool) -> Bool {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let buf = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buf.deallocate() }
        var keepGoing = true
        while keepGoing {
            let n = read(fd, buf, Self.chunkSize)
            if n < 0 { if errno == EINTR { continue }; return false }
            if n == 0 { break }
            framer.feed(UnsafeRawBufferPointer(start: buf, count: n)) { line in
                if keepGoing { keepGoing = body(line) }
            }
        }
        if keepGoing { framer.finish { line in _ = body(line) } }
        return true
    }
}
