import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// Notices when a file is written, once the writing is over: its identity (device and inode),
/// size and times changed since what was last reported, and then held still for `settleNanos`
/// across the looks in between (a file rewritten in place by a shell redirection is reported
/// when the writer is done, not while it is half written). Looking is a stat, never an open:
/// whatever is put in the file's place, a look never blocks.
struct ConfigWatch {
    struct Stamp: Equatable {
        var device: UInt64, inode: UInt64, size: Int64
        var mtime: (Int, Int), ctime: (Int, Int)
        static func == (a: Stamp, b: Stamp) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.mtime == b.mtime && a.ctime == b.ctime
        }
    }

    /// How long a change must hold still before it is reported.
    static let settleNanos: UInt64 = 250_000_000

    let path: String
    /// What was last reported (at the start: the file as it was read).
    private var reported: Stamp?
    /// The last look, and since when it has looked so.
    private var seen: Stamp?
    private var seenSince: UInt64 = 0

    init(path: String) {
        self.path = path
        reported = Self.stamp(path)
        seen = reported
    }

    static func stamp(_ path: String) -> Stamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Stamp(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtime: (st.st_mtim.tv_sec, st.st_mtim.tv_nsec), ctime: (st.st_ctim.tv_sec, st.st_ctim.tv_nsec))
    }

    /// True once when the file changed since the last report and has not changed for
    /// `settleNanos` since (a deleted file counts once too).
    mutating func poll(now: UInt64 = monotonicNanos()) -> Bool {
        let current = Self.stamp(path)
        if current != seen {
            seen = current
            seenSince = now
            return false
        }
        guard current != reported, now &- seenSince >= Self.settleNanos else { return false }
        reported = current
        return true
    }

    /// Whether a change is seen and not yet reported (it is waiting to hold still).
    var pending: Bool { seen != reported }

    /// The file as it is now counts as reported (this program wrote it and uses it already).
    mutating func accept() {
        reported = Self.stamp(path)
        seen = reported
    }
}
