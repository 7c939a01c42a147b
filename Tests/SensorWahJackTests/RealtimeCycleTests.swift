import Foundation
import SensorWahCore
@testable import SensorWahJack
import XCTest

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
            s.pointee.fx.build(
                specs: [.wahOnly], channels: 2, sampleRate: Double(rate), wah: WahSettings(), controllers: [],
                pedal: 0, bypassed: false, followsSwitch: false, crossfadeSeconds: 0.02)
            s.pointee.preparedRate.store(rate, ordering: .releasing)
        }
        prepare(48_000)
        _ = rtSampleRate(44_100, UnsafeMutableRawPointer(s))
        s.pointee.pedalBits.store(Float(0.75).bitPattern, ordering: .relaxed)
        rtCycle(s, 128)  // no ports: the audio part finds no buffers and skips
        XCTAssertEqual(s.pointee.rateSeen.load(ordering: .relaxed), 44_100, "the callback did not let go of the chains")
        XCTAssertEqual(s.pointee.fx.appliedPedal, Float(0).bitPattern, "a chain of the old rate was touched")
        XCTAssertEqual(s.pointee.cycles.load(ordering: .relaxed), 1)
        XCTAssertEqual(s.pointee.periodFrames.load(ordering: .relaxed), 128)
        prepare(44_100)  // what JackEngine.supervise does then
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
        let a = try! EffectChainSpec(parsing: "tremolo depth=0 > delay mix=0")  // passes the input
        let b = try! EffectChainSpec(parsing: "fuzz drive=0 level=0")  // silence
        fx.build(
            specs: [a, b], channels: 1, sampleRate: 48_000, wah: WahSettings(), controllers: [(20, "delay.mix")],
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
        for _ in 0..<5 { faded += cycle() }  // 640 samples > 480 (10 ms)
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
