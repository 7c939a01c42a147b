import XCTest
@testable import SensorWahCore

/// Gesture-played targets in the mapper: notes (velocity, length, retrigger, note-offs at rest),
/// toggles, the wah switch; their wire bytes and JSON lines.
final class GestureTargetTests: XCTestCase {
    /// A frame of the derived group at `t` with a flick of `strength` (0: none).
    func frame(_ t: Double, flick: Double = 0, tap: Double = 0) -> SensorFrame {
        var f = SensorFrame()
        f.newGroups = SensorGroup.derived.bit
        f.times[SensorGroup.derived.rawValue] = t
        f[.flick] = flick; f[.tap] = tap; f[.shake] = 0
        return f
    }

    func run(_ mapping: String, _ frames: [SensorFrame], restAt: Double? = nil) throws -> [MIDIEvent] {
        var m = Mapper(mappings: [try Mapping(parsing: mapping)])
        var out: [MIDIEvent] = []
        for f in frames { m.process(f) { out.append($0.midi!) } }
        if let r = restAt { m.rest(at: r) { out.append($0.midi!) } }
        return out
    }

    func testNoteWithVelocityFromStrengthAndItsLength() throws {
        let frames = (0..<100).map { i -> SensorFrame in
            let t = Double(i) * 0.02
            return frame(t, flick: i == 10 ? 20 : (i == 60 ? 40 : 0))
        }
        let e = try run("flick note=60 ch=2 length=100", frames)
        XCTAssertEqual(e.map(\.kind), [.noteOn, .noteOff, .noteOn, .noteOff])
        XCTAssertEqual(e[0].controller, 60); XCTAssertEqual(e[0].channel, 1)
        // range 10..30 rad/s -> velocity 40..127: 20 rad/s is the middle, 40 is the top
        XCTAssertEqual(e[0].value, 84); XCTAssertEqual(e[2].value, 127)
        // a flick just over its threshold is still heard
        let soft = try run("flick note=60", [frame(0, flick: 10.5), frame(0.5)])
        XCTAssertEqual(soft.first?.value, 42)
        XCTAssertEqual(e[1].time, 0.3, accuracy: 1e-9)  // 0.2 + 100 ms, stamped when due
        XCTAssertEqual(e[3].time, 1.3, accuracy: 1e-9)
    }

    func testRetriggerEndsTheSoundingNoteFirstAndRestEndsHangingNotes() throws {
        let e = try run("tap note=38 length=500", [frame(0, tap: 3), frame(0.1, tap: 4), frame(0.2)], restAt: 0.25)
        XCTAssertEqual(e.map(\.kind), [.noteOn, .noteOff, .noteOn, .noteOff])
        XCTAssertEqual(e[1].time, 0.1, accuracy: 1e-9)
        XCTAssertEqual(e[3].time, 0.25, accuracy: 1e-9, "rest ends the hanging note")
        XCTAssertTrue(e.allSatisfy { $0.kind != .noteOn || $0.value >= 1 }, "velocity 0 would be a note-off")
        // nothing sounding: rest sends nothing for a note mapping
        XCTAssertEqual(try run("tap note=38", [frame(0)], restAt: 1).count, 0)
    }

    func testToggleAlternatesAndRestsAtZero() throws {
        let e = try run("flick toggle=80", [frame(0, flick: 15), frame(0.5, flick: 15), frame(1, flick: 15)], restAt: 2)
        XCTAssertEqual(e.map(\.value), [127, 0, 127, 0])
        XCTAssertTrue(e.allSatisfy { $0.kind == .controlChange && $0.controller == 80 })
    }

    func testWireBytesAndJSON() {
        var buf = [UInt8](repeating: 0, count: 8)
        let on = MIDIEvent(time: 1.5, kind: .noteOn, channel: 0, controller: 60, value: 97)
        let off = MIDIEvent(time: 1.65, kind: .noteOff, channel: 9, controller: 38, value: 0)
        XCTAssertEqual(buf.withUnsafeMutableBufferPointer { on.encode(into: $0.baseAddress!) }, 3)
        XCTAssertEqual(Array(buf[0..<3]), [0x90, 60, 97])
        _ = buf.withUnsafeMutableBufferPointer { off.encode(into: $0.baseAddress!) }
        XCTAssertEqual(Array(buf[0..<3]), [0x89, 38, 0])
        XCTAssertEqual(JSONLine.string(on), #"{"t":1.500,"type":"note_on","ch":1,"note":60,"velocity":97}"#)
        XCTAssertEqual(JSONLine.string(off), #"{"t":1.650,"type":"note_off","ch":10,"note":38,"velocity":0}"#)
        XCTAssertEqual(
            JSONLine.string(EffectControl(time: 2, .wahSwitch(engaged: true))),
            #"{"t":2.000,"type":"wah_switch","engaged":true}"#)
    }

    func testSyntaxOfGestureTargets() throws {
        let m = try Mapping(parsing: "flick note=60 length=250ms ch=10")
        XCTAssertEqual(m.target, .note(channel: 9, note: 60, length: 0.25))
        XCTAssertEqual(try Mapping(parsing: "shake toggle=64").target, .toggle(channel: 0, controller: 64))
        for (text, message) in [
            ("accel.x note=60", "gesture source"), ("flick note=128", "note needs a whole number 0-127"),
            ("flick note=60 length=0", "length needs a time"), ("flick toggle=1 note=2", "one target per mapping"),
            ("flick cc=1 length=100", "only a note= mapping has a length"), ("tilt.x toggle=3", "gesture source")
        ] {
            XCTAssertThrowsError(try Mapping(parsing: text), text) { e in
                XCTAssertTrue("\(e)".contains(message), "\(text): \(e)")
            }
        }
    }

    /// Found by tools/fuzz mapping: a fractional length (200.5ms) was written out rounded
    /// (length=201), so the written mapping read back as a different note length.
    func testAFractionalNoteLengthIsWholeMillisecondsAndRoundTrips() throws {
        let m = try Mapping(parsing: "flick note=60 length=200.5ms")
        XCTAssertEqual(m.target, .note(channel: 0, note: 60, length: 0.201))
        let back = try Mapping(parsing: m.syntax)
        XCTAssertEqual(back.target, m.target)
        XCTAssertEqual(back.syntax, m.syntax)
    }
}
