import XCTest
@testable import SensorWahCore

/// The wah's engage switch at run time (`--wah-switch`): a 5 ms crossfade, no click.
final class WahSwitchTests: XCTestCase {
    func testSwitchingCrossfadesWithoutAClick() {
        let rate = 48_000.0
        var wah = WahProcessor(settings: WahSettings())
        wah.prepare(sampleRate: rate)
        wah.setPedal(0.7)
        var bypass = WahProcessor(settings: WahSettings(bypass: true))
        bypass.prepare(sampleRate: rate)
        XCTAssertTrue(bypass.isBypassed)
        let n = 9600
        let input = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 220 * Double($0) / rate)) }
        var out = [Float](repeating: 0, count: n)
        // engaged for 50 ms, bypassed at 50 ms, engaged again at 150 ms
        for block in stride(from: 0, to: n, by: 64) {
            if block == 2432 { wah.setBypass(true) }
            if block == 7232 { wah.setBypass(false) }
            input.withUnsafeBufferPointer { i in
                out.withUnsafeMutableBufferPointer { o in
                    wah.process(i.baseAddress! + block, o.baseAddress! + block, count: 64)
                }
            }
        }
        // 5 ms (240 samples) after switching off, the output is the input
        for k in 2700..<7000 { XCTAssertEqual(out[k], input[k], accuracy: 1e-6) }
        XCTAssertTrue(wah.isBypassed == false)
        // no click: no sample-to-sample step larger than the signal's own largest step plus the effect's
        var steady = 0.0
        for k in 1..<2432 { steady = max(steady, Double(abs(out[k] - out[k - 1]))) }
        var inputStep = 0.0
        for k in 1..<n { inputStep = max(inputStep, Double(abs(input[k] - input[k - 1]))) }
        for k in 2432..<2700 {
            XCTAssertLessThan(Double(abs(out[k] - out[k - 1])), max(steady, inputStep) * 1.5, "step at \(k)")
        }
        for k in 7232..<7600 {
            XCTAssertLessThan(Double(abs(out[k] - out[k - 1])), max(steady, inputStep) * 1.5, "step at \(k)")
        }
        // and it is the effect again afterwards
        XCTAssertGreaterThan((7800..<9600).map { abs(Double(out[$0] - input[$0])) }.max()!, 0.01)
    }

    /// A gesture flips the switch; rest leaves it where it is (a stomp switch does not spring back).
    func testGestureFlipsTheSwitchAndRestLeavesIt() {
        var m = Mapping(source: .axis(.flick), target: .wahSwitch)
        m.smoothing = 0
        var mapper = Mapper(mappings: [m])
        var events: [MappedEvent] = []
        for (t, s) in [(0.0, 15.0), (0.5, 0.0), (1.0, 20.0), (1.5, 12.0)] {
            var f = SensorFrame()
            f.newGroups = SensorGroup.derived.bit
            f.times[SensorGroup.derived.rawValue] = t
            f[.flick] = s
            mapper.process(f) { events.append($0) }
        }
        mapper.rest(at: 2) { events.append($0) }
        XCTAssertEqual(
            events.map(\.effect?.action),
            [.wahSwitch(engaged: true), .wahSwitch(engaged: false), .wahSwitch(engaged: true)])
    }

    /// Offline render's side: the switch events land in `PedalAutomation.switches` at their own
    /// frames, apart from the pedal's breakpoints; before the first, the wah is as `initialBypassed` says.
    func testPedalAutomationKeepsTheSwitchChanges() {
        var a = PedalAutomation(target: .controlChange(channel: 0, controller: 11), sampleRate: 1000)
        a.initialBypassed = true
        a.add(MappedEvent(target: .controlChange(channel: 0, controller: 11), value: 127, time: 0.5))
        a.add(MappedEvent(target: .wahSwitch, value: 1, time: 1.0))
        a.add(MappedEvent(target: .wahSwitch, value: 0, time: 2.0))
        // stamped early: at the last one's frame, replacing it
        a.add(MappedEvent(target: .wahSwitch, value: 1, time: 1.5))
        a.add(MappedEvent(target: .wahSwitch, value: 0, time: -.nan))
        XCTAssertEqual(a.breakpoints, [PedalBreakpoint(frame: 500, pedal: 1)])
        XCTAssertEqual(a.switches, [PedalBreakpoint(frame: 1000, pedal: 1), PedalBreakpoint(frame: 2000, pedal: 1)])
        XCTAssertEqual(a.ignored, 1)
        XCTAssertTrue(a.bypassed(atFrame: 999))
        XCTAssertFalse(a.bypassed(atFrame: 1000))
        XCTAssertFalse(a.bypassed(atFrame: 5000))
    }
}
