import SensorWahCore
import Synchronization

/// One sender's timing under a playout (`listen --playout`): what the live view, the control
/// page and `--latency` show.
public struct SenderTiming: Sendable, Equatable {
    public var name: String
    /// The playout (`.off`: its readings play as they arrive).
    public var mode = Playout.Mode.off
    /// Readings scheduled by the sender's own time, and those that carried none (played as they
    /// arrived: an app that sends no time, or a log timed at an assumed rate).
    public var readings = 0
    public var untimed = 0
    /// Readings that arrived after their time and played at once.
    public var late = 0
    /// The delay in force (seconds).
    public var delay = 0.0
    /// How much the delivery's lateness varies, p1 to p99 (seconds), recent readings counting most.
    public var jitter = Double.nan

    public init(name: String) { self.name = name }

    /// One line for the live view and the summary: `delay 12.5 ms (auto), jitter 9.0 ms, late 3 of 6,000`.
    public var text: String {
        let kind: String
        switch mode {
        case .off: return "\(name): played as it arrives"
        case .auto: kind = "auto"
        case .fixed: kind = "fixed"
        }
        guard readings > 0 else {
            return untimed > 0 ? "\(name): no time of its own; played as it arrives" : "\(name): no reading yet"
        }
        var t =
            "\(name): delay \(NumberText.fixed(delay * 1000, 1)) ms (\(kind)), jitter \(NumberText.fixed(jitter * 1000, 1)) ms, late \(late) of \(readings)"
        if untimed > 0 { t += ", \(untimed) without a time of their own" }
        return t
    }
}

/// Each connected sender's timing as text, written by the listener's loop about twice a second
/// while a playout runs, read by the live view and the control page on their own threads.
public final class TimingBoard: Sendable {
    private let text = Mutex<[String]>([])
    public init() {}
    public var lines: [String] { text.withLock { $0 } }
    func publish(_ lines: [String]) { text.withLock { $0 = lines } }
}
