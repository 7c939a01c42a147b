/// Whether the outputs of a run that has no output thread (`replay` drives its pipeline
/// itself) still deliver: looked at now and then (`check`, or every 16th `shouldStop`), it
/// notices when every one has failed (`EventOutput.failure`), as `OutputPump` does for
/// `listen`, and counts the messages that went nowhere from the outputs' own counts
/// (`EventOutput.undelivered`). The messages themselves go straight to the outputs: a
/// `replay --fast` that hands over a million of them pays nothing per message. One thread.
public final class DeliveryWatch {
    public let outputs: [any EventOutput]

    struct State {
        var undelivered = 0
        var failures = 0
        var failedNow = false
        var final = false
        var calls = 0
        var failureText = ""
    }
    /// Behind a pointer: `shouldStop`, asked for every line, makes no exclusivity checks.
    private let state: UnsafeMutablePointer<State>
    /// Each output's `undelivered` at the last check.
    private let seen: UnsafeMutableBufferPointer<Int>

    /// Messages delivered nowhere: what the outputs did not deliver while every one of them had
    /// failed (with several outputs, the least any of them lost over each look: an estimate
    /// from below; with one, exactly what it did not deliver).
    public var undelivered: Int { state.pointee.undelivered }
    /// How many times every output has failed at once.
    public var failures: Int { state.pointee.failures }
    /// What the outputs said the last time they all failed.
    public var failureText: String { state.pointee.failureText }
    /// Every output has failed for good (`EventOutput.failureIsFinal`: none can deliver
    /// again, a reader gone), as of the last check: going on would only play into nothing.
    public var failedForGood: Bool { state.pointee.final }
    /// Called each time every output has failed (once per failure, not per message), with what
    /// they said and whether the failure is for good.
    public var onFailure: ((_ text: String, _ final: Bool) -> Void)?
    /// Called when an output delivers again after every one had failed.
    public var onRecovery: (() -> Void)?

    public init(_ outputs: [any EventOutput]) {
        self.outputs = outputs
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        seen = .allocate(capacity: max(outputs.count, 1))
        seen.initialize(repeating: 0)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        seen.deallocate()
    }

    /// For a loop that asks before each step: checks every 16th call (a replay's lines come
    /// 10 ms or less apart, so a failure is seen within a few frames) and says whether every
    /// output has failed for good.
    @inline(__always)
    public func shouldStop() -> Bool {
        state.pointee.calls &+= 1
        if state.pointee.calls & 15 == 0 { check() }
        return state.pointee.final
    }

    /// Looks at the outputs now (after a flush sees what the flush did; before closing, since a
    /// closed JACK output is disconnected, which is no failure).
    public func check() {
        guard !outputs.isEmpty else { return }
        var dead = true, some = false
        for o in outputs {
            if o.failure == nil { dead = false } else { some = true }
        }
        if some || state.pointee.failedNow {
            // what each output lost since the last look; while all have failed, the least of it
            // went nowhere (an output's count only grows while it fails, so looking less often
            // while all deliver misses nothing)
            var least = Int.max
            for (i, o) in outputs.enumerated() {
                let n = o.undelivered
                least = min(least, n - seen[i])
                seen[i] = n
            }
            if dead { state.pointee.undelivered += max(least, 0) }
        }
        if dead && !state.pointee.failedNow {
            state.pointee.failedNow = true
            state.pointee.failures += 1
            var final = true
            for o in outputs where !o.failureIsFinal { final = false }
            state.pointee.final = final
            let text = outputs.compactMap(\.failure).joined(separator: "; ")
            state.pointee.failureText = text
            onFailure?(text, final)
        } else if !dead && state.pointee.failedNow {
            state.pointee.failedNow = false
            state.pointee.final = false
            onRecovery?()
        }
    }
}
