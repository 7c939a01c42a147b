import Atomics
import Foundation
import SensorWahCore
import SensorWahRuntime

/// The fixed layout of one published picture of the data path, in 8-byte words.
public enum MonitorLayout {
    public static let maxMappings = 12
    public static let maxSenders = 4
    /// Bytes of a sender's name kept (the rest is cut).
    public static let nameBytes = 32
    static let clock = 0, mappingCount = 1, solo = 2, scene = 3, senderCount = 4
    static let tiltPitch = 5, tiltRoll = 6, flick = 7, shake = 8, tap = 9, queueDrops = 10, serial = 11
    static let mappings = 12  // raw, smoothed, output, fires
    static let mappingWords = 4
    static let senders = mappings + maxMappings * mappingWords  // frames, skipped, name
    static let senderWords = 2 + nameBytes / 8
    public static let words = senders + maxSenders * senderWords
}

/// One picture: a view over `MonitorLayout.words` words of memory (a board's slot while it is
/// written, the reader's own copy while it is read).
public struct MonitorRecord {
    public let p: UnsafeMutablePointer<UInt64>
    public init(p: UnsafeMutablePointer<UInt64>) { self.p = p }

    @inline(__always) func d(_ i: Int) -> Double { Double(bitPattern: p[i]) }
    @inline(__always) func set(_ i: Int, _ v: Double) { p[i] = v.bitPattern }
    @inline(__always) func n(_ i: Int) -> Int { Int(truncatingIfNeeded: p[i]) }
    @inline(__always) func set(_ i: Int, _ v: Int) { p[i] = UInt64(truncatingIfNeeded: v) }

    /// Monotonic seconds when it was published.
    public var clock: Double { d(MonitorLayout.clock) }
    public var serial: Int { n(MonitorLayout.serial) }
    public var mappingCount: Int { n(MonitorLayout.mappingCount) }
    public var solo: Int { n(MonitorLayout.solo) }
    public var scene: Int { n(MonitorLayout.scene) }
    public var senderCount: Int { n(MonitorLayout.senderCount) }
    /// The last frame's tilt (degrees; NaN: the frame had none).
    public var tiltPitch: Double { d(MonitorLayout.tiltPitch) }
    public var tiltRoll: Double { d(MonitorLayout.tiltRoll) }
    /// Gestures fired so far (flick, shake, tap).
    public var gestures: (flick: Int, shake: Int, tap: Int) {
        (n(MonitorLayout.flick), n(MonitorLayout.shake), n(MonitorLayout.tap))
    }
    public var queueDrops: Int { n(MonitorLayout.queueDrops) }

    public func mapping(_ i: Int) -> (raw: Double, smoothed: Double, output: Int, fires: Int) {
        let b = MonitorLayout.mappings + i * MonitorLayout.mappingWords
        return (d(b), d(b + 1), n(b + 2), n(b + 3))
    }

    public func sender(_ i: Int) -> (name: String, frames: Int, skipped: Int) {
        let b = MonitorLayout.senders + i * MonitorLayout.senderWords
        let raw = UnsafeRawPointer(p + b + 2).assumingMemoryBound(to: UInt8.self)
        var len = 0
        while len < MonitorLayout.nameBytes && raw[len] != 0 { len += 1 }
        let name = String(decoding: UnsafeBufferPointer(start: raw, count: len), as: UTF8.self)
        return (name, n(b), n(b + 1))
    }

    /// Writes sender `i` (no allocation: the name's bytes are copied, cut at `nameBytes - 1`).
    public func setSender(_ i: Int, name: String, frames: Int, skipped: Int) {
        let b = MonitorLayout.senders + i * MonitorLayout.senderWords
        set(b, frames)
        set(b + 1, skipped)
        let raw = UnsafeMutableRawPointer(p + b + 2).assumingMemoryBound(to: UInt8.self)
        var k = 0
        for byte in name.utf8 {
            if k == MonitorLayout.nameBytes - 1 { break }
            raw[k] = byte
            k += 1
        }
        while k < MonitorLayout.nameBytes { raw[k] = 0; k += 1 }
    }
}

/// Hands pictures from the thread that owns the pipeline to the view thread without a lock:
/// two preallocated slots, each guarded by a sequence number (odd while being written). The
/// writer never waits; the reader copies the latest slot and retries if it was overwritten.
public final class MonitorBoard: @unchecked Sendable {
    let slots: UnsafeMutablePointer<UInt64>
    let seqs = [ManagedAtomic<Int>(0), ManagedAtomic<Int>(0)]
    /// Index of the slot last completed (-1: none yet).
    let latest = ManagedAtomic<Int>(-1)
    var next = 0
    var serial = 0

