import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A wait that ran out of time: what was awaited, for how long, and what was seen last. Thrown
/// out of a test, XCTest reports its description as the failure.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public let seconds: Double
    public let lastSeen: String

    public init(what: String, seconds: Double, lastSeen: String) {
        self.what = what; self.seconds = seconds; self.lastSeen = lastSeen
    }

    public var description: String {
        "waited \(String(format: "%.1f", seconds)) s for \(what), in vain; last seen: \(lastSeen)"
    }
}

/// The one way the tests wait: looks (`observe`) every `poll` seconds until what it sees
/// satisfies `satisfied`, and returns that; after `timeout` seconds throws `WaitTimedOut`
/// naming `what` and the last thing seen (its last 2000 characters). An error thrown by either
/// closure ends the wait at once (the awaited process exited, say). The last look is at the
/// deadline, so a condition met just in time counts.
@discardableResult
public func waitUntil<T>(
    _ what: @autoclosure () -> String, timeout: Double = 10, poll: Double = 0.02,
    observe: () throws -> T, _ satisfied: (T) throws -> Bool
) throws -> T {
    let deadline = Wait.now() + timeout
    while true {
        let seen = try observe()
        if try satisfied(seen) { return seen }
        let left = deadline - Wait.now()
        if left <= 0 { throw WaitTimedOut(what: what(), seconds: timeout, lastSeen: Wait.describe(seen)) }
        Wait.sleep(min(poll, left))
    }
}

/// `waitUntil` for a condition with nothing of its own to show: `state` says what was seen
/// when the time ran out.
public func waitUntil(
    _ what: @autoclosure () -> String, timeout: Double = 10, poll: Double = 0.02,
    state: () -> String = { "the condition still false" }, _ condition: () throws -> Bool
) throws {
    do {
        try waitUntil(what(), timeout: timeout, poll: poll, observe: condition) { $0 }
    } catch let e as WaitTimedOut {
        throw WaitTimedOut(what: e.what, seconds: e.seconds, lastSeen: Wait.describe(state()))
    }
}

public enum Wait {
    /// Seconds on the monotonic clock.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        usleep(UInt32(seconds * 1e6))
    }

    /// What a timed-out wait saw, short enough for a failure message: the end of it, where the
    /// news is (a log's last lines, a screen's bottom).
    static func describe<T>(_ seen: T) -> String {
        let text = String(describing: seen)
        guard text.count > 2000 else { return text.isEmpty ? "(nothing)" : text }
        return "...\(text.suffix(2000))"
    }
}
