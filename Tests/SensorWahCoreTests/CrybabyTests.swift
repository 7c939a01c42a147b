// Tests of the crybaby voice (Sources/SensorWahCore/DSP/Crybaby.swift) against its reference,
// an ngspice simulation of the GCB-95 circuit (tools/spice/crybaby.cir, tables written by
// tools/spice/run into Reference/).

import Foundation
import XCTest

@testable import SensorWahCore

#if canImport(CWahReference)
    import CWahReference
#endif

enum CrybabyReference {
    static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Reference")
    }

    /// Rows of numbers of a CSV file (comment lines and the header skipped).
    static func rows(_ name: String) throws -> [[Double]] {
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let first = line.first, first.isNumber else { return nil }
            return line.split(separator: ",").map { Double($0)! }
        }
    }

    static let pedals: [Double] = [0, 0.25, 0.5, 0.75, 1]

    /// (frequency, dB at each of `pedals`).
    static func ac() throws -> [(hz: Double, db: [Double])] {
        try rows("crybaby-ac.csv").map { ($0[0], Array($0[1...])) }
    }

    /// (pedal, hz, peak volts, harmonic levels dBV 1...5).
    static func harmonics() throws -> [(pedal: Double, hz: Double, peak: Double, dbv: [Double])] {
        try rows("crybaby-harmonics.csv").map { ($0[0], $0[1], $0[2], Array($0[3...])) }
    }

    /// Harmonic amplitudes (dBV, 1...n) of the steady state of `y`: a DFT over the last 0.2 s
    /// (an integer number of periods), as tools/spice/run measures ngspice's transient.
    static func harmonicLevels(_ y: [Float], frequency: Double, sampleRate: Double, count: Int = 5) -> [Double] {
        let periods = Int(0.2 * frequency)
        let n = Int((Double(periods) / frequency * sampleRate).rounded())
        let segment = y[(y.count - n)...].map(Double.init)
        return (1...count).map { h in
            let w = 2 * Double.pi * Double(h * periods) / Double(n)
            var re = 0.0, im = 0.0
            for (k, v) in segment.enumerated() {
                re += v * cos(w * Double(k))
                im -= v * sin(w * Double(k))
            }
            let amplitude = 2 * (re * re + im * im).squareRoot() / Double(n)
            return 20 * log10(max(amplitude, 1e-12))
        }
    }
}

final class CrybabyTests: XCTestCase {
    typealias S = WahTestSignals
    let crybaby = WahSettings(voice: .crybaby)
    /// The voice's output is the circuit's times its make-up gain: divided out to compare with SPICE.
    let makeUp = WahVoice.crybaby.makeUpGain

    /// The SPICE reference itself behaves like the published GCB-95: a peak near 400-450 Hz at
    /// the heel, 1.5-2.2 kHz at the toe, rising with the pedal, about 18 dB of boost.
    func testSpiceReferenceMatchesPublishedBehaviour() throws {
        let table = try CrybabyReference.ac()
        XCTAssertGreaterThan(table.count, 100)
        var peaks: [(hz: Double, db: Double)] = []
        for j in CrybabyReference.pedals.indices {
            let best = table.max { $0.db[j] < $1.db[j] }!
            peaks.append((best.hz, best.db[j]))
        }
        print("SPICE peaks (Hz, dB) heel...toe: \(peaks.map { "(\(Int($0.hz)), \(String(format: "%.1f", $0.db)))" })")
        XCTAssert((400...450).contains(peaks[0].hz), "heel peak \(peaks[0].hz) Hz")
        XCTAssert((1500...2200).contains(peaks[4].hz), "toe peak \(peaks[4].hz) Hz")
        for j in 1..<peaks.count { XCTAssertGreaterThan(peaks[j].hz, peaks[j - 1].hz) }
        for peak in peaks { XCTAssert((15...21).contains(peak.db), "boost \(peak.db) dB") }
        // well below the peak the pedal passes the guitar at a much lower level (a band-pass)
        let low = table.first { $0.hz >= 80 }!
        for j in CrybabyReference.pedals.indices { XCTAssertLessThan(low.db[j], peaks[j].db - 12) }
    }

