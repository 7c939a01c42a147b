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
    private var failedErrno: Int32 = 0

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
        if !failed && !writeAll(fd, buffer, used) {   // a closed pipe: stop writing, keep running
            failed = true
            failedErrno = errno
        }
        used = 0
    }

    public var failure: String? {
        guard failed else { return nil }
        let why = String(cString: strerror(failedErrno))
        return failedErrno == EPIPE ? "stdout: \(why) (nothing reads the output any more)" : "stdout: \(why)"
    }

    public func close() { flush() }
}
