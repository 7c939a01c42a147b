import Atomics
import SensorWahCore

/// A mapped event (MIDI or effect control) with the monotonic times (ns) its line was read off
/// the socket and it was queued for the output thread, and the sender whose line it came from
/// (a slot the listener numbers by sender name; `QueuedEvent.noSender` for rest values, glides
/// and hand-overs). `dueNanos` is when the output thread hands it on (a sender's playout; 0:
/// at once).
public struct QueuedEvent: Sendable {
    public var event: MappedEvent
    public var receivedNanos: UInt64
    public var queuedNanos: UInt64
    public var dueNanos: UInt64
    public var sender: UInt16
    public static let noSender = UInt16.max
    public init(
        event: MappedEvent, receivedNanos: UInt64, queuedNanos: UInt64 = 0, dueNanos: UInt64 = 0,
        sender: UInt16 = QueuedEvent.noSender
    ) {
        self.event = event
        self.receivedNanos = receivedNanos
        self.queuedNanos = queuedNanos
        self.dueNanos = dueNanos
        self.sender = sender
    }
}

/// Single-producer single-consumer ring buffer, allocated once. `push` never blocks and never
/// allocates: when the consumer falls behind and the ring is full, the event is dropped and
/// counted. Used to hand mapped events from the network thread to the output thread, and
/// from any thread to a real-time callback.
public final class SPSCQueue<Element>: @unchecked Sendable {
    public let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Element>
    private let head = ManagedAtomic<Int>(0)  // next slot to read (consumer)
    private let tail = ManagedAtomic<Int>(0)  // next slot to write (producer)
    public let dropped = ManagedAtomic<Int>(0)

    /// `capacity` is rounded up to a power of two.
    public init(capacity: Int) {
        var c = 2
        while c < capacity { c <<= 1 }
        self.capacity = c
        self.mask = c - 1
        storage = .allocate(capacity: c)
    }

    deinit {
        var h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .relaxed)
        while h != t { (storage + (h & mask)).deinitialize(count: 1); h &+= 1 }
        storage.deallocate()
    }

    /// Producer side. Returns false (and counts a drop) when full.
    @discardableResult
    @inline(__always)
    public func push(_ e: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        if t &- h >= capacity {
            dropped.wrappingIncrement(ordering: .relaxed)
            return false
        }
        (storage + (t & mask)).initialize(to: e)
        tail.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// Consumer side.
    @inline(__always)
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        if h == t { return nil }
        let e = (storage + (h & mask)).move()
        head.store(h &+ 1, ordering: .releasing)
        return e
    }

    public var isEmpty: Bool { head.load(ordering: .acquiring) == tail.load(ordering: .acquiring) }
    public var count: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }
}
