import SensorWahCore
import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

/// `--midi stdout`: one JSON object per line for each MIDI message and each change of the wah's
/// switch or an `fx=` parameter (`JSONLine`), buffered, written with write(2).
public final class JSONOutput: EventOutput {
    private let fd: Int32
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 16
    private var used = 0
    public private(set) var failed = false
    public private(set) var failure: String?
    public var failureIsFinal: Bool { failed }
    /// Lines that did not go out: the rest of the write that failed (a line cut short counts)
    /// and every line after it, counted when a flush drops them.
    public private(set) var undelivered = 0

    public init(fd: Int32 = 1) {
        self.fd = fd
        buffer = .allocate(capacity: capacity)
    }
    deinit { buffer.deallocate() }

    public var name: String { "stdout" }

    public func send(_ e: MIDIEvent) {
        if used + JSONLine.maxLength > capacity { flush() }
        used += JSONLine.write(e, into: buffer + used)
    }

    public func send(_ c: EffectControl) {
        if case .scene = c.action { return }  // the engine's scene hand-over, nothing to print
        if used + JSONLine.maxLength > capacity { flush() }
        used += JSONLine.write(c, into: buffer + used)
    }

    public func flush() {
        guard used > 0 else { return }
        if !failed {  // a closed pipe: stop writing, keep running
            var off = 0
            while off < used {
                let n = write(fd, buffer + off, used - off)
                if n < 0 { if errno == EINTR { continue }; break }
                off += n
            }
            if off < used {
                let e = errno
                failed = true
                failure =
                    e == EPIPE
                    ? "stdout: \(String(cString: strerror(e))) (nothing reads it any more)"
                    : "stdout: \(String(cString: strerror(e)))"
                undelivered += lines(from: off)
            }
        } else {
            undelivered += lines(from: 0)
        }
        used = 0
    }

    /// Lines in the buffer from `start` (a failed output's only extra work).
    private func lines(from start: Int) -> Int {
        var n = 0
        for i in start..<used where buffer[i] == 0x0A { n += 1 }
        return n
    }

    public func close() { flush() }
}
