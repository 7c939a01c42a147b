import SensorWahCore

/// The outputs of a run that has no output thread (`replay` drives its pipeline itself): hands
/// every event to each of them and notices, after each send and flush, when every one has
/// failed (`EventOutput.failure`), as `OutputPump` does for `listen`. One thread.
public final class DeliveryWatch: EventOutput {
    public let outputs: [any EventOutput]
    /// Messages delivered nowhere: those handed over while every output had failed, and those
    /// the last output to fail lost in the write that failed (its `lostInFailure`). With one
    /// output, exactly what it did not deliver.
    public private(set) var undelivered = 0
    /// How many times every output has failed at once.
    public private(set) var failures = 0
    /// Whether every output has failed now.
    public private(set) var failedNow = false
    /// What the outputs said the last time they all failed.
    public private(set) var failureText = ""
    /// Called each time every output has failed (once per failure, not per message).
    public var onFailure: ((_ text: String, _ final: Bool) -> Void)?
    /// Called when an output delivers again after every one had failed.
    public var onRecovery: (() -> Void)?
    private var failedBefore: [Bool]

    public init(_ outputs: [any EventOutput]) {
        self.outputs = outputs
        failedBefore = Array(repeating: false, count: outputs.count)
    }

    public var name: String { outputs.map(\.name).joined(separator: "+") }

    public func send(_ e: MIDIEvent) {
        for o in outputs { o.send(e) }
        check(sent: 1)
    }

    public func flush() {
        for o in outputs { o.flush() }
        check(sent: 0)
    }

    /// Flushes and checks, then closes: closing is no failure (a JACK output that closes is
    /// disconnected by then).
    public func close() {
        for o in outputs { o.flush() }
        check(sent: 0)
        for o in outputs { o.close() }
    }

    public var failure: String? { failedNow ? failureText : nil }

    /// Every output has failed for good: none of them can deliver again (a reader gone), so
    /// going on would only play into nothing.
    public var failureIsFinal: Bool { failedNow && outputs.allSatisfy(\.failureIsFinal) }

    private func check(sent: Int) {
        guard !outputs.isEmpty else { return }
        var dead = true, lost = 0
        for (i, o) in outputs.enumerated() {
            let failed = o.failure != nil
            if failed && !failedBefore[i] { lost = max(lost, o.lostInFailure) }
            failedBefore[i] = failed
            if !failed { dead = false }
        }
        if dead {
            if failedNow {
                undelivered += sent
                return
            }
            failedNow = true
            failures += 1
            undelivered += sent + lost
            failureText = outputs.compactMap(\.failure).joined(separator: "; ")
            onFailure?(failureText, failureIsFinal)
        } else if failedNow {
            failedNow = false
            onRecovery?()
        }
    }
}
