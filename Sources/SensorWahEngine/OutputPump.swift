import Atomics
import Dispatch
#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import Synchronization
import SensorWahCore
import SensorWahRuntime
import CSpinHint

/// The output thread: takes mapped events off the lock-free queue and hands them to every
/// output, so a slow output never stalls the network thread. Records the latency from the
/// moment a line was read off the socket to the moment its message is handed to the outputs.
public final class OutputPump: @unchecked Sendable {
    public let queue: SPSCQueue<QueuedEvent>
    public let outputs: [any EventOutput]
    private let signal = DispatchSemaphore(value: 0)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    private let running = ManagedAtomic<Bool>(true)
    /// The output thread is about to wait on `signal` (or waits): a producer must signal it.
    /// While false the thread is awake and will look at the queue again, so no syscall is made.
    private let sleeping = ManagedAtomic<Bool>(false)
    /// The network thread is reading bytes that may become messages (between `arriving(true)`
    /// and `arriving(false)`), and the CPU it runs on.
    private let expecting = ManagedAtomic<Bool>(false)
    private let producerCPU = ManagedAtomic<Int>(-1)
    /// When the last read began (network thread only), and the gap below which reads count as
    /// dense and get no early wake-up.
    private let lastArrival = ManagedAtomic<UInt64>(0)
    public var denseNanos: UInt64 = 2_000_000
    /// Reads from one sender at a steady rate: when the next is due (network thread only), and
    /// the window around it the output thread stays awake in (0, 0: none); see `watchForRead`.
    private var forecast = ArrivalForecast()
    private let watchFrom = ManagedAtomic<UInt64>(0)
    private let watchUntil = ManagedAtomic<UInt64>(0)
    /// Whether the output thread stays awake in the window before a read that is due (set
    /// before `start`; `listen --no-anticipate` turns it off).
    public var anticipate = true
    /// Windows the output thread stayed awake in, and the time it spent in them (ns).
    public private(set) var watches = 0
    public private(set) var watchNanos: UInt64 = 0
    /// The SCHED_FIFO priority of the network thread that feeds the pump (the listener's).
    public static let networkPriority: Int32 = 9
    /// The longest busy wait for an expected message (ns): a line takes the network thread
    /// ~5-40 µs from socket to queue, so the wait rarely reaches this.
    public var spinLimitNanos: UInt64 = 300_000
    public private(set) var latency = LatencyHistogram()
    /// The same latency for each sender slot (`QueuedEvent.sender`), when `latencyBySender` is
    /// set before `start`: a slot's histogram (40 KB) is made when its first message arrives
    /// (nil: none yet); room for 256 slots is reserved at `start`.
    public var latencyBySender = false
    public private(set) var senderLatency: [LatencyHistogram?] = []
    /// From queued by the network thread to taken off the queue by the output thread.
    public private(set) var wakeLatency = LatencyHistogram()
    public private(set) var delivered = 0
    /// `delivered` for other threads (the control page's MIDI activity), stored once per drain.
    public let deliveredSoFar = ManagedAtomic<Int>(0)
    /// Busy waits begun, and the time they took (ns), for the CPU cost at rest and at 100 Hz.
    public private(set) var spins = 0
    public private(set) var spinNanos: UInt64 = 0
    /// For the live view (set before `start`): the output thread publishes the latency's p50
    /// and p99 (µs, -1: no message yet) into these atomics at most five times a second.
    public var publishLatency = false
    public let latencyP50 = ManagedAtomic<Int>(-1)
    public let latencyP99 = ManagedAtomic<Int>(-1)

    /// Events held until they are due (a sender's playout, `QueuedEvent.dueNanos`), and the
    /// latest due time among them.
    private var held: DueHeap
    private var heldLatest: UInt64 = 0
    /// Events released before they were due because the held events filled their room.
    public private(set) var releasedEarly = 0

    /// The outputs that take scheduled messages as soon as they are made (`takesAhead`).
    private let ahead: [any EventOutput]
    private let takesAhead: [Bool]

    public init(queue: SPSCQueue<QueuedEvent>, outputs: [any EventOutput]) {
        self.queue = queue
        self.outputs = outputs
        takesAhead = outputs.map(\.takesAhead)
        ahead = outputs.filter(\.takesAhead)
        held = DueHeap(capacity: queue.capacity)
    }

    /// Called by the producer after pushing: a syscall only when the output thread sleeps.
    public var wake: @Sendable () -> Void { { [self] in ring() } }

