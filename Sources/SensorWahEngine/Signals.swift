import Atomics
#if canImport(Glibc)
    import Glibc
#endif

/// The process-wide stop request: set by SIGINT and SIGTERM, polled by every loop that waits.
public enum Shutdown {
    public static let requested = ManagedAtomic<Bool>(false)

    public static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Set by SIGHUP once `installReloadHandler` ran: reload the configuration.
    public static let reloadRequested = ManagedAtomic<Bool>(false)

    /// Set by SIGUSR2 once `installSceneSignal` ran: move to the next scene.
    public static let nextSceneRequested = ManagedAtomic<Bool>(false)

    /// SIGUSR2 asks for the next scene (a foot switch script, a stage manager's remote).
    public static func installSceneSignal() {
        _ = nextSceneRequested.load(ordering: .relaxed)  // initialised here, never in the handler
        let handler: @convention(c) (Int32) -> Void = { _ in Shutdown.nextSceneRequested.store(true, ordering: .relaxed)
        }
        signal(SIGUSR2, handler)
    }

    /// SIGHUP asks for a reload instead of ending the process.
    public static func installReloadHandler() {
        _ = reloadRequested.load(ordering: .relaxed)  // initialised here, never in the handler
        let handler: @convention(c) (Int32) -> Void = { _ in Shutdown.reloadRequested.store(true, ordering: .relaxed) }
        signal(SIGHUP, handler)
    }

    /// The signal that asked for the stop (0: none, or a stop from inside, like `q` in the view).
    public static let stopSignal = ManagedAtomic<Int32>(0)

    /// SIGINT/SIGTERM request a stop (and SIGHUP, with `hangupStops`: a closed terminal ends a
    /// run that has no configuration file to reload, cleanly, like SIGTERM); a closed pipe is
    /// an error on write, not a signal; a file-size limit (`ulimit -f`) is a write error
    /// (EFBIG) the recorder reports, not a signal that kills the process.
    public static func installHandlers(hangupStops: Bool = false) {
        // a global is made on first use (swift_once, which allocates): a signal handler that
        // made it could deadlock on the allocator's lock, so each is made here, before
        _ = stopSignal.load(ordering: .relaxed)
        _ = requested.load(ordering: .relaxed)
        let handler: @convention(c) (Int32) -> Void = { sig in
            Shutdown.stopSignal.store(sig, ordering: .relaxed)
            Shutdown.requested.store(true, ordering: .relaxed)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        if hangupStops { signal(SIGHUP, handler) }
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }

    /// "SIGTERM", "SIGINT", "SIGHUP" for the stop's log line, nil when no signal asked for it.
    public static var stopSignalName: String? {
        switch stopSignal.load(ordering: .relaxed) {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        case 0: return nil
        case let n: return "signal \(n)"
        }
    }

    /// "Set forward" requested (SIGUSR1, a key, an OSC message): the inputs poll it and make
    /// each sender's current orientation its rest. One request is taken once.
    public static let rezero = ManagedAtomic<Bool>(false)

    /// Asks every input to capture its rest orientation. Safe from any thread and from a signal handler.
    public static func requestRezero() { rezero.store(true, ordering: .relaxed) }

    /// True once per request (the input that takes it captures the rest for its senders).
    public static func takeRezeroRequest() -> Bool {
        rezero.load(ordering: .relaxed) && rezero.exchange(false, ordering: .relaxed)
    }

    /// SIGUSR1 requests a re-zero (`kill -USR1 <pid>` while `listen` or `replay` runs).
    public static func installRezeroSignal() {
        _ = rezero.load(ordering: .relaxed)  // initialised here, never in the handler
        let handler: @convention(c) (Int32) -> Void = { _ in Shutdown.rezero.store(true, ordering: .relaxed) }
        signal(SIGUSR1, handler)
    }
}
