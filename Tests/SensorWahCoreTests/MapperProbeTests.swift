import XCTest
@testable import SensorWahCore

/// The live view's hooks in the mapper: the probe (raw, smoothed, sent) and solo.
final class MapperProbeTests: XCTestCase {
    func frame(_ t: Double, x: Double, y: Double) -> SensorFrame {
        var f = SensorFrame()
        f.newGroups = SensorGroup.accelerometer.bit
        f.times[SensorGroup.accelerometer.rawValue] = t
        f[.accelX] = x
        f[.accelY] = y
        return f
    }

    func testProbeShowsTheLastRawSmoothedAndSentValues() throws {
        var m = try Mapping(parsing: "accel.x cc=11 speed=none")
        m.smoothing = 0
        var mapper = Mapper(mappings: [m])
        XCTAssertTrue(mapper.probe(0).raw.isNaN)
        XCTAssertEqual(mapper.probe(0).output, -1)
        mapper.process(frame(0, x: 1.5, y: 0)) { _ in }  // clamped to 1
        let p = mapper.probe(0)
        XCTAssertEqual(p.raw, 1.5)
        XCTAssertEqual(p.smoothed, 1)
        XCTAssertEqual(p.output, 127)
    }

    func testProbeCountsTheOutliersEachMappingDropped() throws {
        let a = try Mapping(parsing: "accel.x cc=11 reject=1.5 speed=none smooth=0")
        let b = try Mapping(parsing: "accel.y cc=12 speed=none smooth=0")
        var mapper = Mapper(mappings: [a, b])
        mapper.process(frame(0, x: 0.2, y: 0.2)) { _ in }
        mapper.process(frame(0.01, x: 8, y: 0.3)) { _ in }  // a spike on x only
        XCTAssertEqual(mapper.probe(0).rejected, 1)
        XCTAssertEqual(mapper.probe(0).raw, 8)  // the probe still saw it
        XCTAssertEqual(mapper.probe(0).output, Mapper.normalise(0.2, a))  // nothing sent for it
        XCTAssertEqual(mapper.probe(1).rejected, 0)
        XCTAssertEqual(mapper.stats.outliers, 1)
    }

    func testSoloLetsOnlyThatMappingSend() throws {
        let a = try Mapping(parsing: "accel.x cc=11 speed=none smooth=0")
        let b = try Mapping(parsing: "accel.y cc=12 speed=none smooth=0")
        var mapper = Mapper(mappings: [a, b])
        var sent: [Int] = []
        mapper.solo = 1
        mapper.process(frame(0, x: 1, y: 1)) { sent.append(Int($0.midi!.controller)) }
        mapper.process(frame(0.01, x: -1, y: -1)) { sent.append(Int($0.midi!.controller)) }
        XCTAssertEqual(sent, [12, 12])
        mapper.solo = -1
        sent = []
        mapper.process(frame(0.02, x: 0.5, y: 0.5)) { sent.append(Int($0.midi!.controller)) }
        XCTAssertEqual(sent, [11, 12])
    }
}