    /// Called by the network thread as bytes arrive (`true`, before they are parsed) and when
    /// they are done (`false`). The first call wakes the output thread at once, so its wake-up
    /// (a futex wake and a context switch, tens of µs on a busy machine) overlaps the parsing
    /// and mapping instead of following it; the thread then waits for the message in a short
    /// busy loop. At rest nothing arrives and nothing spins.
    public var arriving: @Sendable (Bool) -> Void {
        { [self] starting in
            if starting {
                // reads closer together than `denseNanos` (a flood of senders): the thread is
                // busy or soon woken by a push anyway, and an early wake per read would cost the
                // network thread a syscall each time
                let now = monotonicNanos()
                let previous = lastArrival.exchange(now, ordering: .relaxed)
                if anticipate {
                    forecast.note(at: now)
                    let w = forecast.window
                    watchUntil.store(w?.until ?? 0, ordering: .relaxed)
                    watchFrom.store(w?.from ?? 0, ordering: .relaxed)
                }
                guard now &- previous >= denseNanos else { return }
                // the output thread runs one real-time priority below the network thread, so the
                // scheduler wakes it on another CPU rather than behind this thread (and a thread
                // that does land here waits for the read instead of spinning on its CPU)
                producerCPU.store(Int(sensorwah_current_cpu()), ordering: .relaxed)
                expecting.store(true, ordering: .sequentiallyConsistent)
                ring()
            } else {
                expecting.store(false, ordering: .releasing)
            }
        }
    }

