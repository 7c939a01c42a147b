import Logging
#if canImport(Glibc)
    import Glibc
#endif

/// Writes one sender's stream verbatim to its own file. Bytes are buffered and written by
/// `flush()`, which the listener calls at least every 100 ms and on close. A write error
/// (a full disk, a file-size limit) is logged once and ends this recording: the file is cut
/// back to its last whole line, so what it holds replays cleanly; the listener keeps running.
public final class StreamRecorder {
    public let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private let logger: Logger
    public private(set) var bytesWritten = 0
    /// Bytes written up to and including the last line end (where a failed file is cut back to).
    public private(set) var bytesThroughLastLine = 0
    public private(set) var failed = false
    /// Above this much unwritten data the recording stops rather than grow memory.
    public static let maxBuffered = 8 << 20

    public init?(directory: String, peer: String, logger: Logger) {
        self.logger = logger
        var t = time(nil)
        var tmv = tm()
        localtime_r(&t, &tmv)
        let stamp =
            "\(Int(tmv.tm_year) + 1900)" + pad2(Int(tmv.tm_mon) + 1) + pad2(Int(tmv.tm_mday))
            + "-" + pad2(Int(tmv.tm_hour)) + pad2(Int(tmv.tm_min)) + pad2(Int(tmv.tm_sec))
        let safePeer = String(peer.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        mkdir(directory, 0o755)
        var candidate = "\(directory)/\(stamp)-\(safePeer).csv"
        var n = 1
        while access(candidate, F_OK) == 0 { n += 1; candidate = "\(directory)/\(stamp)-\(safePeer)-\(n).csv" }
        path = candidate
        fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 {
            logger.error("recording: cannot create \(candidate): \(String(cString: strerror(errno)))")
            return nil
        }
        buffer.reserveCapacity(64 << 10)
        logger.info("recording \(peer) to \(candidate)")
    }

    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard !failed else { return }
        if buffer.count + bytes.count > Self.maxBuffered {
            fail("more than \(Self.maxBuffered >> 20) MB could not be written")
            return
        }
        buffer.append(contentsOf: bytes)
    }

    public func flush() {
        guard !failed, !buffer.isEmpty else { return }
        var written = 0
        var error: Int32 = 0
        buffer.withUnsafeBytes { b in
            while written < b.count {
                let n = write(fd, b.baseAddress! + written, b.count - written)
                if n < 0 { if errno == EINTR { continue }; error = errno; return }
                written += n
            }
        }
        // what reached the file, even when the disk filled up part way
        if let nl = buffer[..<written].lastIndex(of: 0x0A) { bytesThroughLastLine = bytesWritten + nl + 1 }
        bytesWritten += written
        if error == 0 {
            buffer.removeAll(keepingCapacity: true)
        } else {
            fail(String(cString: strerror(error)))
        }
    }

    private func fail(_ why: String) {
        failed = true
        buffer = []
        // part of a line may be on disk: keep whole lines only
        _ = ftruncate(fd, off_t(bytesThroughLastLine))
        logger.error(
            "recording to \(path) stopped: \(why); it keeps what was written up to its last whole line (\(bytesThroughLastLine) bytes), the MIDI goes on"
        )
    }

    /// Sends further writes to another file (tests use /dev/full to simulate a full disk).
    func redirectForTesting(to other: String) {
        let nfd = open(other, O_WRONLY)
        if nfd >= 0 { Glibc.close(fd); fd = nfd }
    }

    public func close() {
        flush()
        if fd >= 0 { fsync(fd); Glibc.close(fd); fd = -1 }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }
}

private func pad2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
