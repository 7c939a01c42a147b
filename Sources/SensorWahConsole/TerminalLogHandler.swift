import Logging
import SensorWahCore
import SensorWahRuntime
import Synchronization

/// Every command's log handler: swift-log's standard-error lines, made safe for a terminal and
/// hard to flood. A message's control characters (and its metadata's) are escaped
/// (`TerminalText`), so text a sender chose cannot clear the screen or begin a forged line; and
/// each place in the code that logs gets at most `LogRate.burst` lines a second: the rest are
/// counted, and the site's next line after the second is over says how many were left out
/// ("... and 71 more like it within 1.0 s"), as does `TerminalLogHandler.flush()` at the
/// end of a run.
public struct TerminalLogHandler: LogHandler {
    private var inner: StreamLogHandler

    public init(label: String, level: Logger.Level) {
        inner = StreamLogHandler.standardError(label: label)
        inner.logLevel = level
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        let site = LogRate.Site(file: event.file, line: event.line)
        guard let left = LogRate.shared.admit(site, text: event.message.description, now: monotonicNanos()) else {
            return
        }
        let text = TerminalText.escaped(event.message.description)
        if let left {
            var note = event
            note.message =
                "... and \(left.count) more like it within \(LogRate.tenths(left.seconds)) s (the last: \(left.last))"
            note.metadata = nil
            inner.log(event: note)
        }
        var e = event
        e.message = "\(text)"
        if let m = e.metadata { e.metadata = m.mapValues(Self.escaped) }
        inner.log(event: e)
    }

    /// Writes each site's count of lines left out since its last line (at the end of a run).
    public static func flush() {
        for (site, left) in LogRate.shared.takeAll() {
            var h = StreamLogHandler.standardError(label: "sensorwah")
            h.logLevel = .trace
            h.log(
                event: LogEvent(
                    level: .notice,
                    message:
                        "... and \(left.count) more like it within \(LogRate.tenths(left.seconds)) s (the last: \(left.last))",
                    metadata: nil, source: "sensorwah", file: site.file, function: "", line: site.line))
        }
    }

    static func escaped(_ v: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch v {
        case .string(let s): return .string(TerminalText.escaped(s))
        case .stringConvertible(let c): return .string(TerminalText.escaped(c.description))
        case .array(let a): return .array(a.map(escaped))
        case .dictionary(let d): return .dictionary(d.mapValues(escaped))
        }
    }
}

/// The per-site budget of log lines: `burst` in any one-second window, the rest counted.
public final class LogRate: Sendable {
    public static let burst = 10
    public static let shared = LogRate()
    static func tenths(_ s: Double) -> String { NumberText.rounded(s, 1) }

    struct Site: Hashable { let file: String; let line: UInt }
    /// Lines a site was not given, the seconds from its window's start to the last of them,
    /// and that one's text (escaped).
    struct LeftOut { var count: Int; var seconds: Double; var last: String }
    private struct State {
        var windowStart: UInt64; var count: Int; var left: Int; var last: String; var lastLeft: UInt64 = 0
    }
    private let sites = Mutex<[Site: State]>([:])

    /// Nil: leave this line out. Otherwise the line goes, after a note of what was left out
    /// before it (if anything).
    func admit(_ site: Site, text: String, now: UInt64) -> LeftOut?? {
        sites.withLock { sites -> LeftOut?? in
            guard var s = sites[site] else {
                sites[site] = State(windowStart: now, count: 1, left: 0, last: "")
                return .some(nil)
            }
            if now &- s.windowStart >= 1_000_000_000 {
                let before =
                    s.left > 0
                    ? LeftOut(count: s.left, seconds: Double(s.lastLeft &- s.windowStart) * 1e-9, last: s.last) : nil
                s = State(windowStart: now, count: 1, left: 0, last: "")
                sites[site] = s
                return .some(before)
            }
            s.count += 1
            if s.count <= Self.burst { sites[site] = s; return .some(nil) }
            s.left += 1
            s.lastLeft = now
            s.last = TerminalText.escaped(text.prefix(160))
            sites[site] = s
            return nil
        }
    }

    /// What every site left out and has not reported, forgotten once taken.
    func takeAll() -> [(Site, LeftOut)] {
        sites.withLock { sites in
            var out: [(Site, LeftOut)] = []
            for (k, s) in sites where s.left > 0 {
                out.append(
                    (k, LeftOut(count: s.left, seconds: Double(s.lastLeft &- s.windowStart) * 1e-9, last: s.last)))
                sites[k]!.left = 0
            }
            return out
        }
    }
}
