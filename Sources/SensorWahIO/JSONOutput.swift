import SensorWahCore
import SensorWahEngine
#if canImport(Glibc)
import Glibc
#endif

/// `--midi stdout`: one JSON object per MIDI message per line, buffered, written with write(2).
public final class JSONOutput: EventOutput {
    private let fd: Int32
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 16
    private var used = 0
    public private(set) var failed = false
    public private(set) var failure: String?
    public var failureIsFinal: Bool { failed }
    /// Lines of the write that failed that did not go out (a line cut short counts as lost).
    public private(set) var lostInFailure = 0

    public init(fd: Int32 = 1) {
        self.fd = fd
        buffer = .allocate(capacity: capacity)
    }
    deinit { buffer.deallocate() }

    public var name: String { "stdout" }

    public func send(_ e: MIDIEvent) {
        if e.kind == .effectChain { return }   // the engine's scene hand-over, nothing to print
        if used + JSONLine.maxLength > capacity { flush() }
        used += JSONLine.write(e, into: buffer + used)
    }

    public func flush() {
        guard used > 0 else { return }
        if !failed {   // a closed pipe: stop writing, keep running
            var off = 0
            while off < used {
                let n = write(fd, buffer + off, used - off)
                if n < 0 { if errno == EINTR { continue }; break }
                off += n
            }
            if off < used {
                let e = errno
                failed = true
                failure = e == EPIPE ? "stdout: \(String(cString: strerror(e))) (nothing reads it any more)" : "stdout: \(String(cString: strerror(e)))"
                var lost = 0
                for i in off..<used where buffer[i] == 0x0A { lost += 1 }
                lostInFailure = lost
            }
        }
        used = 0
    }

    public func close() { flush() }
}
