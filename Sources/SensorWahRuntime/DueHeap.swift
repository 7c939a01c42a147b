/// The events the output thread holds until they are due: a binary min-heap on (due time, order
/// of arrival), allocated once. Events due at the same moment leave in the order they came, so
/// one sender's messages never overtake each other. `insert` never allocates; when the heap is
/// full the caller releases the earliest first.
public struct DueHeap: ~Copyable {
    private let storage: UnsafeMutablePointer<(key: UInt64, order: UInt64, event: QueuedEvent)>
    public let capacity: Int
    public private(set) var count = 0
    private var order: UInt64 = 0

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == capacity }
    /// When the earliest held event is due (nil: none held).
    public var earliest: UInt64? { count == 0 ? nil : storage[0].key }

    @inline(__always)
    private func less(_ a: Int, _ b: Int) -> Bool {
        storage[a].key < storage[b].key || (storage[a].key == storage[b].key && storage[a].order < storage[b].order)
    }

    @inline(__always)
    private func swapAt(_ a: Int, _ b: Int) {
        let t = (storage + a).move()
        (storage + a).moveInitialize(from: storage + b, count: 1)
        (storage + b).initialize(to: t)
    }

    /// Holds `e` until `e.dueNanos`. The heap must not be full.
    public mutating func insert(_ e: QueuedEvent) {
        precondition(count < capacity)
        (storage + count).initialize(to: (e.dueNanos, order, e))
        order &+= 1
        var i = count
        count += 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(i, parent) else { break }
            swapAt(i, parent)
            i = parent
        }
    }

    /// Takes the earliest event if it is due at `now` (or `force`), else nil.
    public mutating func pop(dueBy now: UInt64, force: Bool = false) -> QueuedEvent? {
        guard count > 0, force || storage[0].key <= now else { return nil }
        let top = (storage + 0).move().event
        count -= 1
        guard count > 0 else { return top }
        (storage + 0).moveInitialize(from: storage + count, count: 1)
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < count && less(l, m) { m = l }
            if r < count && less(r, m) { m = r }
            if m == i { break }
            swapAt(i, m)
            i = m
        }
        return top
    }
}