    /// The voice's small-signal magnitude response is within 1 dB of SPICE's AC analysis from
    /// 80 Hz to 5 kHz at heel, 25 %, 50 %, 75 % and toe. Measured, not computed: the processor's
    /// response to a 1 mV impulse (so the transistor stage stays linear), pedal settled, 48 kHz,
    /// 2^17 samples, one DFT bin (Goertzel) at each table frequency; the voice's make-up gain
    /// divided out.
    func testMagnitudeWithin1dBOfSpice() throws {
        let table = try CrybabyReference.ac().filter { $0.hz >= 80 && $0.hz <= 5000 }
        let amplitude: Float = 1e-3
        var report: [String] = []
        for (j, pedal) in CrybabyReference.pedals.enumerated() {
            var wah = S.settled(crybaby, pedal: Float(pedal))
            var input = [Float](repeating: 0, count: 1 << 17)
            input[0] = amplitude
            let h = S.process(&wah, input).map { Double($0) / Double(amplitude) / makeUp }
            var worst = 0.0, at = 0.0
            for row in table {
                let db = 20 * log10(S.magnitude(h, at: row.hz))
                let error = db - row.db[j]
                if abs(error) > abs(worst) { worst = error; at = row.hz }
            }
            report.append("pedal \(pedal): \(String(format: "%+.3f", worst)) dB at \(Int(at)) Hz")
            XCTAssertLessThanOrEqual(abs(worst), 1.0, "pedal \(pedal): \(worst) dB at \(at) Hz")
        }
        print("crybaby vs SPICE AC, worst deviation 80 Hz-5 kHz: " + report.joined(separator: "; "))
    }

    /// The analog prototype (before discretisation) is within 0.3 dB of SPICE: the fit itself.
    func testPrototypeFit() throws {
        for row in try CrybabyReference.ac() where row.hz >= 80 && row.hz <= 5000 {
            for (j, pedal) in CrybabyReference.pedals.enumerated() {
                let db = 20 * log10(CrybabyModel.analogMagnitude(pedal: pedal, frequency: row.hz))
                XCTAssertEqual(db, row.db[j], accuracy: 0.3, "pedal \(pedal) at \(row.hz) Hz")
            }
        }
    }

    /// A hot pickup (1 V peak): the transistor stage's harmonics are within 3 dB of ngspice's
    /// transient analysis (fundamental, second and third harmonic: the ones above -60 dBc in
    /// SPICE; the fourth and fifth, -70 to -120 dBc there, must only stay below -55 dBc). The
    /// levels are the circuit's: the voice's make-up gain divided out.
    func testHarmonicsWithin3dBOfSpice() throws {
        var report: [String] = []
        for row in try CrybabyReference.harmonics() {
            var wah = S.settled(crybaby, pedal: Float(row.pedal))
            let input = S.sine(count: Int(0.5 * S.sampleRate), frequency: row.hz, amplitude: row.peak)
            let y = S.process(&wah, input)
            let levels = CrybabyReference.harmonicLevels(y, frequency: row.hz, sampleRate: S.sampleRate)
                .map { $0 - WahVoice.crybaby.makeUpGainDB }
            for h in 0..<3 {
                XCTAssertEqual(levels[h], row.dbv[h], accuracy: 3.0, "pedal \(row.pedal), \(row.hz) Hz: H\(h + 1)")
            }
            for h in 3..<5 { XCTAssertLessThan(levels[h] - levels[0], -55, "H\(h + 1)") }
            let f = { (v: [Double]) in v.prefix(3).map { String(format: "%.1f", $0) }.joined(separator: "/") }
            report.append("pedal \(row.pedal) \(Int(row.hz)) Hz: model \(f(levels)) vs SPICE \(f(row.dbv)) dBV")
        }
        print("crybaby harmonics H1/H2/H3 at 1 V peak: " + report.joined(separator: "; "))
    }

    /// Louder input, more distortion, and the output stays bounded by the collector's headroom.
    func testSoftClipping() {
        func h2(_ peak: Double) -> Double {
            var wah = S.settled(crybaby, pedal: 0.5)
            let y = S.process(&wah, S.sine(count: 24_000, frequency: 440, amplitude: peak))
            let l = CrybabyReference.harmonicLevels(y, frequency: 440, sampleRate: S.sampleRate, count: 2)
            return l[1] - l[0]
        }
        XCTAssertLessThan(h2(0.01), -50)
        XCTAssertLessThan(h2(0.1), h2(1) - 10)
        var wah = S.settled(crybaby, pedal: 0.5)
        let y = S.process(&wah, S.sine(count: 24_000, frequency: 870, amplitude: 20))
        let peak = y.map { abs(Double($0)) }.max()!
        XCTAssertLessThan(peak, 2 * CrybabyModel.headroom)
        XCTAssert(y.allSatisfy { $0.isFinite })
    }

    /// Any split into blocks (and sample by sample) gives the same output, bit for bit, with the
    /// pedal moving.
    func testBlockSizeInvariance() {
        let input = S.noise(count: 20_000, seed: 31, amplitude: 0.5)
        var events: [(at: Int, event: S.Event)] = []
        for n in stride(from: 0, to: 20_000, by: 300) { events.append((n, .pedal(Float(n % 7) / 6))) }
        events.append((9_000, .bypass(true)))
        events.append((12_000, .bypass(false)))
        events.sort { $0.at < $1.at }
        let one = S.render(crybaby, input, events: events, split: .oneBlock)
        for split in [S.Split.perSample, .random(seed: 5), .randomInPlace(seed: 6)] {
            XCTAssertNil(S.firstDifference(one, S.render(crybaby, input, events: events, split: split)), "\(split)")
        }
    }

