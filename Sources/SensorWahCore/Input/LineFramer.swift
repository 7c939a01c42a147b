#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the framer found in the byte stream.
public enum FramedLine {
    /// A complete line, without its terminator (a trailing CR is kept; parsers ignore it).
    case line(UnsafeRawBufferPointer)
    /// A line that exceeded the maximum length; its bytes were dropped up to the next terminator.
    case tooLong(length: Int)
}

/// Splits a byte stream into lines with a hard maximum line length, so a sender that never
/// sends a newline cannot grow memory. Lines that lie whole inside one input chunk are handed
/// out without copying; a line split across chunks is joined in a buffer allocated once.
public struct LineFramer: ~Copyable {
    public let maxLineLength: Int
    public let terminator: UInt8
    private let pending: UnsafeMutablePointer<UInt8>
    private var pendingCount = 0
    /// True while skipping the rest of an over-long line.
    private var discarding = false
    private var discardedLength = 0

    public init(maxLineLength: Int = 16_384, terminator: UInt8 = 0x0A) {
        precondition(maxLineLength > 0)
        self.maxLineLength = maxLineLength
        self.terminator = terminator
        self.pending = .allocate(capacity: maxLineLength)
    }

    deinit { pending.deallocate() }

    /// Bytes of an incomplete line held back, waiting for its terminator.
    public var bufferedBytes: Int { pendingCount }

    /// True while the current line has already passed the maximum and is being skipped.
    public var isOverLong: Bool { discarding }

    /// Feeds a chunk; `body` is called for each complete line (or over-long line) in order.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (FramedLine) throws -> Void) rethrows {
        guard let start = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var p = UnsafePointer<UInt8>(start)
        var remaining = chunk.count
        while remaining > 0 {
            let found = memchr(p, Int32(terminator), remaining)
            guard let found else {
                append(p, remaining)
                return
            }
            let nl = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self))
            let len = nl - p
            if discarding {
                discardedLength &+= len
                let total = discardedLength
                discarding = false
                discardedLength = 0
                pendingCount = 0
                try body(.tooLong(length: total))
            } else if pendingCount == 0 {
                if len > maxLineLength {
                    try body(.tooLong(length: len))
                } else {
                    try body(.line(UnsafeRawBufferPointer(start: p, count: len)))
                }
            } else {
                if pendingCount &+ len > maxLineLength {
                    let total = pendingCount &+ len
                    pendingCount = 0
                    try body(.tooLong(length: total))
                } else {
                    (pending + pendingCount).update(from: p, count: len)
                    let total = pendingCount &+ len
                    pendingCount = 0
                    try body(.line(UnsafeRawBufferPointer(start: pending, count: total)))
                }
            }
            p = nl + 1
            remaining &-= len &+ 1
        }
    }

    private mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if discarding { discardedLength &+= n; return }
        if pendingCount &+ n > maxLineLength {
            discarding = true
            discardedLength = pendingCount &+ n
            pendingCount = 0
            return
        }
        (pending + pendingCount).update(from: p, count: n)
        pendingCount &+= n
    }

    /// End of a file: a last line without a terminator is still a line.
    public mutating func finish(_ body: (FramedLine) throws -> Void) rethrows {
        if discarding {
            let total = discardedLength
            discarding = false; discardedLength = 0
            try body(.tooLong(length: total))
        } else if pendingCount > 0 {
            let n = pendingCount
            pendingCount = 0
            try body(.line(UnsafeRawBufferPointer(start: pending, count: n)))
        }
    }

    /// End of a connection that closed mid-line: the partial line is dropped. Returns its length.
    @discardableResult
    public mutating func discardPartial() -> Int {
        let n = discarding ? discardedLength : pendingCount
        pendingCount = 0; discarding = false; discardedLength = 0
        return n
    }
}
