import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Where a running RTP-MIDI session says who it is and who has joined, so that `sensorwah ports`
/// (another process) can list it: one small text file per session,
/// `$XDG_RUNTIME_DIR/sensorwah/rtp-PORT` (or `/tmp/sensorwah-UID/rtp-PORT` without one; the
/// folder readable by the user only). Its first line is `pid N`; the rest is what the live view
/// shows. Rewritten (atomically) when a participant joins or leaves and every few seconds for
/// the clock-sync round trips; removed when the session closes. A file whose process is gone
/// (killed) is not listed and is removed by the next `list`.
public enum RTPSessionRegistry {
    public static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let r = environment["XDG_RUNTIME_DIR"], !r.isEmpty { return r + "/sensorwah" }
        return "/tmp/sensorwah-\(getuid())"
    }

    static func path(port: Int) -> String { folder() + "/rtp-\(port)" }

    /// Writes the session's lines; false (and nothing written) when the folder cannot be made.
    /// True when `dir` is a folder of this user that nobody else may write or read (a folder of
    /// that name made first by someone else, in /tmp, is not used).
    static func isOurs(_ dir: String) -> Bool {
        var st = stat()
        guard lstat(dir, &st) == 0 else { return false }
        return (st.st_mode & S_IFMT) == S_IFDIR && st.st_uid == getuid() && (st.st_mode & 0o077) == 0
    }

    @discardableResult
    public static func write(port: Int, lines: [String]) -> Bool {
        let dir = folder()
        if mkdir(dir, 0o700) != 0 && errno != EEXIST { return false }
        guard isOurs(dir) else { return false }
        let text = (["pid \(getpid())"] + lines).joined(separator: "\n") + "\n"
        return (try? text.write(toFile: path(port: port), atomically: true, encoding: .utf8)) != nil
    }

    public static func remove(port: Int) { unlink(path(port: port)) }

    /// The sessions running now, each as its lines (without the pid line), by port.
    public static func list() -> [(port: Int, pid: Int32, lines: [String])] {
        let dir = folder()
        guard isOurs(dir), let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        var out: [(port: Int, pid: Int32, lines: [String])] = []
        for name in names where name.hasPrefix("rtp-") {
            guard let port = Int(name.dropFirst(4)),
                let text = try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)
            else { continue }
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            guard let first = lines.first, first.hasPrefix("pid "), let pid = Int32(first.dropFirst(4)) else {
                continue
            }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(dir + "/" + name)  // its process is gone
                continue
            }
            out.append((port, pid, Array(lines.dropFirst())))
        }
        return out.sorted { $0.port < $1.port }
    }
}
