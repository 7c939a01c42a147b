import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

/// A file a command writes in one piece at the end of its work (`plot`'s picture): opened first,
/// so a path that cannot be written is reported before a long log is read; emptied and written
/// at the end; removed again if the run fails and the file was new. "-" is stdout.
public struct WholeFileOutput {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    let fd: Int32
    let created: Bool

    /// `example` is a file name to suggest when `path` is a folder.
    public init(_ path: String, example: String) throws(Failure) {
        self.path = path
        if path == "-" { fd = 1; created = false; return }
        var st = stat()
        let existed = stat(path, &st) == 0
        if existed && (st.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(
                description:
                    "cannot write '\(path)': it is a folder; give a file name such as \(path.hasSuffix("/") ? path : path + "/")\(example)"
            )
        }
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot write '\(path)': \(String(cString: strerror(errno)))") }
        created = !existed
    }

    /// The run failed: close, and remove the file if this run made it.
    public func abandon() {
        guard fd != 1 else { return }
        close(fd)
        if created { unlink(path) }
    }

    public func write(_ text: String) throws(Failure) {
        defer { if fd != 1 { close(fd) } }
        if fd != 1 { _ = ftruncate(fd, 0) }
        var bytes = Array(text.utf8)
        let ok = bytes.withUnsafeMutableBytes { writeAll(fd, $0.baseAddress!, $0.count) }
        guard ok else {
            throw Failure(
                description: "cannot write '\(path == "-" ? "stdout" : path)': \(String(cString: strerror(errno)))")
        }
    }
}