    /// No zipper noise: DC in, the pedal stepped heel <-> toe every 512 samples; the smoothed
    /// sweep moves the output no more than a fraction of its range from one sample to the next.
    func testPedalStepsAreSmooth() {
        let count = 48_000
        let input = [Float](repeating: 0.2, count: count)
        var events: [(at: Int, event: S.Event)] = []
        for (i, n) in stride(from: 0, to: count, by: 512).enumerated() {
            events.append((n, .pedal(i % 2 == 0 ? 1 : 0)))
        }
        let y = S.render(crybaby, input, events: events, split: .oneBlock)
        let range = Double(y.max()! - y.min()!)
        XCTAssertLessThan(S.maxJump(y, from: 2_000) / max(range, 1e-9), 0.05)
        XCTAssert(y.allSatisfy { $0.isFinite })
    }

    /// NaN and infinities reset the filter; it recovers. Silence decays to exact zeros.
    func testNonFiniteInputAndSilence() {
        var wah = S.settled(crybaby, pedal: 0.3)
        var input = S.noise(count: 4_000, seed: 9)
        input[1_000] = .nan
        input[2_000] = .infinity
        let y = S.process(&wah, input)
        XCTAssert(y.allSatisfy { $0.isFinite })
        XCTAssertGreaterThan(y[3_000...].map { abs($0) }.max()!, 0)
        let quiet = S.process(&wah, [Float](repeating: 0, count: 200_000))
        XCTAssertEqual(quiet.last, 0)
        XCTAssert(quiet.allSatisfy { $0 == 0 || abs($0) >= Float.leastNormalMagnitude })
    }

    /// The pot law: audio taper over the pedal's travel, heel at the top of the pot.
    func testPotLaw() {
        XCTAssertEqual(CrybabyModel.potResistance(pedal: 0), 100_000, accuracy: 1)
        XCTAssertEqual(CrybabyModel.potResistance(pedal: 0.625), 10_000, accuracy: 5)  // mid rotation: 10 %
        XCTAssertEqual(CrybabyModel.resonance(pedal: 0).frequency, 407.4, accuracy: 1)
        XCTAssertEqual(CrybabyModel.resonance(pedal: 1).frequency, 1747.7, accuracy: 2)
        XCTAssertGreaterThan(CrybabyModel.resonance(pedal: 0).q, CrybabyModel.resonance(pedal: 1).q)
    }

    #if canImport(CWahReference)
        /// The Swift voice and its plain C reference (Sources/CWahReference/crybaby_ref.c, the
        /// benchmark's comparison) compute the same thing: random blocks, pedal jumps, bypass.
        func testMatchesCReference() {
            let count = 40_000
            let input = S.noise(count: count, seed: 91, amplitude: 0.8)
            var rng = WahTestRNG(seed: 92)
            var wah = WahProcessor(settings: crybaby)
            wah.prepare(sampleRate: S.sampleRate)
            var c = crybaby_ref_state()
            crybaby_ref_prepare(&c, S.sampleRate, 1, 1, WahSettings().smoothingTime)
            var swiftOut = [Float](repeating: 0, count: count), cOut = swiftOut
            var position = 0
            var bypass = false
            while position < count {
                let length = min(rng.int(1, 512), count - position)
                let pedal = Float(rng.unit() * 1.2 - 0.1)
                wah.setPedal(pedal)
                crybaby_ref_set_pedal(&c, pedal)
                if rng.int(0, 20) == 0 {
                    bypass.toggle()
                    wah.settings.bypass = bypass
                    crybaby_ref_set_bypass(&c, bypass ? 1 : 0)
                }
                input.withUnsafeBufferPointer { i in
                    swiftOut.withUnsafeMutableBufferPointer { o in
                        wah.process(i.baseAddress! + position, o.baseAddress! + position, count: length)
                    }
                    cOut.withUnsafeMutableBufferPointer { o in
                        crybaby_ref_process(&c, i.baseAddress! + position, o.baseAddress! + position, Int32(length))
                    }
                }
                position += length
            }
            var worst: Float = 0
            for n in 0..<count { worst = max(worst, abs(swiftOut[n] - cOut[n]) / max(1, abs(cOut[n]))) }
            XCTAssertLessThanOrEqual(worst, 1e-6)
            XCTAssertGreaterThan(swiftOut.map { abs($0) }.max()!, 0.1)
        }
    #endif
}
