import SensorWahCore
import SensorWahRuntime

/// The hand-off from the network thread to the output thread: events go into a lock-free
/// queue, stamped with the moment their line was read off the socket (set `receivedNanos`
/// before processing a frame). Never blocks and never allocates; a full queue drops and counts.
public final class QueueOutput: EventOutput {
    public let queue: SPSCQueue<QueuedEvent>
    /// Arrival time of the line being processed (monotonic ns).
    public var receivedNanos: UInt64 = 0
    /// Events pushed so far (compare before and after a frame to know whether it sent any).
    public private(set) var pushed = 0

    public init(queue: SPSCQueue<QueuedEvent>) { self.queue = queue }

    public var name: String { "queue" }

    @inline(__always)
    public func send(_ e: MIDIEvent) {
        queue.push(QueuedEvent(event: e, receivedNanos: receivedNanos, queuedNanos: monotonicNanos()))
        pushed &+= 1
    }
    public func flush() {}
    public func close() {}
}
