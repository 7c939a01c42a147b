#if canImport(Glibc)
    import Glibc
#endif

/// Writes to a file descriptor, all of it, retrying on EINTR. False on any other error.
@discardableResult
public func writeAll(_ fd: Int32, _ p: UnsafeRawPointer, _ count: Int) -> Bool {
    var off = 0
    while off < count {
        let n = write(fd, p + off, count - off)
        if n < 0 { if errno == EINTR { continue }; return false }
        off += n
    }
    return true
}

/// One line on stderr, written directly (no buffering to lose at exit).
public func printError(_ s: String) {
    var line = s + "\n"
    line.withUTF8 { _ = writeAll(2, $0.baseAddress!, $0.count) }
}
