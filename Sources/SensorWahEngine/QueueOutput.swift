import SensorWahCore
import SensorWahRuntime

/// The hand-off from the network thread to the output thread: events go into a lock-free
/// queue, stamped with the moment their line was read off the socket and its sender (`stamp`
/// before processing a frame). Never blocks and never allocates; a full queue drops and counts.
public final class QueueOutput: EventOutput {
    public let queue: SPSCQueue<QueuedEvent>
    /// Arrival time of the line being processed (monotonic ns).
    public private(set) var receivedNanos: UInt64 = 0
    /// The sender slot of the line being processed (`QueuedEvent.noSender`: none).
    public private(set) var sender = QueuedEvent.noSender
    /// When the output thread hands the line's events on (its sender's playout; 0: at once).
    public private(set) var dueNanos: UInt64 = 0
    /// Events pushed so far (compare before and after a frame to know whether it sent any).
    public private(set) var pushed = 0

    public init(queue: SPSCQueue<QueuedEvent>) { self.queue = queue }

    /// What the next events are stamped with: when their line was read off the socket, and its
    /// sender's slot (none for what no line caused: rest values, glides, hand-overs), and when
    /// they are due (0: at once).
    @inline(__always)
    public func stamp(received: UInt64, sender: UInt16 = QueuedEvent.noSender, due: UInt64 = 0) {
        receivedNanos = received
        self.sender = sender
        dueNanos = due
    }

    public var name: String { "queue" }

    @inline(__always)
    public func send(_ e: MIDIEvent) { push(.midi(e)) }
    @inline(__always)
    public func send(_ c: EffectControl) { push(.effect(c)) }

    @inline(__always)
    func push(_ e: MappedEvent) {
        queue.push(
            QueuedEvent(
                event: e, receivedNanos: receivedNanos, queuedNanos: monotonicNanos(), dueNanos: dueNanos,
                sender: sender))
        pushed &+= 1
    }
    public func flush() {}
    public func close() {}
}
