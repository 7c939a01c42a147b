import Foundation
import SensorWahCore
@testable import SensorWahJack
import XCTest

final class MIDIRingTests: XCTestCase {
    /// The packed bytes are exactly what `MIDIEvent.encode` writes, for every kind and range.
    func testEntryMatchesEncode() {
        var buf = [UInt8](repeating: 0, count: 8)
        for kind in [MIDIEvent.Kind.controlChange, .controlChange14, .pitchBend, .noteOn, .noteOff, .wahSwitch] {
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
        let cc14 = MIDIRingEntry(MIDIEvent(time: 0, kind: .controlChange14, channel: 0, controller: 1, value: 0x2ABC), arrival: 0)
        XCTAssertEqual(cc14.count, 6)
        XCTAssertEqual((0..<6).map(cc14.byte), [0xB0, 1, 0x55, 0xB0, 33, 0x3C])
        let bend = MIDIRingEntry(MIDIEvent(time: 0, kind: .pitchBend, channel: 15, value: 8192), arrival: 0)
        XCTAssertEqual((0..<3).map(bend.byte), [0xEF, 0x00, 0x40])
    }

    func testFIFOWrapAroundAndDropWhenFull() {
        let ring = MIDIRing(capacity: 5)        // rounded up to 8
        defer { ring.destroy() }
        XCTAssertEqual(ring.capacity, 8)
        var next: UInt64 = 0, expect: UInt64 = 0
        for round in 0..<50 {
            for _ in 0..<(round % 8 + 1) { XCTAssertTrue(ring.push(MIDIRingEntry(arrival: next, packed: next))); next += 1 }
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
        func off(_ a: UInt64) -> Int? { midiFrameOffset(arrival: a, cycleStart: 10_000, periodMicros: 1000, frames: 48) }
        XCTAssertEqual(off(9_000), 0)
        XCTAssertEqual(off(9_500), 24)
        XCTAssertEqual(off(9_999), 47)
        XCTAssertEqual(off(8_000), 0)          // older than the previous period: frame 0
        XCTAssertNil(off(10_000))              // arrived during this period: next one
        XCTAssertEqual(midiFrameOffset(arrival: 5, cycleStart: 10, periodMicros: 0, frames: 64), 0)
    }

    func testConnectionSyntax() throws {
        XCTAssertEqual(try JackConnection.parse("system"), [.system])
        XCTAssertEqual(try JackConnection.parse("out_1=system:playback_1, in_1 = a:b ,midi_out=x:y"),
                       [.port(local: "out_1", peer: "system:playback_1"), .port(local: "in_1", peer: "a:b"), .port(local: "midi_out", peer: "x:y")])
        XCTAssertThrowsError(try JackConnection.parse("out_3=a:b"))
        XCTAssertThrowsError(try JackConnection.parse("out_1=nocolon"))
        XCTAssertThrowsError(try JackConnection.parse("playback"))
    }
}

/// The process cycle's own logic without a server: after a sample-rate change the callback
/// leaves the chains alone until new ones are prepared (allocation is not for the audio
/// thread), then the pedal atomic reaches them.
final class RealtimeCycleTests: XCTestCase {
    func testSampleRateChangeWaitsForNewChains() {
        let s = UnsafeMutablePointer<RTState>.allocate(capacity: 1)
        s.initialize(to: RTState(midiCapacity: 8))
        defer { s.pointee.destroy(); s.deinitialize(count: 1); s.deallocate() }
        s.pointee.channels = 2
        func prepare(_ rate: UInt32) {
            s.pointee.fx.build(specs: [.wahOnly], channels: 2, sampleRate: Double(rate), wah: WahSettings(), controllers: [],
                               pedal: 0, bypassed: false, followsSwitch: false, crossfadeSeconds: 0.02)
            s.pointee.preparedRate.store(rate, ordering: .releasing)
        }
        prepare(48_000)
        _ = rtSampleRate(44_100, UnsafeMutableRawPointer(s))
        s.pointee.pedalBits.store(Float(0.75).bitPattern, ordering: .relaxed)
        rtCycle(s, 128)        // no ports: the audio part finds no buffers and skips
        XCTAssertEqual(s.pointee.rateSeen.load(ordering: .relaxed), 44_100, "the callback did not let go of the chains")
        XCTAssertEqual(s.pointee.fx.appliedPedal, Float(0).bitPattern, "a chain of the old rate was touched")
        XCTAssertEqual(s.pointee.cycles.load(ordering: .relaxed), 1)
        XCTAssertEqual(s.pointee.periodFrames.load(ordering: .relaxed), 128)
        prepare(44_100)        // what JackEngine.supervise does then
        rtCycle(s, 128)
        XCTAssertEqual(s.pointee.fx.appliedPedal, Float(0.75).bitPattern)
        // both channels now behave exactly as the wah alone prepared at 44.1 kHz, moved to 0.75
        let fresh = EffectChain(spec: .wahOnly, sampleRate: 44_100)
        defer { fresh.destroy() }
        fresh.setParameter(slot: 1, value: 0.75)
        var a = [Float](repeating: 0, count: 512)
        a[0] = 1
        var b = a, c = a
        a.withUnsafeMutableBufferPointer { fresh.process($0.baseAddress!, count: 512) }
        b.withUnsafeMutableBufferPointer { s.pointee.fx.chains![0].process($0.baseAddress!, count: 512) }
        c.withUnsafeMutableBufferPointer { s.pointee.fx.chains![1].process($0.baseAddress!, count: 512) }
        XCTAssertEqual(a, b)
        XCTAssertEqual(a, c)
        _ = rtXRun(UnsafeMutableRawPointer(s))
        _ = rtBufferSize(512, UnsafeMutableRawPointer(s))
        XCTAssertEqual(s.pointee.xruns.load(ordering: .relaxed), 1)
        XCTAssertEqual(s.pointee.periodFrames.load(ordering: .relaxed), 512)
    }

    /// A scene's change of chain inside the callback: the old set fades out and the new one in
    /// over the crossfade, linearly; the parameters a mapping sends reach the set they were
    /// sent for; a bound CC moves its parameter over the whole range.
    func testChainSwitchCrossfadesAndParametersReachTheirSet() {
        var fx = EffectChainSet()
        defer { fx.destroy() }
        let a = try! EffectChainSpec(parsing: "tremolo depth=0 > delay mix=0")   // passes the input
        let b = try! EffectChainSpec(parsing: "fuzz drive=0 level=0")              // silence
        fx.build(specs: [a, b], channels: 1, sampleRate: 48_000, wah: WahSettings(), controllers: [(20, "delay.mix")],
                 pedal: 0, bypassed: false, followsSwitch: false, crossfadeSeconds: 0.01)
        let n = 128
        let input = [Float](repeating: 0.5, count: n)
        var out = [Float](repeating: 0, count: n)
        func cycle() -> [Float] {
            input.withUnsafeBufferPointer { i in
                out.withUnsafeMutableBufferPointer { o in
                    fx.process(UnsafeMutablePointer(mutating: i.baseAddress!), o.baseAddress!, nil, nil, count: n)
                }
            }
            return out
        }
        for _ in 0..<20 { _ = cycle() }
        XCTAssertEqual(cycle().last!, 0.5, accuracy: 1e-4)
        fx.select(1)
        var faded: [Float] = []
        for _ in 0..<5 { faded += cycle() }   // 640 samples > 480 (10 ms)
        XCTAssertEqual(faded[0], 0.5, accuracy: 0.01)
        XCTAssertEqual(faded[240], 0.25, accuracy: 0.02, "half way through the fade")
        XCTAssertEqual(faded[600], 0, accuracy: 1e-4)
        for k in 1..<faded.count { XCTAssertLessThan(abs(faded[k] - faded[k - 1]), 0.01, "a step at \(k)") }
        // a CC bound to delay.mix moves set 0's parameter only while set 0 runs
        XCTAssertFalse(fx.controlChange(20, value: 127), "set 1 has no delay")
        fx.select(0)
        XCTAssertTrue(fx.controlChange(20, value: 127))
        XCTAssertFalse(fx.controlChange(21, value: 127))
        for _ in 0..<100 { _ = cycle() }
        fx.publish()
        let slot = try! a.slot(for: "delay.mix")
        XCTAssertEqual(fx.snapshot().values[slot], 1, accuracy: 1e-3)
        fx.setParameter(set: 0, slot: slot, value: 0.25)
        for _ in 0..<100 { _ = cycle() }
        fx.publish()
        XCTAssertEqual(fx.snapshot().set, 0)
        XCTAssertEqual(fx.snapshot().values[slot], 0.25, accuracy: 1e-3)
    }
}
