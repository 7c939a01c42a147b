import XCTest
@testable import SensorWahCore

/// Stage safety: with `glide=`, a silent sender's controller glides to rest instead of jumping,
/// and moves back to the sensor smoothly when the sender returns.
final class GlideTests: XCTestCase {
    func frame(_ t: Double, _ x: Double) -> SensorFrame {
        var f = SensorFrame()
        f.newGroups = SensorGroup.accelerometer.bit
        f.times[SensorGroup.accelerometer.rawValue] = t
        f[.accelX] = x
        return f
    }

    func testGlideToRestAndResumeWithoutAJump() throws {
        var m = Mapper(mappings: [try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none glide=400")])
        var out: [MIDIEvent] = []
        for k in 0..<10 { m.process(frame(Double(k) * 0.01, 1)) { out.append($0.midi!) } }
        XCTAssertEqual(out.last?.value, 127)
        // the sender falls silent: nothing jumps, the value glides down over 400 ms
        out.removeAll()
        m.rest(at: 0.1, glideClock: 50) { out.append($0.midi!) }
        XCTAssertTrue(out.isEmpty, "rest jumped: \(out.map(\.value))")
        XCTAssertTrue(m.isGliding)
        var values: [Int] = []
        for step in 1...50 {
            m.advanceGlides(clock: 50 + Double(step) * 0.01) { values.append(Int($0.midi!.value)) }
        }
        XCTAssertFalse(m.isGliding)
        XCTAssertEqual(values.last, 64)
        XCTAssertGreaterThan(values.count, 20, "too few steps: \(values)")
        XCTAssertEqual(values, values.sorted(by: >), "the glide is not monotone: \(values)")
        XCTAssertTrue(zip(values, values.dropFirst()).allSatisfy { $0 - $1 <= 3 }, "the glide jumps: \(values)")
        // the sender returns with the wrist at the top: the value climbs over 400 ms, no jump
        var back: [Int] = []
        for k in 0..<60 { m.process(frame(5 + Double(k) * 0.01, 1)) { back.append(Int($0.midi!.value)) } }
        XCTAssertEqual(back.last, 127)
        XCTAssertLessThan(back.first ?? 127, 70, "the return jumped: \(back.prefix(5))")
        XCTAssertTrue(zip(back, back.dropFirst()).allSatisfy { abs($0 - $1) <= 3 }, "the return jumps: \(back)")
    }

    func testBackMidGlideContinuesFromWhereItWas() throws {
        var m = Mapper(mappings: [try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none glide=1000")])
        for k in 0..<5 { m.process(frame(Double(k) * 0.01, -1)) { _ in } }
        m.rest(at: 0.05, glideClock: 0) { _ in }
        var mid: [Int] = []
        m.advanceGlides(clock: 0.5) { mid.append(Int($0.midi!.value)) }
        let where_ = try XCTUnwrap(mid.last)
        XCTAssertEqual(Double(where_), 32, accuracy: 2)
        var back: [Int] = []
        m.process(frame(1, -1)) { back.append(Int($0.midi!.value)) }
        XCTAssertFalse(m.isGliding)
        XCTAssertTrue(back.isEmpty || abs(back[0] - where_) <= 1, "jumped from \(where_) to \(back)")
    }

    func testWithoutGlideAndAtTheEndOfAStreamRestIsImmediate() throws {
        var plain = Mapper(mappings: [try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none")])
        plain.process(frame(0, 1)) { _ in }
        var out: [MIDIEvent] = []
        plain.rest(at: 0.1, glideClock: 0) { out.append($0.midi!) }
        XCTAssertEqual(out.map(\.value), [64])
        var glide = Mapper(mappings: [try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none glide=300")])
        glide.process(frame(0, 1)) { _ in }
        out.removeAll()
        glide.rest(at: 0.1) { out.append($0.midi!) }  // exit: no clock, at once
        XCTAssertEqual(out.map(\.value), [64])
        XCTAssertEqual(try Mapping(parsing: "accel.x glide=250").glide, 0.25)
        XCTAssertThrowsError(try Mapping(parsing: "accel.x glide=-1"))
    }
}