    @inline(__always)
    private func ring() {
        // a read-modify-write (a full fence), so the push before it cannot be seen after it
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) { signal.signal() }
    }

    public func start() {
        if latencyBySender { senderLatency.reserveCapacity(256) }
        forecast.shortest = max(forecast.shortest, denseNanos)
        let t = Thread { [self] in
            Self.tryRealtimePriority()
            var nextPublish: UInt64 = 0
            var publishedTotal = 0
            while true {
                sleeping.store(true, ordering: .sequentiallyConsistent)
                if queue.isEmpty && !expecting.load(ordering: .sequentiallyConsistent)
                    && running.load(ordering: .acquiring)
                {
                    let from = watchFrom.load(ordering: .relaxed), now = monotonicNanos()
                    let watching = from > now && from - now < 100_000_000
                    if let due = held.earliest, !watching || due < from {
                        // the next held event: sleep until it is due (or something arrives)
                        if due > now {
                            _ = signal.wait(timeout: .now() + .nanoseconds(Int(min(due - now, 100_000_000))))
                        }
                    } else if watching {
                        if signal.wait(timeout: .now() + .nanoseconds(Int(from - now))) == .timedOut {
                            sleeping.store(false, ordering: .sequentiallyConsistent)
                            watchForRead()
                        }
                    } else {
                        _ = signal.wait(timeout: .now() + .milliseconds(100))
                    }
                }
                sleeping.store(false, ordering: .sequentiallyConsistent)
                spinForExpected()
                let drained = drain()
                for o in outputs { o.flush() }
                noteFailures(drained)
                if publishLatency, latency.total != publishedTotal, monotonicNanos() >= nextPublish {
                    latencyP50.store(latency.percentile(0.5), ordering: .relaxed)
                    latencyP99.store(latency.percentile(0.99), ordering: .relaxed)
                    publishedTotal = latency.total
                    nextPublish = monotonicNanos() &+ 200_000_000
                }
                if !running.load(ordering: .acquiring) && queue.isEmpty && held.isEmpty { break }
            }
            done.signal()
        }
        t.name = "sensorwah-output"
        t.start()
        thread = t
    }

    /// A read from a steady sender is due: stay awake, spinning, until a read begins (even one
    /// that gives no message), a message is queued, the window closes or the pump stops.
    /// Waking a sleeping CPU (a halted virtual CPU or a deep idle state) is the largest part of
    /// a line's way through on an idle machine (`tools/bench-listen wake` measures it against a
    /// CPU kept running); with this thread running, the network thread is woken on a busy CPU
    /// and the line's message is taken at once. The window is `ArrivalForecast`'s (at most 1 ms
    /// either side of the due time, none while the reads are irregular). What the windows cost
    /// at 100 Hz: `tools/bench-listen 100hz` (figures in docs/performance.md).
    private func watchForRead() {
        let until = watchUntil.load(ordering: .relaxed)
        let lastRead = lastArrival.load(ordering: .relaxed)
        let start = monotonicNanos()
        guard start < until else { return }
        watches &+= 1
        watchNanos &+= spin(from: start) { now in
            queue.isEmpty && !expecting.load(ordering: .acquiring) && now < until
                && lastArrival.load(ordering: .relaxed) == lastRead && running.load(ordering: .relaxed)
        }
    }

    /// Spins with the CPU's PAUSE hint while `going(now)` holds; returns the time spent (ns).
    @inline(__always)
    private func spin(from start: UInt64, while going: (UInt64) -> Bool) -> UInt64 {
        var now = start
        while going(now) {
            for _ in 0..<16 { sensorwah_spin_pause() }
            now = monotonicNanos()
        }
        return now &- start
    }

    /// Bytes are being parsed on the network thread: wait for their message here rather than
    /// go back to sleep, up to `spinLimitNanos`. Not when this thread shares the network
    /// thread's CPU (a real-time spinner would only keep the producer off it).
    @inline(__always)
    private func spinForExpected() {
        guard queue.isEmpty, expecting.load(ordering: .acquiring),
            Int(sensorwah_current_cpu()) != producerCPU.load(ordering: .relaxed)
        else { return }
        let start = monotonicNanos()
        spins &+= 1
        spinNanos &+= spin(from: start) { now in
            queue.isEmpty && expecting.load(ordering: .acquiring) && now &- start < spinLimitNanos
        }
    }

    /// The output thread wakes for each message; SCHED_FIFO (when allowed) keeps that wake-up
    /// short under load. Without the privilege it stays a normal thread. Its priority is one
    /// below the network thread's (`networkPriority`): a woken real-time thread that cannot
    /// preempt the running one is placed on another CPU at once. At a priority above it, the
    /// early wake-up would land on the network thread's CPU (the one it last slept on) and
    /// preempt the parsing, and those lines would pay the whole wake-up after their push.
    public static func tryRealtimePriority() {
        var param = sched_param()
        param.sched_priority = networkPriority - 1
        _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
    }

    /// Takes every queued message to the outputs, or holds it until it is due; then hands on
    /// every held message that is due (all of them once the pump stops); returns how many went.
    ///
    /// A message due at once from a sender goes straight through. One that no sender's line
    /// caused (rest values, glides, a scene's hand-over) waits behind every message held before
    /// it, so it is never overtaken by what came earlier. An output that `takesAhead` gets each
    /// held MIDI message as it is taken off the queue, with its moment.
    private func drain() -> Int {
        let before = delivered
        while let q = queue.pop() {
            let taken = monotonicNanos()
            wakeLatency.record(nanos: taken > q.queuedNanos ? taken &- q.queuedNanos : 0)
            if q.dueNanos == 0 && (held.isEmpty || q.sender != QueuedEvent.noSender) {
                hand(q)
                continue
            }
            var e = q
            if e.dueNanos == 0 { e.dueNanos = heldLatest }
            if !ahead.isEmpty, case .midi(let m) = e.event {
                for o in ahead { o.send(m, due: e.dueNanos) }
            }
            if held.isFull, let early = held.pop(dueBy: 0, force: true) {
                releasedEarly &+= 1
                hand(early)
            }
            heldLatest = max(heldLatest, e.dueNanos)
            held.insert(e)
        }
        let now = running.load(ordering: .relaxed) ? monotonicNanos() : UInt64.max
        while let e = held.pop(dueBy: now) { hand(e) }
        deliveredSoFar.store(delivered, ordering: .relaxed)
        return delivered - before
    }

    /// One message to every output, with its latency from its line's arrival. A scheduled MIDI
    /// message goes with its moment, except to the outputs that took it ahead.
    @inline(__always)
    private func hand(_ q: QueuedEvent) {
        if q.dueNanos != 0, case .midi(let m) = q.event {
            for (o, early) in zip(outputs, takesAhead) where !early { o.send(m, due: q.dueNanos) }
        } else {
            for o in outputs { o.send(q.event) }
        }
        let nanos = monotonicNanos() &- q.receivedNanos
        latency.record(nanos: nanos)
        if latencyBySender && q.sender != QueuedEvent.noSender {
            let i = Int(q.sender)
            if senderLatency.count <= i {
                senderLatency.append(contentsOf: repeatElement(nil, count: i + 1 - senderLatency.count))
            }
            if senderLatency[i] == nil { senderLatency[i] = LatencyHistogram() }
            senderLatency[i]!.record(nanos: nanos)
        }
        delivered += 1
    }

    /// Messages handed to the outputs while every one of them had failed (see
    /// `EventOutput.failure`): delivered nowhere. Read after `stop`.
    public private(set) var undelivered = 0
    private let failedNow = ManagedAtomic<Bool>(false)
    private let failureCount = ManagedAtomic<Int>(0)
    private let failureText = Mutex("")

    /// How many times every output has failed at once (a reader gone, a server gone), whether
    /// they all have now, and what they said the last time. Any thread.
    public var failures: (count: Int, now: Bool, text: String) {
        let count = failureCount.load(ordering: .acquiring)
        return (count, failedNow.load(ordering: .acquiring), failureText.withLock { $0 })
    }

    /// After each round: whether every output has failed, counting the round's messages as
    /// delivered nowhere if so (a write that failed in this round's flush lost them too).
    private func noteFailures(_ drained: Int) {
        guard !outputs.isEmpty else { return }
        let dead = outputs.allSatisfy { $0.failure != nil }
        if dead {
            undelivered += drained
            guard !failedNow.load(ordering: .relaxed) else { return }
            let text = outputs.compactMap(\.failure).joined(separator: "; ")
            failureText.withLock { $0 = text }
            failedNow.store(true, ordering: .releasing)
            failureCount.wrappingIncrement(ordering: .releasing)
        } else if failedNow.load(ordering: .relaxed) {
            failedNow.store(false, ordering: .releasing)
        }
    }

    /// Sends what is queued, then stops the thread and closes the outputs.
    public func stop() {
        running.store(false, ordering: .releasing)
        sleeping.store(false, ordering: .sequentiallyConsistent)
        signal.signal()
        done.wait()
        for o in outputs { o.close() }
    }
}
