import Atomics
import SensorWahRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Seconds on the monotonic clock.
public func monotonicSeconds() -> Double {
    Double(monotonicNanos()) * 1e-9
}

/// The process-wide stop request: set by SIGINT and SIGTERM, polled by every loop that waits.
public enum Shutdown {
    public static let requested = ManagedAtomic<Bool>(false)

    public static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Set by SIGHUP once `installReloadHandler` ran: reload the configuration.
    public static let reloadRequested = ManagedAtomic<Bool>(false)

    /// SIGHUP asks for a reload instead of ending the process.
    public static func installReloadHandler() {
        let handler: @convention(c) (Int32) -> Void = { _ in Shutdown.reloadRequested.store(true, ordering: .relaxed) }
        signal(SIGHUP, handler)
    }

    /// SIGINT/SIGTERM request a stop; a closed pipe is an error on write, not a signal.
    public static func installHandlers() {
        let handler: @convention(c) (Int32) -> Void = { _ in Shutdown.requested.store(true, ordering: .relaxed) }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        signal(SIGPIPE, SIG_IGN)
    }
}

/// Sleeps until the monotonic clock reads `deadline` (seconds); returns early on a stop request.
public func sleep(until deadline: Double) {
    while !Shutdown.isRequested {
        let now = monotonicSeconds()
        if now >= deadline { return }
        let wait = min(deadline - now, 0.1)
        var ts = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - Double(Int(wait))) * 1e9))
        nanosleep(&ts, nil)
    }
}
