import Benchmark
import Foundation
import SensorWahCore

/// Parse + map throughput and allocations, on the project's own recordings repeated to a few MB.
/// Run: `swift package --disable-sandbox benchmark --target ParseMapBenchmarks` (or tools/bench).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [
            .wallClock, .throughput, .mallocCountTotal,
            .custom("MB/s", polarity: .prefersLarger, useScalingFactor: false),
            .custom("klines/s", polarity: .prefersLarger, useScalingFactor: false)
        ],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 200,
        // one iteration parses thousands of lines: zero mallocs per iteration is zero per line
        thresholds: [.mallocCountTotal: .init(absolute: [.p100: 0])]
    )

    for (name, file, copies) in [
        ("phone 82 columns", "Recordings/wrist-wah-phone.csv", 4),
        ("accelerometer 5 columns", "Recordings/accel-only-30hz.csv", 100)
    ] {
        guard let data = FileManager.default.contents(atPath: file) else {
            fatalError("run the benchmarks from the package root: \(file) not found")
        }
        let text = String(decoding: data, as: UTF8.self)
        let allLines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = allLines[0]
        var body = allLines.dropFirst().filter { !$0.isEmpty }.joined(separator: "\n") + "\n"
        body = String(repeating: body, count: copies)
        let bytes = Array(body.utf8)
        let lineCount = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }

        Benchmark("parse+map \(name)") { benchmark in
            // steady state: the header was seen before measuring; every line in the loop is a data row
            var parser = SensorParser()
            var frame = SensorFrame()
            _ = parser.parse(header, into: &frame)
            var mapper = Mapper()
            var framer = LineFramer(maxLineLength: 16_384)
            var sink = 0
            benchmark.startMeasurement()
            let start = DispatchTime.now().uptimeNanoseconds
            bytes.withUnsafeBytes { all in
                framer.feed(all) { line in
                    if case .line(let b) = line, parser.parse(b, into: &frame) == .frame {
                        mapper.process(frame) { sink &+= Int($0.midi?.value ?? 0) }
                    }
                }
            }
            let ns = Double(DispatchTime.now().uptimeNanoseconds - start)
            benchmark.stopMeasurement()
            blackHole(sink)
            benchmark.measurement(
                .custom("MB/s", polarity: .prefersLarger, useScalingFactor: false), Int(Double(bytes.count) / ns * 1e3))
            benchmark.measurement(
                .custom("klines/s", polarity: .prefersLarger, useScalingFactor: false),
                Int(Double(lineCount) / ns * 1e6))
        }
    }

    // The same phone log and mapping with the motion stage (fusion, gestures, derived values)
    // before the mapper: the stage's own cost (target: at most 15 % more than parse+map); then
    // with a tilt and a gesture mapping as well.
    do {
        let file = "Recordings/wrist-wah-phone.csv"
        guard let data = FileManager.default.contents(atPath: file) else { fatalError("\(file) not found") }
        let allLines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        let header = allLines[0]
        let body = String(
            repeating: allLines.dropFirst().filter { !$0.isEmpty }.joined(separator: "\n") + "\n", count: 4)
        let bytes = Array(body.utf8)
        let lineCount = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        for (label, mappings) in [
            ("", [Mapping.default]),
            (", 3 mappings", [Mapping.default, benchMapping("tilt.x zero cc=12"), benchMapping("flick note=60")])
        ] {
            Benchmark("parse+motion+map phone 82 columns\(label)") { benchmark in
                var parser = SensorParser()
                var frame = SensorFrame()
                _ = parser.parse(header, into: &frame)
                var stage = MotionStage()
                var mapper = Mapper(mappings: mappings)
                var framer = LineFramer(maxLineLength: 16_384)
                var sink = 0
                benchmark.startMeasurement()
                let start = DispatchTime.now().uptimeNanoseconds
                bytes.withUnsafeBytes { all in
                    framer.feed(all) { line in
                        if case .line(let b) = line, parser.parse(b, into: &frame) == .frame {
                            stage.process(&frame)
                            mapper.process(frame) { sink &+= Int($0.midi?.value ?? 0) }
                        }
                    }
                }
                let ns = Double(DispatchTime.now().uptimeNanoseconds - start)
                benchmark.stopMeasurement()
                blackHole(sink)
                benchmark.measurement(
                    .custom("MB/s", polarity: .prefersLarger, useScalingFactor: false),
                    Int(Double(bytes.count) / ns * 1e3))
                benchmark.measurement(
                    .custom("klines/s", polarity: .prefersLarger, useScalingFactor: false),
                    Int(Double(lineCount) / ns * 1e6))
            }
        }
    }

    // Gestures taught by example (issue #29's bound: ten gestures of five examples each under
    // 20 us a frame at 100 Hz, no allocation; tools/bench-gestures checks it against
    // Thresholds/, as tools/test does): the recogniser alone, fed 100 Hz accelerometer and
    // gyro readings (a stroke-like wave, so columns match and restart as in play), 60 s of them
    // per iteration; "ns/frame" is the mean CPU time per reading, "worst ns/frame" the slowest
    // reading's wall time.
    do {
        var model = GestureModel()
        var seed: UInt64 = 12345
        func rand() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        for g in 0..<10 {
            var c = GestureModel.Class(name: "g\(g)", threshold: 0.2, gyro: true)
            for e in 0..<5 {
                let frames = 30 + (g * 7 + e * 5) % 31  // 0.6-1.2 s at the internal 50 Hz
                c.examples.append(.init(values: (0..<(frames * GestureFeatures.dims)).map { _ in rand() }))
            }
            model.classes.append(c)
        }
        let n = 6000
        let readings: [(Vector3, Vector3)] = (0..<n).map { i in
            let t = Double(i) / 100
            return (
                Vector3(1.2 * sin(2.1 * t), 0.8 * sin(3.3 * t), -1 + 0.3 * sin(1.3 * t)),
                Vector3(4 * sin(2.7 * t), 2 * cos(1.9 * t), sin(t))
            )
        }
        Benchmark(
            "taught_gestures_10x5_100Hz",
            configuration: .init(
                metrics: [
                    .wallClock, .mallocCountTotal,
                    .custom("ns/frame", polarity: .prefersSmaller, useScalingFactor: false),
                    .custom("worst ns/frame", polarity: .prefersSmaller, useScalingFactor: false)
                ],
                warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 20,
                thresholds: [
                    .mallocCountTotal: .init(absolute: [.p100: 0]),
                    .custom("ns/frame", polarity: .prefersSmaller, useScalingFactor: false): .init(absolute: [
                        .p90: 20_000
                    ])
                ])
        ) { benchmark in
            var r = GestureRecognizer(model: model)
            var sink = 0.0, worst: UInt64 = 0
            // the cost is the thread's CPU time (another process taking the core does not count);
            // the worst single reading is wall time, for information
            func cpu() -> Double {
                var ts = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
                return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
            }
            benchmark.startMeasurement()
            let start = cpu()
            for i in 0..<n {
                let a = DispatchTime.now().uptimeNanoseconds
                r.feed(accel: readings[i].0, gyro: readings[i].1, at: Double(i) / 100)
                worst = max(worst, DispatchTime.now().uptimeNanoseconds - a)
                sink += r.progress[i % 10]
            }
            let ns = cpu() - start
            benchmark.stopMeasurement()
            blackHole(sink)
            benchmark.measurement(
                .custom("ns/frame", polarity: .prefersSmaller, useScalingFactor: false), Int(ns / Double(n)))
            benchmark.measurement(
                .custom("worst ns/frame", polarity: .prefersSmaller, useScalingFactor: false), Int(worst))
        }
    }

    Benchmark("JSON line formatting") { benchmark in
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
        defer { out.deallocate() }
        var n = 0
        benchmark.startMeasurement()
        for i in 0..<10_000 {
            if n > 60_000 { n = 0 }
            n += JSONLine.write(.cc(11, UInt16(i & 127), at: Double(i) * 0.01), into: out + n)
        }
        benchmark.stopMeasurement()
        blackHole(n)
    }
}

/// A mapping the benchmark needs; a typo in it stops the run with the parser's message.
func benchMapping(_ text: String) -> Mapping {
    do { return try Mapping(parsing: text) } catch { fatalError("benchmark mapping \"\(text)\": \(error)") }
}
