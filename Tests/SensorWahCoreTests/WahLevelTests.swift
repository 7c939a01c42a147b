// The voices' make-up gain (WahVoice.makeUpGainDB): the last gain of each voice's wet path.
// What it achieves, each voice as loud as bypass on plucked strings, is measured on sox's plucked
// notes by tools/wah-level, which FirstHourTests runs against the built binary.

import Foundation
import XCTest

@testable import SensorWahCore

final class WahLevelTests: XCTestCase {
    typealias S = WahTestSignals

    /// A riff of decaying notes (E2, E3, B3, E4: six harmonics each, falling as 1/k), with the
    /// pedal sweeping heel -> toe -> heel every 0.9 s.
    static func sweptRiff(_ settings: WahSettings) -> (input: [Float], output: [Float]) {
        let notes = [82.41, 164.81, 246.94, 329.63]
        let count = Int(2 * S.sampleRate), perNote = count / 8
        let x = (0..<count).map { n -> Float in
            let f = notes[(n / perNote) % notes.count]
            let t = Double(n % perNote) / S.sampleRate
            var s = 0.0
            for k in 1...6 { s += sin(2 * Double.pi * f * Double(k) * t) / Double(k) }
            return Float(0.3 * s * exp(-4 * t))
        }
        var wah = WahProcessor(settings: settings)
        wah.prepare(sampleRate: S.sampleRate)
        var y = [Float](repeating: 0, count: count)
        var n = 0
        x.withUnsafeBufferPointer { input in
            y.withUnsafeMutableBufferPointer { output in
                while n < count {
                    let phase = (Double(n) / S.sampleRate / 0.9).truncatingRemainder(dividingBy: 1)
                    wah.setPedal(Float(phase < 0.5 ? 2 * phase : 2 - 2 * phase))
                    let m = min(64, count - n)
                    wah.process(input.baseAddress! + n, output.baseAddress! + n, count: m)
                    n += m
                }
            }
        }
        return (x, y)
    }

    static func rms(_ x: [Float]) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(x.count, 1))).squareRoot()
    }

    /// The make-up gain is each voice's last gain, after everything that depends on the level
    /// (the crybaby's distortion included): with it divided out by `outputGain`, the same
    /// swept riff comes out exactly `makeUpGainDB` quieter, sample for sample.
    func testMakeUpGainIsEachVoicesLastGain() {
        for voice in WahVoice.allCases {
            let with = Self.sweptRiff(WahSettings(voice: voice)).output
            let without = Self.sweptRiff(WahSettings(outputGain: 1 / voice.makeUpGain, voice: voice)).output
            XCTAssertGreaterThan(Self.rms(without), 0.01)
            var worst = 0.0
            for n in with.indices {
                worst = max(worst, abs(Double(with[n]) - Double(without[n]) * voice.makeUpGain))
            }
            XCTAssertLessThan(worst, 1e-5, "\(voice)")
            XCTAssertEqual(
                20 * log10(Self.rms(with) / Self.rms(without)), voice.makeUpGainDB, accuracy: 1e-4, "\(voice)")
        }
    }

    /// The gain in every path: a chain of the wah alone (`EffectChain`, what JACK and the LV2
    /// chain plugin run) renders the samples of `WahProcessor`, make-up gain included.
    func testTheChainsWahCarriesTheMakeUpGain() {
        for voice in WahVoice.allCases {
            let (x, alone) = Self.sweptRiff(WahSettings(voice: voice))
            let chain = EffectChain(
                spec: EffectChainSpec(stages: [.init(.wah)]), sampleRate: S.sampleRate,
                maximumBlock: 64, wah: WahSettings(voice: voice))
            defer { chain.destroy() }
            let slot = EffectKind.wah.parameter(named: "pedal")!.index
            var y = x
            var n = 0
            y.withUnsafeMutableBufferPointer { b in
                while n < x.count {
                    let phase = (Double(n) / S.sampleRate / 0.9).truncatingRemainder(dividingBy: 1)
                    chain.setParameter(slot: slot, value: phase < 0.5 ? 2 * phase : 2 - 2 * phase)
                    let m = min(64, x.count - n)
                    chain.process(b.baseAddress! + n, count: m)
                    n += m
                }
            }
            XCTAssertEqual(y, alone, "\(voice)")
        }
    }
}
