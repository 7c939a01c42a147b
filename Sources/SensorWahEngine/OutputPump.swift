import Atomics
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SensorWahCore
import SensorWahRuntime

/// The output thread: takes mapped events off the lock-free queue and hands them to every
/// output, so a slow output never stalls the network thread. Records the latency from the
/// moment a line was read off the socket to the moment its message is handed to the outputs.
public final class OutputPump: @unchecked Sendable {
    public let queue: SPSCQueue<QueuedEvent>
    public let outputs: [any EventOutput]
    private let signal = DispatchSemaphore(value: 0)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    private var running = true
    public private(set) var latency = LatencyHistogram()
    public private(set) var delivered = 0
    /// For the live view (set before `start`): the output thread publishes the latency's p50
    /// and p99 (µs, -1: no message yet) into these atomics at most five times a second.
    public var publishLatency = false
    public let latencyP50 = ManagedAtomic<Int>(-1)
    public let latencyP99 = ManagedAtomic<Int>(-1)

    public init(queue: SPSCQueue<QueuedEvent>, outputs: [any EventOutput]) {
        self.queue = queue
        self.outputs = outputs
    }

    /// Called by the producer after pushing; cheap when the pump is already awake.
    public var wake: @Sendable () -> Void { { [signal] in signal.signal() } }

    public func start() {
        let t = Thread { [self] in
            Self.tryRealtimePriority()
            var nextPublish: UInt64 = 0
            var publishedTotal = 0
            while true {
                _ = signal.wait(timeout: .now() + .milliseconds(100))
                drain()
                for o in outputs { o.flush() }
                if publishLatency, latency.total != publishedTotal, monotonicNanos() >= nextPublish {
                    latencyP50.store(latency.percentile(0.5), ordering: .relaxed)
                    latencyP99.store(latency.percentile(0.99), ordering: .relaxed)
                    publishedTotal = latency.total
                    nextPublish = monotonicNanos() &+ 200_000_000
                }
                if !running && queue.isEmpty { break }
            }
            done.signal()
        }
        t.name = "sensorwah-output"
        t.start()
        thread = t
    }

    /// The output thread wakes for each message; SCHED_FIFO (when allowed) keeps that wake-up
    /// short under load. Without the privilege it stays a normal thread.
    public static func tryRealtimePriority() {
        var param = sched_param()
        param.sched_priority = 10
        _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
    }

    private func drain() {
        while let q = queue.pop() {
            for o in outputs { o.send(q.event) }
            latency.record(nanos: monotonicNanos() &- q.receivedNanos)
            delivered += 1
        }
    }

    /// Sends what is queued, then stops the thread and closes the outputs.
    public func stop() {
        running = false
        signal.signal()
        done.wait()
        for o in outputs { o.close() }
    }
}
