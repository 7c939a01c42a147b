import Atomics
import SensorWahCore

/// One MIDI message on its way to the audio thread: up to 6 bytes packed into one word (a 14-bit
/// CC is two 3-byte messages), and the JACK time (µs) it was handed over.
public struct MIDIRingEntry: Sendable, Equatable {
    /// JACK time (`jack_get_time()`, µs) at which the producer pushed the message.
    public var arrival: UInt64
    /// Byte `i` in bits `8i ..< 8i+8`; the byte count in bits 56...63.
    public var packed: UInt64

    @inlinable public init(arrival: UInt64, packed: UInt64) {
        self.arrival = arrival
        self.packed = packed
    }

    /// Packs an event's wire bytes (3, or 6 for a 14-bit CC), as `MIDIEvent.encode` orders them.
    @inlinable public init(_ e: MIDIEvent, arrival: UInt64) {
        let status = UInt64(e.channel & 0x0F)
        let v = UInt64(e.value)
        var word: UInt64
        switch e.kind {
        case .controlChange:
            word = (0xB0 | status) | UInt64(e.controller & 0x7F) << 8 | (v & 0x7F) << 16 | 3 << 56
        case .controlChange14:
            let cc = UInt64(e.controller & 0x1F)
            word = (0xB0 | status) | cc << 8 | ((v >> 7) & 0x7F) << 16
            word |= (0xB0 | status) << 24 | (cc + 32) << 32 | (v & 0x7F) << 40 | 6 << 56
        case .pitchBend:
            word = (0xE0 | status) | (v & 0x7F) << 8 | ((v >> 7) & 0x7F) << 16 | 3 << 56
        case .noteOn:
            word = (0x90 | status) | UInt64(e.controller & 0x7F) << 8 | (v & 0x7F) << 16 | 3 << 56
        case .noteOff:
            word = (0x80 | status) | UInt64(e.controller & 0x7F) << 8 | 3 << 56
        }
        self.arrival = arrival
        self.packed = word
    }

    @inlinable public var count: Int { Int(truncatingIfNeeded: packed >> 56) }
    @inlinable public func byte(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: packed >> UInt64(8 * i)) }
}

/// A single-producer single-consumer ring of `MIDIRingEntry`, made for a real-time consumer:
/// a plain struct of raw pointers and `UnsafeAtomic`s (no class, so no retain/release and no
/// exclusivity checks on either side), allocated once, never resized. Copies share the same
/// storage; `destroy()` once, when neither side uses it any more.
///
/// (SensorWahRuntime's `SPSCQueue` is a generic class: reaching it from the audio thread costs
/// retain/release pairs and, across modules, unspecialised generic calls.)
public struct MIDIRing: @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<MIDIRingEntry>
    @usableFromInline let mask: Int
    @usableFromInline let head: UnsafeAtomic<Int>  // next slot to read (consumer)
    @usableFromInline let tail: UnsafeAtomic<Int>  // next slot to write (producer)
    public let dropped: UnsafeAtomic<Int>

    /// `capacity` is rounded up to a power of two (at least 2).
    public init(capacity: Int) {
        var c = 2
        while c < capacity { c <<= 1 }
        storage = .allocate(capacity: c)
        storage.initialize(repeating: MIDIRingEntry(arrival: 0, packed: 0), count: c)
        mask = c - 1
        head = .create(0)
        tail = .create(0)
        dropped = .create(0)
    }

    public func destroy() {
        storage.deallocate()
        head.destroy()
        tail.destroy()
        dropped.destroy()
    }

    public var capacity: Int { mask + 1 }

    /// Producer. Returns false (and counts a drop) when the ring is full.
    @inlinable @discardableResult
    public func push(_ e: MIDIRingEntry) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        if t &- h > mask {
            dropped.wrappingIncrement(ordering: .relaxed)
            return false
        }
        storage[t & mask] = e
        tail.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// Consumer: the oldest entry without removing it, or nil when empty.
    @inlinable
    public func peek() -> MIDIRingEntry? {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        if h == t { return nil }
        return storage[h & mask]
    }

    /// Consumer: removes the oldest entry (after `peek` returned it).
    @inlinable
    public func removeFirst() {
        let h = head.load(ordering: .relaxed)
        head.store(h &+ 1, ordering: .releasing)
    }

    /// Consumer: removes and returns the oldest entry.
    @inlinable
    public func pop() -> MIDIRingEntry? {
        guard let e = peek() else { return nil }
        removeFirst()
        return e
    }

    /// Entries waiting (either side; approximate while the other side runs).
    public var count: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }
}
