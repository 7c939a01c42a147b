import TestSupport
import XCTest
@testable import SensorWahCore

final class EffectAllocationTests: XCTestCase {
    /// The whole chain (every effect, a second wah, the voice change's crossfade, a stage-count
    /// crossfade, gliding wah settings, tempo sync) run, re-parametrised on every slot, read back
    /// and reset: no allocation once running. Optimised builds only (tools/test's release step).
    func testChainProcessAndSetParameterAllocatesNothing() throws {
        #if DEBUG
            throw XCTSkip("allocation-freedom is a property of optimised builds: tools/test runs this in release")
        #else
            let spec = try EffectChainSpec(
                parsing:
                    "fuzz drive=0.8 > wah > tremolo sync=1/8 > phaser feedback=0.5 > delay sync=1/4 > wah voice=crybaby mode=both"
            )
            let chain = EffectChain(spec: spec, sampleRate: 48_000, maximumBlock: 64)
            defer { chain.destroy() }
            var buffer = EffectSignals.noise(count: 64 * 200)
            let slots = spec.slotCount
            var sink = 0.0
            func round() {
                buffer.withUnsafeMutableBufferPointer { b in
                    for k in 0..<200 {
                        let slot = k % slots
                        chain.setParameter(slot: slot, value: Double(k % 7) / 6 * 20)  // clamped to each range
                        chain.setParameter(slot: (slot + 3) % slots, value: 0)
                        chain.setTempo(bpm: 90 + Double(k % 5))
                        chain.process(b.baseAddress! + k * 64, count: 64)
                        sink += chain.value(slot: slot)
                    }
                    chain.reset()
                    chain.process(b.baseAddress!, count: 64)
                }
            }
            // the least of three rounds after an unmeasured one (Allocations: the counter counts
            // every thread's)
            round()
            let allocations = Allocations.least { round() }
            XCTAssertTrue(sink.isFinite)
            XCTAssertEqual(
                allocations.least, 0,
                "allocations in the chain's process / setParameter / value / setTempo / reset, by round: \(allocations.counts)"
            )
        #endif
    }
}
