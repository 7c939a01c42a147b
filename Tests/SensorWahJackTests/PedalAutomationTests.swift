import SensorWahCore
import XCTest

/// `PedalAutomation`: which messages drive the pedal, where they land, what the pedal is between.
final class PedalAutomationTests: XCTestCase {
    let cc11 = Target.controlChange(channel: 0, controller: 11)

    func testSevenBitValuesAtRoundedSamplePositions() {
        var a = PedalAutomation(target: cc11, sampleRate: 48_000)
        a.add(.cc(11, 0, at: 0))
        a.add(.cc(11, 127, at: 0.5))
        a.add(.cc(11, 64, at: 1.0000104))  // 48000.4992 -> 48000
        a.add(.cc(11, 32, at: 1.0000105))  // 48000.504 -> 48001
        XCTAssertEqual(
            a.breakpoints,
            [
                PedalBreakpoint(frame: 0, pedal: 0), PedalBreakpoint(frame: 24_000, pedal: 1),
                PedalBreakpoint(frame: 48_000, pedal: Float(64.0 / 127.0)),
                PedalBreakpoint(frame: 48_001, pedal: Float(32.0 / 127.0))
            ])
    }

    func testOtherTargetsAreIgnored() {
        var a = PedalAutomation(target: cc11, sampleRate: 1000)
        a.add(.cc(12, 100, at: 0.1))  // other controller
        a.add(.cc(11, 100, channel: 1, at: 0.2))  // other channel
        a.add(MIDIEvent(time: 0.3, kind: .pitchBend, channel: 0, value: 8192))
        a.add(MIDIEvent(time: 0.4, kind: .controlChange14, channel: 0, controller: 11, value: 100))
        XCTAssertEqual(a.breakpoints, [])
        XCTAssertEqual(a.ignored, 4)
    }

    func testFourteenBitAndPitchBendUse16383() {
        var a = PedalAutomation(target: .controlChange14(channel: 2, controller: 1), sampleRate: 100)
        a.add(MIDIEvent(time: 0.1, kind: .controlChange14, channel: 2, controller: 1, value: 16383))
        a.add(MIDIEvent(time: 0.2, kind: .controlChange14, channel: 2, controller: 1, value: 8192))
        a.add(.cc(1, 127, channel: 2, at: 0.3))  // 7-bit on the MSB number: not ours
        XCTAssertEqual(
            a.breakpoints,
            [PedalBreakpoint(frame: 10, pedal: 1), PedalBreakpoint(frame: 20, pedal: Float(8192.0 / 16383.0))])
        var b = PedalAutomation(target: .pitchBend(channel: 0), sampleRate: 100)
        b.add(MIDIEvent(time: 0, kind: .pitchBend, channel: 0, value: 0))
        b.add(MIDIEvent(time: 1, kind: .pitchBend, channel: 0, value: 16383))
        XCTAssertEqual(b.breakpoints.map(\.pedal), [0, 1])
    }

    func testSameFrameReplacesAndEarlierTimeClampsForward() {
        var a = PedalAutomation(target: cc11, sampleRate: 10)
        a.add(.cc(11, 10, at: 1.0))
        a.add(.cc(11, 20, at: 1.04))  // same frame 10: replaces
        a.add(.cc(11, 30, at: 0.5))  // earlier (a clock restart): at frame 10 too, replaces
        a.add(.cc(11, 40, at: 2.0))
        a.add(.cc(11, 50, at: -1))  // unusable time
        a.add(.cc(11, 60, at: .nan))
        XCTAssertEqual(
            a.breakpoints,
            [
                PedalBreakpoint(frame: 10, pedal: Float(30.0 / 127.0)),
                PedalBreakpoint(frame: 20, pedal: Float(40.0 / 127.0))
            ])
        XCTAssertEqual(a.ignored, 2)
        XCTAssertTrue(zip(a.breakpoints, a.breakpoints.dropFirst()).allSatisfy { $0.frame < $1.frame })
    }

    func testPedalAtFrameAndInitialValue() {
        var bipolar = Mapping.default  // bipolar: rests at 64
        bipolar.target = cc11
        var a = PedalAutomation(mapping: bipolar, sampleRate: 1000)
        XCTAssertEqual(a.initialPedal, Float(64.0 / 127.0))
        a.add(.cc(11, 0, at: 0.1))
        a.add(.cc(11, 127, at: 0.2))
        XCTAssertEqual(a.pedal(atFrame: 0), Float(64.0 / 127.0))
        XCTAssertEqual(a.pedal(atFrame: 99), Float(64.0 / 127.0))
        XCTAssertEqual(a.pedal(atFrame: 100), 0)
        XCTAssertEqual(a.pedal(atFrame: 199), 0)
        XCTAssertEqual(a.pedal(atFrame: 200), 1)
        XCTAssertEqual(a.pedal(atFrame: 1_000_000), 1)
        let held = PedalAutomation.constant(0.25, sampleRate: 48_000)
        XCTAssertEqual(held.breakpoints, [])
        XCTAssertEqual(held.pedal(atFrame: 12345), 0.25)
    }

    /// The log -> parser -> mapper -> breakpoints path equals running the mapper by hand.
    func testFromSensorLogMatchesTheMapper() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Recordings/wrist-wah-phone.csv").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var second = Mapping(source: .axis(.pitch), target: .controlChange14(channel: 0, controller: 1))
        second.smoothing = 0.02
        let mappings = [Mapping.default, second]
        for index in 0..<2 {
            let (a, parser, mapper) = PedalAutomation.fromSensorLog(
                lines: lines, mappings: mappings, index: index, sampleRate: 44_100)
            XCTAssertEqual(parser.frames, 1256)
            var events: [MIDIEvent] = []
            var p = SensorParser()
            var m = Mapper(mappings: mappings)
            var stage = MotionStage()  // the default mapping reads the fused tilt
            var f = SensorFrame()
            for line in lines where p.parse(line, into: &f) == .frame {
                stage.process(&f); m.process(f) { events.append($0.midi!) }
            }
            m.flush { events.append($0.midi!) }
            XCTAssertEqual(mapper.messages, events.count)
            let mine = events.filter { PedalAutomation.pedal(of: $0, for: mappings[index].target) != nil }
            XCTAssertGreaterThan(mine.count, 100)
            var expected: [PedalBreakpoint] = []
            for e in mine {
                let frame = Int((e.time * 44_100).rounded())
                let pedal = PedalAutomation.pedal(value: Int(e.value), of: mappings[index].target)
                if let last = expected.last, last.frame >= frame {
                    expected[expected.count - 1].pedal = pedal
                } else {
                    expected.append(PedalBreakpoint(frame: frame, pedal: pedal))
                }
            }
            XCTAssertEqual(a.breakpoints, expected, "mapping \(index)")
        }
    }
}
