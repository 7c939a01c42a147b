import Foundation
import MallocInterposerSwift
import XCTest
@testable import SensorWahCore

final class MotionAllocationTests: XCTestCase {
    /// Parse, motion stage (fusion, gestures) and mapper with tilt, zero, note, toggle and hold
    /// mappings: no allocation per line once running. Optimised builds only (tools/test's release step).
    func testParseMotionAndMapAllocatesNothing() throws {
        #if DEBUG
        throw XCTSkip("allocation-freedom is a property of optimised builds: tools/test runs this in release")
        #else
        let phone = try String(contentsOf: repoRoot.appendingPathComponent("Recordings/wrist-wah-phone.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        var parser = SensorParser()
        var frame = SensorFrame()
        _ = parser.parse(phone[0], into: &frame)
        var stage = MotionStage()
        stage.captureRest()
        var mapper = Mapper(mappings: try ["tilt.x zero cc=12", "tilt.pitch cc=13 hold=shake relative", "tap note=38 length=100",
                                           "flick toggle=80", "accel.x cc=11"].map { try Mapping(parsing: $0) })
        let lines = phone.dropFirst().map { Array($0.utf8) }
        var sink = 0
        for l in lines.prefix(10) { if l.withUnsafeBytes({ parser.parse($0, into: &frame) }) == .frame { stage.process(&frame) } }
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        for l in lines.dropFirst(10) {
            if l.withUnsafeBytes({ parser.parse($0, into: &frame) }) == .frame {
                stage.process(&frame)
                mapper.process(frame) { sink &+= Int($0.value) }
            }
        }
        mapper.rest(at: 100) { sink &+= Int($0.value) }
        MallocInterposerSwift.unhook()
        let stats = MallocInterposerSwift.getStatistics()
        XCTAssertGreaterThan(sink, 0)
        XCTAssertEqual(stats.mallocCount, 0, "allocations in parse + motion + map over \(lines.count - 10) lines")
        #endif
    }
}
