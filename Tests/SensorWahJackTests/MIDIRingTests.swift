import Foundation
import SensorWahCore
@testable import SensorWahJack
import XCTest

final class MIDIRingTests: XCTestCase {
    /// The packed bytes are exactly what `MIDIEvent.encode` writes, for every kind and range.
    func testEntryMatchesEncode() {
        var buf = [UInt8](repeating: 0, count: 8)
        for kind in [MIDIEvent.Kind.controlChange, .controlChange14, .pitchBend, .noteOn, .noteOff] {
            for ch in [UInt8(0), 9, 15] {
                for cc in [UInt8(0), 1, 31, 64, 127] {
                    for v in [UInt16(0), 1, 64, 127, 128, 8192, 16383] {
                        let e = MIDIEvent(time: 0, kind: kind, channel: ch, controller: cc, value: v)
                        let n = buf.withUnsafeMutableBufferPointer { e.encode(into: $0.baseAddress!) }
                        let r = MIDIRingEntry(e, arrival: 0)
                        XCTAssertEqual(r.count, n)
                        XCTAssertEqual((0..<n).map(r.byte), Array(buf[0..<n]), "\(e)")
                    }
                }
            }
        }
    }

    func testEntryPacksWireBytes() {
        let cc = MIDIRingEntry(.cc(11, 100, channel: 3), arrival: 42)
        XCTAssertEqual(cc.count, 3)
        XCTAssertEqual((0..<3).map(cc.byte), [0xB3, 11, 100])
        XCTAssertEqual(cc.arrival, 42)
        let cc14 = MIDIRingEntry(
            MIDIEvent(time: 0, kind: .controlChange14, channel: 0, controller: 1, value: 0x2ABC), arrival: 0)
        XCTAssertEqual(cc14.count, 6)
        XCTAssertEqual((0..<6).map(cc14.byte), [0xB0, 1, 0x55, 0xB0, 33, 0x3C])
        let bend = MIDIRingEntry(MIDIEvent(time: 0, kind: .pitchBend, channel: 15, value: 8192), arrival: 0)
        XCTAssertEqual((0..<3).map(bend.byte), [0xEF, 0x00, 0x40])
    }

    func testFIFOWrapAroundAndDropWhenFull() {
        let ring = MIDIRing(capacity: 5)  // rounded up to 8
        defer { ring.destroy() }
        XCTAssertEqual(ring.capacity, 8)
        var next: UInt64 = 0, expect: UInt64 = 0
        for round in 0..<50 {
            for _ in 0..<(round % 8 + 1) {
                XCTAssertTrue(ring.push(MIDIRingEntry(arrival: next, packed: next))); next += 1
            }
            while let e = ring.pop() { XCTAssertEqual(e.arrival, expect); expect += 1 }
        }
        for i in 0..<8 { XCTAssertTrue(ring.push(MIDIRingEntry(arrival: UInt64(i), packed: 0))) }
        XCTAssertFalse(ring.push(MIDIRingEntry(arrival: 99, packed: 0)))
        XCTAssertEqual(ring.dropped.load(ordering: .relaxed), 1)
        XCTAssertEqual(ring.peek()?.arrival, 0)
        ring.removeFirst()
        XCTAssertEqual(ring.count, 7)
    }

    /// One producer thread, one consumer thread: every entry arrives once, in order.
    func testConcurrentProducerConsumer() {
        let ring = MIDIRing(capacity: 64)
        defer { ring.destroy() }
        let total: UInt64 = 200_000
        let producer = Thread {
            var i: UInt64 = 0
            while i < total { if ring.push(MIDIRingEntry(arrival: i, packed: ~i)) { i += 1 } }
        }
        producer.start()
        var expect: UInt64 = 0
        while expect < total {
            if let e = ring.pop() {
                XCTAssertEqual(e.arrival, expect)
                XCTAssertEqual(e.packed, ~expect)
                expect += 1
            }
        }
    }

    func testFrameOffsetFollowsArrivalTime() {
        // period 1000 µs, 48 frames; this cycle started at 10_000 µs
        func off(_ a: UInt64) -> Int? {
            midiFrameOffset(arrival: a, cycleStart: 10_000, periodMicros: 1000, frames: 48)
        }
        XCTAssertEqual(off(9_000), 0)
        XCTAssertEqual(off(9_500), 24)
        XCTAssertEqual(off(9_999), 47)
        XCTAssertEqual(off(8_000), 0)  // older than the previous period: frame 0
        XCTAssertNil(off(10_000))  // arrived during this period: next one
        XCTAssertEqual(midiFrameOffset(arrival: 5, cycleStart: 10, periodMicros: 0, frames: 64), 0)
    }

    func testConnectionSyntax() throws {
        XCTAssertEqual(try JackConnection.parse("system"), [.system])
        XCTAssertEqual(
            try JackConnection.parse("out_1=system:playback_1, in_1 = a:b ,midi_out=x:y"),
            [
                .port(local: "out_1", peer: "system:playback_1"), .port(local: "in_1", peer: "a:b"),
                .port(local: "midi_out", peer: "x:y")
            ])
        XCTAssertThrowsError(try JackConnection.parse("out_3=a:b"))
        XCTAssertThrowsError(try JackConnection.parse("out_1=nocolon"))
        XCTAssertThrowsError(try JackConnection.parse("playback"))
    }
}
