import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock.
public func monotonicSeconds() -> Double {
    Double(monotonicNanos()) * 1e-9
}

/// Sleeps until the monotonic clock reads `deadline` (seconds), in steps of at most 0.1 s;
/// returns early on a stop request, or as soon as `wake` says so (asked before each step).
public func sleep(until deadline: Double, wake: () -> Bool = { false }) {
    while !Shutdown.isRequested && !wake() {
        let now = monotonicSeconds()
        if now >= deadline { return }
        let wait = min(deadline - now, 0.1)
        var ts = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - Double(Int(wait))) * 1e9))
        nanosleep(&ts, nil)
    }
}