    public init() {
        slots = .allocate(capacity: 2 * MonitorLayout.words)
        slots.initialize(repeating: 0, count: 2 * MonitorLayout.words)
    }
    deinit { slots.deallocate() }

    /// Writer side (one thread): fills the next slot through `body`, then publishes it.
    @inline(__always)
    public func write(_ body: (MonitorRecord) -> Void) {
        let i = next
        next = 1 - next
        let seq = seqs[i]
        let s = seq.load(ordering: .relaxed) &+ 1
        seq.store(s, ordering: .relaxed)  // odd: being written
        atomicMemoryFence(ordering: .releasing)
        serial &+= 1
        let r = MonitorRecord(p: slots + i * MonitorLayout.words)
        body(r)
        r.set(MonitorLayout.serial, serial)
        seq.store(s &+ 1, ordering: .releasing)  // even: complete
        latest.store(i, ordering: .releasing)
    }

    /// Reader side (the view thread): copies the latest complete picture into `into`
    /// (`MonitorLayout.words` words). False if nothing was published yet or the writer kept
    /// overwriting it.
    public func read(into: UnsafeMutablePointer<UInt64>) -> Bool {
        for _ in 0..<8 {
            let i = latest.load(ordering: .acquiring)
            guard i >= 0 else { return false }
            let seq = seqs[i]
            let s1 = seq.load(ordering: .acquiring)
            if s1 & 1 != 0 { continue }
            into.update(from: slots + i * MonitorLayout.words, count: MonitorLayout.words)
            atomicMemoryFence(ordering: .acquiring)
            if seq.load(ordering: .relaxed) == s1 { return true }
        }
        return false
    }
}

/// The producer's side of the live view, owned by the thread that runs the pipeline (the
/// network thread, or replay's main thread): notes what frames carry (tilt, gestures fired;
/// a few stores, no allocation) and publishes a picture to the board at most every 50 ms.
public final class MonitorFeed: @unchecked Sendable {
    public let board: MonitorBoard
    var pitch = Double.nan, roll = Double.nan
    var flick = 0, shake = 0, tap = 0
    var nextNanos: UInt64 = 0
    public static let intervalNanos: UInt64 = 50_000_000

    public init(board: MonitorBoard = MonitorBoard()) { self.board = board }

    /// After the motion stage, for every frame.
    @inline(__always)
    public func note(_ frame: borrowing SensorFrame) {
        if frame.newGroups & SensorGroup.derived.bit == 0 { return }
        pitch = frame[.tiltPitch]
        roll = frame[.tiltRoll]
        if frame[.flick] > 0 { flick &+= 1 }
        if frame[.shake] > 0 { shake &+= 1 }
        if frame[.tap] > 0 { tap &+= 1 }
    }

    /// True when a picture is due (then call `publish`).
    @inline(__always)
    public func due(now: UInt64) -> Bool { now >= nextNanos }

    /// Publishes the mapper's probes, the frame notes and the senders (`senders` writes each
    /// with `MonitorRecord.setSender` and returns how many it wrote).
    public func publish(
        now: UInt64, mapper: borrowing Mapper, scene: Int = 0, queueDrops: Int = 0,
        senders: (MonitorRecord) -> Int
    ) {
        nextNanos = now &+ Self.intervalNanos
        board.write { r in
            r.set(MonitorLayout.clock, Double(now) * 1e-9)
            let count = min(mapper.mappings.count, MonitorLayout.maxMappings)
            r.set(MonitorLayout.mappingCount, count)
            r.set(MonitorLayout.solo, mapper.solo)
            r.set(MonitorLayout.scene, scene)
            r.set(MonitorLayout.tiltPitch, pitch)
            r.set(MonitorLayout.tiltRoll, roll)
            r.set(MonitorLayout.flick, flick)
            r.set(MonitorLayout.shake, shake)
            r.set(MonitorLayout.tap, tap)
            r.set(MonitorLayout.queueDrops, queueDrops)
            for i in 0..<count {
                let pr = mapper.probe(i)
                let b = MonitorLayout.mappings + i * MonitorLayout.mappingWords
                r.set(b, pr.raw)
                r.set(b + 1, pr.smoothed)
                r.set(b + 2, pr.output)
                r.set(b + 3, pr.fires)
            }
            r.set(MonitorLayout.senderCount, min(senders(r), MonitorLayout.maxSenders))
        }
    }
}
