import Foundation
import XCTest
@testable import SensorWahCore

/// Replays every fuzz seed (Tests/Fuzz/Corpus/<target>) and every input a fuzzer once crashed
/// on (Tests/Fuzz/Regressions/<target>) through the fuzz targets' own entry logic
/// (FuzzEntries), without libFuzzer: no trap, and every result sane (finite values, counts
/// that add up). tools/fuzz TARGET SECONDS runs the real fuzzer.
final class FuzzRegressionTests: XCTestCase {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    func files(_ kind: String, _ target: String) -> [URL] {
        let dir = Self.fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
    }

    func replay(_ target: String) throws {
        let seeds = files("Corpus", target)
        XCTAssertFalse(seeds.isEmpty, "no seed corpus for \(target)")
        for url in seeds + files("Regressions", target) {
            let data = try Data(contentsOf: url)
            let problems = data.withUnsafeBytes { FuzzEntries.run(target, $0) }
            XCTAssertEqual(problems, [], "\(target): \(url.lastPathComponent)")
        }
    }

    func testParserCorpusAndRegressions() throws { try replay("parser") }
    func testOSCCorpusAndRegressions() throws { try replay("osc") }
    func testPushCorpusAndRegressions() throws { try replay("push") }
    func testPhyphoxCorpusAndRegressions() throws { try replay("phyphox") }
    func testMappingCorpusAndRegressions() throws { try replay("mapping") }
    func testAppleMIDICorpusAndRegressions() throws { try replay("applemidi") }

    /// The seeds are real inputs: each target's corpus yields something, not only refusals.
    func testSeedsAreUnderstood() throws {
        var frame = SensorFrame()
        for url in files("Corpus", "parser") where url.pathExtension != "txt" {
            // Sensor Logger writes one CSV per sensor: the file's name says which
            let name = url.lastPathComponent
            let sensor: LoggedSensor? =
                !name.hasPrefix("sensorlogger-")
                ? nil : name.contains("orientation") ? .orientation : .totalAcceleration
            var p = SensorParser(options: .init(sensor: sensor))
            let text = try String(contentsOf: url, encoding: .utf8)
            var frames = 0
            for l in text.split(separator: "\n") where p.parse(String(l), into: &frame) == .frame { frames += 1 }
            XCTAssertGreaterThan(frames, 0, url.lastPathComponent)
        }
        let batch = try Data(contentsOf: Self.fuzzFolder.appendingPathComponent("Corpus/push/batch.json"))
        XCTAssertEqual(try batch.withUnsafeBytes { try SensorLoggerBatch.decode($0) }.samples.count, 5)
    }
}
