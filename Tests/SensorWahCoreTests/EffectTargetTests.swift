import XCTest
@testable import SensorWahCore

/// `fx=EFFECT.PARAM` mapping targets: the syntax, resolution against a chain's parameters,
/// and the events the mapper sends (slot, position over the parameter's whole range).
final class EffectTargetTests: XCTestCase {
    /// wah 0-7, tremolo 8-12 (rate 9: 0.05-20 Hz), delay 13-18 (bypass 13).
    let chain = try! EffectChainSpec(parsing: "wah > tremolo > delay")

    func testSyntaxReadsBackAndRefusesWhatDoesNotFit() throws {
        let m = try Mapping(parsing: "tilt.y fx=tremolo.rate to=1..8 unipolar smooth=60")
        guard case .effect(let t) = m.target else { return XCTFail("not an effect target: \(m.target)") }
        XCTAssertEqual(t.address, "tremolo.rate")
        XCTAssertEqual(t.low, 1); XCTAssertEqual(t.high, 8)
        XCTAssertFalse(t.toggle)
        XCTAssertEqual(try Mapping(parsing: m.syntax), m)
        let toggle = try Mapping(parsing: "flick fx=delay.bypass toggle")
        XCTAssertTrue(toggle.target.isTrigger)
        XCTAssertEqual(try Mapping(parsing: toggle.syntax), toggle)

        func refused(_ text: String, _ words: String) {
            XCTAssertThrowsError(try Mapping(parsing: text), text) { e in
                XCTAssertTrue("\(e)".contains(words), "\(text): \(e)")
            }
        }
        refused("tilt.y fx=tremolo", "EFFECT.PARAM")
        refused("tilt.y fx=tremolo.rate cc=11", "one target per mapping")
        refused("tilt.y fx=tremolo.rate to=1", "LO..HI")
        refused("tilt.y fx=tremolo.rate to=3..3", "LO..HI")
        refused("tilt.y fx=tremolo.rate ch=2", "not sent on a MIDI channel")
        refused("tilt.y cc=11 to=1..8", "only an effect parameter")
        refused("flick cc=11 toggle", "bare toggle")
        refused("tilt.y fx=delay.bypass toggle", "gesture source")
    }

    func testResolutionFillsTheSlotAndRefusesAParameterNotInTheChain() throws {
        var ms = [try Mapping(parsing: "tilt.y fx=tremolo.rate to=1..8"), try Mapping(parsing: "tilt.x cc=11")]
        try Mapping.resolveEffectTargets(&ms, chain: chain)
        guard case .effect(let t) = ms[0].target else { return XCTFail() }
        XCTAssertEqual(t.slot, 9); XCTAssertEqual(t.minimum, 0.05); XCTAssertEqual(t.maximum, 20)

        var bad = [try Mapping(parsing: "tilt.y fx=phaser.rate")]
        XCTAssertThrowsError(try Mapping.resolveEffectTargets(&bad, chain: chain)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("fx=phaser.rate is not a parameter of the chain (wah > tremolo > delay)"), text)
            XCTAssertTrue(text.contains("tremolo.bypass, tremolo.rate, tremolo.depth"), text)
        }
        var outside = [try Mapping(parsing: "tilt.y fx=tremolo.rate to=1..80")]
        XCTAssertThrowsError(try Mapping.resolveEffectTargets(&outside, chain: chain)) { e in
            XCTAssertTrue("\(e)".contains("outside tremolo.rate's range 0.05..20 Hz"), "\(e)")
        }
    }

    /// The mapper's range, curve and bipolar centre work as for a controller; the event says
    /// where in the parameter's whole range the value lies.
    func testEventsCarryTheSlotAndThePositionInTheParametersRange() throws {
        var ms = [try Mapping(parsing: "accel.x fx=tremolo.rate to=1..8 range=0..1 unipolar smooth=0")]
        try Mapping.resolveEffectTargets(&ms, chain: chain)
        var mapper = Mapper(mappings: ms)
        var events: [EffectControl] = []
        for (k, x) in [0.0, 0.5, 1.0].enumerated() {
            var f = SensorFrame()
            f.newGroups = SensorGroup.accelerometer.bit
            f.times[SensorGroup.accelerometer.rawValue] = Double(k) * 0.1
            f[.accelX] = x
            mapper.process(f) { events.append($0.effect!) }
        }
        let parameters = events.compactMap { c -> (slot: Int, position: UInt16)? in
            guard case .parameter(let slot, let position) = c.action else { return nil }
            return (slot, position)
        }
        XCTAssertEqual(parameters.count, 3)
        XCTAssertEqual(parameters.map(\.slot), [9, 9, 9])
        let values = parameters.map { EffectTarget.value(position: $0.position, minimum: 0.05, maximum: 20) }
        XCTAssertEqual(values[0], 1, accuracy: 0.001)
        XCTAssertEqual(values[1], 4.5, accuracy: 0.001)
        XCTAssertEqual(values[2], 8, accuracy: 0.001)
        XCTAssertEqual(JSONLine.string(events[2]), "{\"t\":0.200,\"type\":\"fx\",\"slot\":9,\"position\":26115}")
    }

    /// A toggle flips between the span's ends, starting at the high end; silence leaves it
    /// where it was put (like the wah's switch).
    func testAToggleFlipsAndStaysWhereItWasPut() throws {
        var ms = [try Mapping(parsing: "flick fx=delay.bypass toggle")]
        try Mapping.resolveEffectTargets(&ms, chain: chain)
        var mapper = Mapper(mappings: ms)
        var events: [EffectControl] = []
        for (t, s) in [(0.0, 15.0), (0.5, 0.0), (1.0, 20.0), (1.5, 0.0), (2.0, 18.0)] {
            var f = SensorFrame()
            f.newGroups = SensorGroup.derived.bit
            f.times[SensorGroup.derived.rawValue] = t
            f[.flick] = s
            mapper.process(f) { events.append($0.effect!) }
        }
        mapper.rest(at: 3) { events.append($0.effect!) }
        XCTAssertEqual(
            events.map(\.action),
            [
                .parameter(slot: 13, position: 65535), .parameter(slot: 13, position: 0),
                .parameter(slot: 13, position: 65535)
            ])
    }
}
