import Benchmark
import Foundation
import SensorWahCore

/// Parse + map throughput and allocations, on the project's own recordings repeated to a few MB.
/// Run: `swift package --disable-sandbox benchmark --target ParseMapBenchmarks` (or tools/bench).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal,
                  .custom("MB/s", polarity: .prefersLarger, useScalingFactor: false),
                  .custom("klines/s", polarity: .prefersLarger, useScalingFactor: false)],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 200,
        // one iteration parses thousands of lines: zero mallocs per iteration is zero per line
        thresholds: [.mallocCountTotal: .init(absolute: [.p100: 0])]
    )

    for (name, file, copies) in [("phone 82 columns", "Recordings/wrist-wah-phone.csv", 4),
                                 ("accelerometer 5 columns", "Recordings/accel-only-30hz.csv", 100)] {
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
                        mapper.process(frame) { sink &+= Int($0.value) }
                    }
                }
            }
            let ns = Double(DispatchTime.now().uptimeNanoseconds - start)
            benchmark.stopMeasurement()
            blackHole(sink)
            benchmark.measurement(.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false), Int(Double(bytes.count) / ns * 1e3))
            benchmark.measurement(.custom("klines/s", polarity: .prefersLarger, useScalingFactor: false), Int(Double(lineCount) / ns * 1e6))
        }
    }

    // The same phone log and mapping with the motion stage (fusion, gestures, derived values)
    // before the mapper: the stage's own cost (target: at most 15 % more than parse+map); then
    // with a tilt and a gesture mapping as well.
    do {
        let file = "Recordings/wrist-wah-phone.csv"
        guard let data = FileManager.default.contents(atPath: file) else { fatalError("\(file) not found") }
        let allLines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = allLines[0]
        let body = String(repeating: allLines.dropFirst().filter { !$0.isEmpty }.joined(separator: "\n") + "\n", count: 4)
        let bytes = Array(body.utf8)
        let lineCount = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        for (label, mappings) in [("", [Mapping.default]),
                                  (", 3 mappings", [Mapping.default, benchMapping("tilt.x zero cc=12"), benchMapping("flick note=60")])] {
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
                        mapper.process(frame) { sink &+= Int($0.value) }
                    }
                }
            }
            let ns = Double(DispatchTime.now().uptimeNanoseconds - start)
            benchmark.stopMeasurement()
            blackHole(sink)
            benchmark.measurement(.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false), Int(Double(bytes.count) / ns * 1e3))
            benchmark.measurement(.custom("klines/s", polarity: .prefersLarger, useScalingFactor: false), Int(Double(lineCount) / ns * 1e6))
        }
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
