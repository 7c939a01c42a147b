import Foundation
import TestSupport
import XCTest
@testable import SensorWahCore

final class MotionAllocationTests: XCTestCase {
    /// Parse, motion stage (fusion, gestures) and mapper with tilt, zero, note, toggle and hold
    /// mappings: no allocation per line once running. Optimised builds only (tools/test's release step).
    func testParseMotionAndMapAllocatesNothing() throws {
        #if DEBUG
            throw XCTSkip("allocation-freedom is a property of optimised builds: tools/test runs this in release")
        #else
            let phone = try String(
                contentsOf: repoRoot.appendingPathComponent("Recordings/wrist-wah-phone.csv"), encoding: .utf8
            )
            .split(separator: "\n").map(String.init)
            var parser = SensorParser()
            var frame = SensorFrame()
            _ = parser.parse(phone[0], into: &frame)
            var stage = MotionStage()
            stage.captureRest()
            var mapper = Mapper(
                mappings: try [
                    "tilt.x zero cc=12", "tilt.pitch cc=13 hold=shake relative", "tap note=38 length=100",
                    "flick toggle=80", "accel.x cc=11"
                ].map { try Mapping(parsing: $0) })
            let lines = phone.dropFirst().map { Array($0.utf8) }
            var sink = 0
            for l in lines.prefix(10) {
                if l.withUnsafeBytes({ parser.parse($0, into: &frame) }) == .frame { stage.process(&frame) }
            }
            let allocations = Allocations.least {
                for l in lines.dropFirst(10) {
                    if l.withUnsafeBytes({ parser.parse($0, into: &frame) }) == .frame {
                        stage.process(&frame)
                        mapper.process(frame) { sink &+= Int($0.midi!.value) }
                    }
                }
                mapper.rest(at: 100) { sink &+= Int($0.midi!.value) }
            }
            XCTAssertGreaterThan(sink, 0)
            XCTAssertEqual(
                allocations.least, 0,
                "allocations in parse + motion + map over \(lines.count - 10) lines, by round: \(allocations.counts)")
        #endif
    }

    /// The same with gestures and a pose taught by example (ten gestures of five examples each,
    /// a pose of two points) and mappings reading them: no allocation per line once running.
    func testTaughtGesturesMotionAndMapAllocatesNothing() throws {
        #if DEBUG
            throw XCTSkip("allocation-freedom is a property of optimised builds: tools/test runs this in release")
        #else
            let phone = try String(
                contentsOf: repoRoot.appendingPathComponent("Recordings/wrist-wah-phone.csv"), encoding: .utf8
            )
            .split(separator: "\n").map(String.init)
            var parser = SensorParser()
            var frame = SensorFrame()
            _ = parser.parse(phone[0], into: &frame)
            var settings = MotionSettings()
            settings.learned = LearnedModel(
                gestures: Self.model(gestures: 10, examples: 5),
                poses: [
                    PoseSet(
                        name: "wah",
                        points: [
                            .init(gravity: Vector3(0.87, 0, -0.5), value: 1),
                            .init(gravity: Vector3(-0.87, 0, -0.5), value: 0)
                        ])
                ])
            var stage = MotionStage(settings: settings)
            var mappings = try ["gesture:g3 note=60", "gesture:g7.progress cc=20", "pose:wah cc=11"].map {
                try Mapping(parsing: $0)
            }
            XCTAssertNil(LearnedModel.resolve(&mappings, against: settings.learned))
            var mapper = Mapper(mappings: mappings)
            let lines = phone.dropFirst().map { Array($0.utf8) }
            var sink = 0
            for l in lines.prefix(10) {
                if l.withUnsafeBytes({ parser.parse($0, into: &frame) }) == .frame { stage.process(&frame) }
            }
            let allocations = Allocations.least {
                for l in lines.dropFirst(10) {
                    if l.withUnsafeBytes({ parser.parse($0, into: &frame) }) == .frame {
                        stage.process(&frame)
                        mapper.process(frame) { sink &+= Int($0.midi!.value) }
                    }
                }
            }
            XCTAssertGreaterThan(sink, 0)
            XCTAssertEqual(
                allocations.least, 0,
                "allocations with taught gestures over \(lines.count - 10) lines, by round: \(allocations.counts)")
        #endif
    }

    /// A model of `gestures` names with `examples` examples each, 0.6-1.2 s long, of made-up
    /// feature frames (what recognising costs does not depend on what the examples hold).
    static func model(gestures: Int, examples: Int) -> GestureModel {
        var m = GestureModel()
        var seed: UInt64 = 12345
        func rand() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        for g in 0..<gestures {
            var c = GestureModel.Class(name: "g\(g)", threshold: 0.2, gyro: true)
            for e in 0..<examples {
                let frames = 30 + (g * 7 + e * 5) % 31
                c.examples.append(.init(values: (0..<(frames * GestureFeatures.dims)).map { _ in rand() }))
            }
            m.classes.append(c)
        }
        return m
    }
}
