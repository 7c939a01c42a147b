import XCTest
@testable import SensorWahCore

/// The motion sources and options in the mapping syntax, and the stage that fills them.
final class MotionSyntaxTests: XCTestCase {
    func testTiltSourcesParseWithTheirDefaults() throws {
        let table: [(String, Quantity, Double, Double, Bool)] = [
            ("tilt.pitch", .tiltPitch, -90, 90, true), ("tilt.roll", .tiltRoll, -180, 180, true),
            ("tilt.x", .tiltX, -1, 1, true), ("tilt.y", .tiltY, -1, 1, true), ("tilt.z", .tiltZ, -1, 1, true),
            ("tilt.x zero", .zeroX, -1, 1, true), ("tilt.pitch zero", .zeroPitch, -90, 90, true),
            ("flick", .flick, 10, 30, false), ("shake", .shake, 2, 5, false), ("tap", .tap, 2, 6, false)
        ]
        for (text, q, lo, hi, bipolar) in table {
            let m = try Mapping(parsing: text)
            XCTAssertEqual(m.source, .axis(q), text)
            XCTAssertEqual(m.source.group, .derived, text)
            XCTAssertEqual(m.inputMin, lo, text); XCTAssertEqual(m.inputMax, hi, text)
            XCTAssertEqual(m.bipolar, bipolar, text)
            XCTAssertEqual(Source(parsing: m.source.description), m.source, "round trip of \(text)")
        }
        XCTAssertLessThanOrEqual(Quantity.count, 40)
        XCTAssertEqual(Quantity.allCases.count, Quantity.count)
    }

    /// Only mappings that read the stage's work (a derived source, a hold) need it run.
    func testNeedsMotionStageOnlyForDerivedSourcesAndHolds() throws {
        let table: [(String, Bool)] = [
            ("accel.x cc=1", false), ("gyro.z cc=2", false), ("quat.w cc=3", false),
            ("tilt.roll cc=1", true), ("tilt.x zero cc=1", true), ("flick note=40", true),
            ("accel.x cc=1 hold=shake", true), ("accel.y cc=1 hold=palm-up", true)
        ]
        for (text, needs) in table {
            XCTAssertEqual(try Mapping(parsing: text).needsMotionStage, needs, text)
        }
        let plain = try Mapping(parsing: "accel.x cc=11")
        XCTAssertFalse(Mapper(mappings: [plain]).needsMotionStage)
        XCTAssertTrue(Mapper(mappings: [.default]).needsMotionStage, "the default reads the fused tilt")
        XCTAssertTrue(Mapper(mappings: [plain, try Mapping(parsing: "tap note=38")]).needsMotionStage)
        XCTAssertTrue(Mapper(mappings: [plain, try Mapping(parsing: "quat.w cc=3")]).readsQuaternion)
        XCTAssertFalse(Mapper(mappings: [plain, try Mapping(parsing: "gravity.z cc=3")]).readsQuaternion)
    }

    /// A tilt mapping reads nothing without the motion stage, and the stage's value with it.
    func testMapperReadsDerivedValuesOnlyFromTheStage() throws {
        let q = Quaternion.attitude(pitch: 0, roll: 30 * .pi / 180, yaw: 0)
        let s = MotionScript(attitude: { _ in q })
        var mapper = Mapper(mappings: [try Mapping(parsing: "tilt.roll cc=1 smooth=0")])
        var plain: [MIDIEvent] = []
        for f in s.frames(rate: 50, duration: 1) { mapper.process(f) { plain.append($0.midi!) } }
        XCTAssertTrue(plain.isEmpty)
        var stage = MotionStage()
        var events: [MIDIEvent] = []
        for var f in s.frames(rate: 50, duration: 1) {
            stage.process(&f); mapper.process(f) { events.append($0.midi!) }
        }
        // 30° of roll on -180..180 bipolar: 64 + 30/180 * 63
        XCTAssertEqual(Double(events.last?.value ?? 0), 64 + 30.0 / 180 * 63, accuracy: 1)
    }

    /// Re-zero: the captured rest orientation reads as level, whatever it was.
    func testCaptureRestMakesThatOrientationLevel() {
        let mounted = Quaternion.attitude(pitch: 0.3, roll: -0.5, yaw: 0)
        let turn = { (t: Double) -> Double in 0.2 * min(max((t - 2) / 0.5, 0), 1) }
        let s = MotionScript(attitude: { t in mounted * Quaternion.rotation(Vector3(0, turn(t), 0)) })
        var stage = MotionStage()
        var atRest = SensorFrame(), later = SensorFrame()
        for var f in s.frames(rate: 50, duration: 4) {
            if abs(f.latestTime - 1.5) < 0.01 { stage.captureRest() }
            stage.process(&f)
            if abs(f.latestTime - 1.8) < 0.01 { atRest = f }
            later = f
        }
        XCTAssertNotNil(stage.restGravity)
        XCTAssertEqual(atRest[.zeroX], 0, accuracy: 0.01); XCTAssertEqual(atRest[.zeroY], 0, accuracy: 0.01)
        XCTAssertEqual(atRest[.zeroPitch], 0, accuracy: 0.5); XCTAssertEqual(atRest[.zeroRoll], 0, accuracy: 0.5)
        XCTAssertNotEqual(atRest[.tiltRoll], 0, accuracy: 10)
        // turning the wrist afterwards: the zeroed tilt is as far from level as the device is from its rest
        let zeroed = Vector3(later[.zeroX], later[.zeroY], later[.zeroZ])
        let moved = angleDegrees(s.attitude(4).gravity, mounted.gravity)
        XCTAssertEqual(angleDegrees(zeroed, Vector3(0, 0, -1)), moved, accuracy: 0.5)
        XCTAssertGreaterThan(moved, 8)
    }

    func testZeroGestureCapturesTheNextStillMoment() {
        var settings = MotionSettings()
        settings.zeroGesture = .tap
        var stage = MotionStage(settings: settings)
        let tilted = Quaternion.attitude(pitch: 0.4, roll: 0.2, yaw: 0)
        let s = MotionScript(
            attitude: { _ in tilted }, worldAccel: { t in abs(t - 2) < 0.006 ? Vector3(3, 0, 0) : .zero })
        var last = SensorFrame()
        for var f in s.frames(rate: 100, duration: 3.5) { stage.process(&f); last = f }
        XCTAssertEqual(stage.gestures.counts[Gesture.flick.rawValue], 0)
        XCTAssertEqual(stage.gestures.counts[Gesture.tap.rawValue], 1)
        XCTAssertNotNil(stage.restGravity)
        XCTAssertEqual(last[.zeroPitch], 0, accuracy: 0.5)
    }
}
