import SensorWahCore
#if canImport(Glibc)
    import Glibc
#endif

/// Reads a file in large chunks and frames it into lines (no copy for lines inside a chunk).
public struct FileLineSource: ~Copyable {
    public let path: String
    /// Bytes read so far (for progress).
    public private(set) var bytesRead = 0
    public var framer: LineFramer
    public static let chunkSize = 1 << 20

    public init(path: String, maxLineLength: Int) {
        self.path = path
        self.framer = LineFramer(maxLineLength: maxLineLength)
    }

    /// Calls `body` per line until it returns false. Returns false if the file could not be read.
    /// `chunk` hears the number of bytes read so far after each read (for progress).
    public mutating func forEachLine(chunk: ((Int) -> Void)? = nil, _ body: (FramedLine) -> Bool) -> Bool {
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
            bytesRead += n
            chunk?(bytesRead)
            framer.feed(UnsafeRawBufferPointer(start: buf, count: n)) { line in
                if keepGoing { keepGoing = body(line) }
            }
        }
        if keepGoing { framer.finish { line in _ = body(line) } }
        return true
    }
}

/// The size of a file in bytes, or nil.
public func fileSize(_ path: String) -> Int? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return Int(st.st_size)
}

/// The whole file as text (UTF-8, invalid bytes replaced); nil if it cannot be read.
public func readWholeFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { break }
        bytes += buf[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}
