import Benchmark
import CWahReference
import Foundation
import SensorWahCore

/// The wah's cost per sample, Swift (`WahProcessor`) against the C reference (`wah_ref`, -O2) in
/// the same run: mono, 48 kHz, one second of noise per iteration in 256-frame blocks, the pedal
/// moving every block (a full heel-toe sweep per second), so the smoother and the per-sample
/// coefficient laws are always busy.
/// Run: `swift package --disable-sandbox benchmark --target WahBenchmarks` (or tools/jack-bench wah).
let benchmarks: @Sendable () -> Void = {
    let psPerSample = BenchmarkMetric.custom("ps/sample", polarity: .prefersSmaller, useScalingFactor: false)
    let ratioMetric = BenchmarkMetric.custom("Swift/C x1000", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, psPerSample],
        warmupIterations: 3,
        maxDuration: .seconds(4),
        maxIterations: 400,
        thresholds: [.mallocCountTotal: .init(absolute: [.p100: 0])]
    )

    let rate = 48_000
    let block = 256
    var seed: UInt64 = 0x5EED
    let input: [Float] = (0..<rate).map { _ in
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return (Float(Double(seed >> 11) / Double(1 << 53)) * 2 - 1) * 0.25
    }
    let blocks = rate / block
    let pedals: [Float] = (0..<blocks).map { b in
        let phase = Double(b) / Double(blocks)
        return Float(phase < 0.5 ? 2 * phase : 2 - 2 * phase)
    }
    let output = UnsafeMutablePointer<Float>.allocate(capacity: rate)
    let samples = Double(blocks * block)

    @inline(__always) func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func runSwift(_ wah: inout WahProcessor) {
        input.withUnsafeBufferPointer { x in
            for b in 0..<blocks {
                wah.setPedal(pedals[b])
                wah.process(x.baseAddress! + b * block, output + b * block, count: block)
            }
        }
    }

    func runC<R: CReference>(_ st: inout R) {
        input.withUnsafeBufferPointer { x in
            for b in 0..<blocks {
                st.setPedal(pedals[b])
                st.process(x.baseAddress! + b * block, output + b * block, Int32(block))
            }
        }
    }

    /// Three benchmarks per voice: Swift, its C reference, and the two interleaved (the ratio).
    func voice<R: CReference>(_ name: String, swift: @escaping () -> WahProcessor, c: @escaping () -> R) {
        Benchmark("\(name) Swift, mono 48 kHz, sweeping") { benchmark in
            var wah = swift()
            benchmark.startMeasurement()
            let t0 = now()
            runSwift(&wah)
            let ns = Double(now() - t0)
            benchmark.stopMeasurement()
            blackHole(output[rate - 1])
            benchmark.measurement(psPerSample, Int(ns / samples * 1000))
        }

        Benchmark("\(name) C reference -O2, mono 48 kHz, sweeping") { benchmark in
            var st = c()
            benchmark.startMeasurement()
            let t0 = now()
            runC(&st)
            let ns = Double(now() - t0)
            benchmark.stopMeasurement()
            blackHole(output[rate - 1])
            benchmark.measurement(psPerSample, Int(ns / samples * 1000))
        }

        // Swift and C alternate inside each iteration (same caches, same frequency): the ratio of
        // their times, x1000. Target: <= 1100.
        Benchmark("\(name) Swift/C ratio, interleaved", configuration: .init(metrics: [ratioMetric, .mallocCountTotal]))
        { benchmark in
            var wah = swift()
            var st = c()
            var swiftNs: UInt64 = 0, cNs: UInt64 = 0
            benchmark.startMeasurement()
            for round in 0..<6 {
                if round % 2 == 0 {
                    var t = now(); runSwift(&wah); swiftNs += now() - t
                    t = now(); runC(&st); cNs += now() - t
                } else {
                    var t = now(); runC(&st); cNs += now() - t
                    t = now(); runSwift(&wah); swiftNs += now() - t
                }
            }
            benchmark.stopMeasurement()
            blackHole(output[rate - 1])
            benchmark.measurement(ratioMetric, Int(Double(swiftNs) / Double(max(cNs, 1)) * 1000))
        }
    }

    voice(
        "wah",
        swift: {
            var wah = WahProcessor()
            wah.prepare(sampleRate: Double(rate))
            return wah
        },
        c: {
            var cs = wah_ref_settings()
            wah_ref_default_settings(&cs)
            var st = wah_ref_state()
            wah_ref_prepare(&st, Double(rate), &cs)
            return st
        })

    // The crybaby voice (Crybaby.swift) against its C reference (crybaby_ref.c), same protocol.
    voice(
        "wah crybaby",
        swift: {
            var wah = WahProcessor(settings: WahSettings(voice: .crybaby))
            wah.prepare(sampleRate: Double(rate))
            return wah
        },
        c: {
            var st = crybaby_ref_state()
            crybaby_ref_prepare(&st, Double(rate), 1, 1, WahSettings().smoothingTime)
            return st
        })
}

/// A C reference voice, as the benchmark drives it.
protocol CReference {
    mutating func setPedal(_ target: Float)
    mutating func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int32)
}

extension wah_ref_state: CReference {
    mutating func setPedal(_ target: Float) { wah_ref_set_pedal(&self, target) }
    mutating func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int32) {
        wah_ref_process(&self, input, output, count)
    }
}

extension crybaby_ref_state: CReference {
    mutating func setPedal(_ target: Float) { crybaby_ref_set_pedal(&self, target) }
    mutating func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int32) {
        crybaby_ref_process(&self, input, output, count)
    }
}
