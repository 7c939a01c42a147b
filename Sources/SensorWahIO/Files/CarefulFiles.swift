#if canImport(Glibc)
    import Glibc
#endif

/// Reading and writing the files a person or a program may change under a running `listen`
/// (the configuration, the gestures file, the keys in the data folder) the way a careful daemon
/// does: a read never blocks (a FIFO or a device put in the file's place is refused, not waited
/// on), never takes more than a cap, and a write goes through a new file of a random name that
/// is renamed over the target, keeping its mode, so nothing planted at a predictable name is
/// followed.
public enum CarefulFile {
    /// The largest configuration or gestures file read.
    public static let maxBytes = 4 << 20

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        /// The file does not exist (the only failure some callers treat as "nothing yet").
        public let missing: Bool
        public init(_ description: String, missing: Bool = false) {
            self.description = description; self.missing = missing
        }
    }

    /// What a file's type is, in words, for a message.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }

    static func errorText(_ e: Int32) -> String { String(cString: strerror(e)) }

    /// The whole of `path` as bytes, when it is a regular file of at most `maxBytes`: opened
    /// without blocking (O_NONBLOCK, so a FIFO's open returns at once) and checked with fstat
    /// before a byte is read. `what` names the file in messages ("the configuration file").
    public static func readBytes(_ path: String, what: String, maxBytes: Int = CarefulFile.maxBytes) throws(Failure)
        -> [UInt8]
    {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let e = errno
            throw Failure("cannot read \(what) \(path): \(errorText(e))", missing: e == ENOENT)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure("cannot read \(what) \(path): \(errorText(errno))") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw Failure(
                "\(path) is \(kind(st.st_mode)), not a regular file: \(what) is read only from a regular file; put a file there (or point to one)"
            )
        }
        guard Int(st.st_size) <= maxBytes else {
            throw Failure(
                "\(path) is \(Int(st.st_size)) bytes, over the \(maxBytes) bytes \(what) may have: it is not read")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                // grown since the fstat: read on up to the cap
                guard count <= maxBytes else {
                    throw Failure(
                        "\(path) grew over the \(maxBytes) bytes \(what) may have while it was read: it is not read")
                }
                bytes += [UInt8](repeating: 0, count: Swift.min(65536, maxBytes + 1 - count))
            }
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure("cannot read \(what) \(path): \(errorText(errno))")
            }
            if n == 0 { break }
            count += n
        }
        guard count <= maxBytes else {
            throw Failure("\(path) grew over the \(maxBytes) bytes \(what) may have while it was read: it is not read")
        }
        return Array(bytes[0..<count])
    }

    /// The whole of `path` as text (UTF-8, invalid bytes replaced); see `readBytes`.
    public static func readText(_ path: String, what: String, maxBytes: Int = CarefulFile.maxBytes) throws(Failure)
        -> String
    {
        String(decoding: try readBytes(path, what: what, maxBytes: maxBytes), as: UTF8.self)
    }

    /// The file a path names when its last part is a symbolic link: the link's target (links
    /// followed up to 40 deep), so that writing it keeps the link a link. Other paths as given.
    public static func resolvedTarget(_ path: String) throws(Failure) -> String {
        var p = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(p, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return p }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(p, &buf, buf.count - 1)
            guard n > 0 else { throw Failure("cannot read the link \(p): \(errorText(errno))") }
            let target = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                p = target
            } else {
                let dir = p.lastIndex(of: "/").map { String(p[...$0]) } ?? ""
                p = dir + target
            }
        }
        throw Failure("\(path): too many levels of symbolic links")
    }

    /// Replaces `path`'s contents with `bytes`, atomically: a new file of a random name in the
    /// same folder (O_CREAT|O_EXCL|O_NOFOLLOW: never an existing file or a link planted there),
    /// given `mode`, or else the mode (and, when allowed, the owner) the file has now (0644 for a
    /// new file), written, flushed to disk and renamed over. A symbolic link at `path` stays a
    /// link: its target is what is replaced.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t? = nil) throws(Failure) {
        let target = try resolvedTarget(path)
        var st = stat()
        let exists = stat(target, &st) == 0
        if exists, st.st_mode & S_IFMT != S_IFREG {
            throw Failure("\(target) is \(kind(st.st_mode)), not a regular file: not written")
        }
        let dir = target.lastIndex(of: "/").map { String(target[...$0]) } ?? ""
        let base = target.lastIndex(of: "/").map { String(target[target.index(after: $0)...]) } ?? target
        var g = SystemRandomNumberGenerator()
        var tmp = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            let tag = (0..<8).map { _ in
                let b = UInt8.random(in: 0...255, using: &g); return (b < 16 ? "0" : "") + String(b, radix: 16)
            }.joined()
            tmp = "\(dir).\(base).\(tag).sensorwah-tmp"
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw Failure("cannot write beside \(target): \(errorText(errno))") }
        func fail(_ what: String, _ e: Int32) -> Failure {
            close(fd)
            unlink(tmp)
            return Failure("cannot replace \(target): \(what): \(errorText(e))")
        }
        if let m = mode {
            guard fchmod(fd, m) == 0 else { throw fail("setting its mode", errno) }
        } else if exists {
            // the owner first (a chown clears set-id bits), then the mode
            if st.st_uid != geteuid() || st.st_gid != getegid() { _ = fchown(fd, st.st_uid, st.st_gid) }
            guard fchmod(fd, st.st_mode & 0o7777) == 0 else { throw fail("keeping its mode", errno) }
        } else {
            guard fchmod(fd, 0o644) == 0 else { throw fail("setting its mode", errno) }
        }
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 { if errno == EINTR { continue }; throw fail("writing", errno) }
            off += n
        }
        guard fsync(fd) == 0 else { throw fail("flushing to disk", errno) }
        guard close(fd) == 0 else {
            let e = errno; unlink(tmp); throw Failure("cannot replace \(target): \(errorText(e))")
        }
        guard rename(tmp, target) == 0 else {
            let e = errno; unlink(tmp); throw Failure("cannot replace \(target): \(errorText(e))")
        }
    }
}
