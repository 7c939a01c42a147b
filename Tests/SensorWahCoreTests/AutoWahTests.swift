// The envelope follower that moves the pedal (WahMode.envelope / .both): tests with a plucked
// test signal, for both voices.

import Foundation
import XCTest

@testable import SensorWahCore

final class AutoWahTests: XCTestCase {
    typealias S = WahTestSignals

    /// A plucked string: every 0.5 s a 196 Hz tone with its second harmonic, attack 2 ms,
    /// exponential decay (time constant 120 ms), peak 0.4.
    static func plucks(seconds: Double = 2) -> [Float] {
        let count = Int(seconds * S.sampleRate)
        return (0..<count).map { n in
            let t = (Double(n) / S.sampleRate).truncatingRemainder(dividingBy: 0.5)
            let env = min(t / 0.002, 1) * exp(-t / 0.12)
            return Float(0.4 * env * (0.8 * sin(2 * .pi * 196 * t) + 0.2 * sin(2 * .pi * 392 * t)))
        }
    }

    /// The pedal, read after every 48-sample block, and the output.
    static func pedalTrace(_ settings: WahSettings, sensor: Float, input: [Float]) -> (pedal: [Double], output: [Float])
    {
        var wah = S.settled(settings, pedal: sensor)
        var pedal: [Double] = []
        var out = [Float](repeating: 0, count: input.count)
        var i = 0
        while i < input.count {
            let n = min(48, input.count - i)
            input.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o in wah.process(b.baseAddress! + i, o.baseAddress! + i, count: n)
                }
            }
            pedal.append(Double(wah.pedal))
            i += n
        }
        return (pedal, out)
    }

    /// Envelope alone: the pick attack opens the pedal within tens of milliseconds, the decay
    /// closes it again, every pluck; the sensor's pedal is ignored.
    func testPedalFollowsPluckedEnvelope() {
        for voice in WahVoice.allCases {
            let settings = WahSettings(
                voice: voice, mode: .envelope, attackTime: 0.005, releaseTime: 0.1, sensitivity: 4)
            let trace = Self.pedalTrace(settings, sensor: 0.9, input: Self.plucks()).pedal
            let perSecond = S.sampleRate / 48
            for pluck in 0..<4 {
                let start = Int(Double(pluck) * 0.5 * perSecond)
                let opened = trace[start + Int(0.03 * perSecond)]
                let late = trace[start + Int(0.45 * perSecond)]
                XCTAssertGreaterThan(opened, 0.6, "\(voice) pluck \(pluck): pedal \(opened) 30 ms after the attack")
                XCTAssertLessThan(late, 0.15, "\(voice) pluck \(pluck): pedal \(late) 450 ms after the attack")
                // closing: the pedal falls through the decay
                let mid = trace[start + Int(0.2 * perSecond)]
                XCTAssertLessThan(mid, opened)
                XCTAssertGreaterThan(mid, late)
            }
            XCTAssertEqual(trace[0], 0, accuracy: 1e-3, "the sensor's 0.9 is ignored in envelope mode")
        }
    }

    /// `both` adds the envelope to the sensor's position: the smoother is linear, so the pedal
    /// is exactly the envelope-only pedal plus the sensor's while the sum stays below the toe;
    /// a bigger sensitivity takes it to the toe and no further.
    func testBothAddsSensorAndEnvelope() {
        let input = Self.plucks(seconds: 1).map { $0 * 0.5 }
        let sensor: Float = 0.3
        for voice in WahVoice.allCases {
            let envelope = Self.pedalTrace(
                WahSettings(voice: voice, mode: .envelope, sensitivity: 4), sensor: 0, input: input
            ).pedal
            let both = Self.pedalTrace(
                WahSettings(voice: voice, mode: .both, sensitivity: 4), sensor: sensor, input: input
            ).pedal
            XCTAssertLessThan(both.max()!, 0.99)
            for (e, b) in zip(envelope, both) { XCTAssertEqual(b, e + Double(sensor), accuracy: 1e-6) }
            XCTAssertGreaterThan(envelope.max()!, 0.3, "the envelope moved the pedal")
            let hot = Self.pedalTrace(
                WahSettings(voice: voice, mode: .both, sensitivity: 30), sensor: sensor, input: input
            ).pedal
            XCTAssertEqual(hot.max()!, 1, accuracy: 1e-6, "clamped at the toe")
        }
    }

    /// Sensor mode is unchanged (the golden render covers svf bit for bit); with the envelope the
    /// output is the same whatever the block boundaries, and NaN input is silence to the follower.
    func testBlockInvarianceAndBadInput() {
        var input = Self.plucks(seconds: 0.6)
        input[5_000] = .nan
        input[9_000] = .infinity
        for voice in WahVoice.allCases {
            let settings = WahSettings(voice: voice, mode: .both)
            let events: [(at: Int, event: S.Event)] = [(0, .pedal(0.2)), (10_000, .pedal(0.6)), (20_000, .bypass(true))]
            let one = S.render(settings, input, events: events, split: .oneBlock)
            XCTAssert(one.allSatisfy { $0.isFinite })
            for split in [S.Split.perSample, .random(seed: 3)] {
                XCTAssertNil(
                    S.firstDifference(one, S.render(settings, input, events: events, split: split)), "\(voice) \(split)"
                )
            }
        }
    }
}
