import SensorWahCore
#if canImport(Glibc)
import Glibc
#endif

/// `--midi stdout`: one JSON object per MIDI message per line, buffered, written with write(2).
final class JSONOutput: MIDIOutput {
    private let fd: Int32
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 16
    private var used = 0
    private(set) var failed = false

    init(fd: Int32 = 1) {
        self.fd = fd
        buffer = .allocate(capacity: capacity)
    }
    deinit { buffer.deallocate() }

    var name: String { "stdout" }

    func send(_ e: MIDIEvent) {
        if used + JSONLine.maxLength > capacity { flush() }
        used += JSONLine.write(e, into: buffer + used)
    }

    func flush() {
        guard used > 0 else { return }
        if !failed && !writeAll(fd, buffer, used) { failed = true }   // a closed pipe: stop writing, keep running
        used = 0
    }

    func close() { flush() }
}

/// A MIDI destination. Outputs run on the thread that owns the pipeline; `send` must not block long.
protocol MIDIOutput: AnyObject {
    var name: String { get }
    func send(_ e: MIDIEvent)
    /// Push buffered messages out now (called when the pipeline waits for time to pass).
    func flush()
    func close()
}
