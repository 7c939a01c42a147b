import CEffectReference
import XCTest
@testable import SensorWahCore

/// Each effect's Swift code against its C reference (Sources/CEffectReference, same equations,
/// -O2 without FMA contraction): the same output within float tolerance (in practice identical),
/// with parameters moving between blocks.
final class EffectReferenceTests: XCTestCase {
    let rate = 48_000.0
    let input = EffectSignals.noise(count: 24_000, amplitude: 0.4)
    /// Parameter changes at the start of these blocks of 256: (index, where in its range 0...1).
    let moves: [Int: [(Int, Double)]] = [
        10: [(1, 0.9)], 20: [(2, 0.2)], 30: [(0, 1)], 40: [(0, 0)], 50: [(3, 1)], 60: [(1, 0.3), (2, 0.8)],
        70: [(4, 0.3)]
    ]

    func compare(
        _ name: String, table: [EffectParameter], swift: (UnsafeMutablePointer<Float>, Int) -> Void,
        setSwift: (Int, Double) -> Void, c: (UnsafeMutablePointer<Float>, Int32) -> Void,
        setC: (Int32, Double) -> Void
    ) {
        var a = input, b = input
        a.withUnsafeMutableBufferPointer { x in
            b.withUnsafeMutableBufferPointer { y in
                for k in 0..<(input.count / 256) {
                    for (i, v) in moves[k] ?? [] where i < table.count {
                        let r = table[i].range
                        let value = table[i].clamp(r.lowerBound + v * (r.upperBound - r.lowerBound))
                        setSwift(i, value)
                        setC(Int32(i), value)
                    }
                    swift(x.baseAddress! + k * 256, 256)
                    c(y.baseAddress! + k * 256, 256)
                }
            }
        }
        let worst = zip(a, b).map { abs(Double($0) - Double($1)) }.max()!
        let identical = zip(a, b).filter { $0 == $1 }.count
        print("\(name): Swift vs C max difference \(worst), \(identical) of \(a.count) samples identical")
        XCTAssertLessThanOrEqual(worst, 1e-6, name)
    }

    func testFuzzMatchesC() {
        var h = [Double](repeating: 0, count: 256)
        fuzz_ref_design(&h)
        XCTAssertEqual(h, FuzzEffect.design())
        var s = FuzzEffect(sampleRate: rate)
        defer { s.deallocate() }
        var c = fuzz_ref_state()
        fuzz_ref_init(&c, rate, 0.5, 0.5, 0.5)
        compare(
            "fuzz", table: EffectKind.fuzz.parameters, swift: { s.process($0, count: $1) }, setSwift: { s.set($0, $1) },
            c: { fuzz_ref_process(&c, $0, $1) }, setC: { fuzz_ref_set(&c, $0, $1) })
    }

    func testTremoloMatchesC() {
        var s = TremoloEffect(sampleRate: rate)
        var c = tremolo_ref_state()
        tremolo_ref_init(&c, rate, 5, 0.5, 0)
        compare(
            "tremolo", table: EffectKind.tremolo.parameters, swift: { s.process($0, count: $1) },
            setSwift: { s.set($0, $1) },
            c: { tremolo_ref_process(&c, $0, $1) }, setC: { tremolo_ref_set(&c, $0, $1) })
    }

    func testPhaserMatchesC() {
        var s = PhaserEffect(sampleRate: rate)
        defer { s.deallocate() }
        var c = phaser_ref_state()
        phaser_ref_init(&c, rate, 0.5, 0.7, 4, 0)
        compare(
            "phaser", table: EffectKind.phaser.parameters, swift: { s.process($0, count: $1) },
            setSwift: { s.set($0, $1) },
            c: { phaser_ref_process(&c, $0, $1) }, setC: { phaser_ref_set(&c, $0, $1) })
    }

    func testDelayMatchesC() {
        var s = DelayEffect(sampleRate: rate, stage: .init(.delay, ["time": 0.05, "feedback": 0.6]))
        defer { s.deallocate() }
        var c = delay_ref_state()
        delay_ref_init(&c, rate, 0.05, 0.6, 0.3, 1)
        defer { delay_ref_free(&c) }
        compare(
            "delay", table: EffectKind.delay.parameters, swift: { s.process($0, count: $1) },
            setSwift: { s.set($0, $1) },
            c: { delay_ref_process(&c, $0, $1) }, setC: { delay_ref_set(&c, $0, $1) })
    }
}
