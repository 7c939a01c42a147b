import XCTest
@testable import SensorWahCore

/// `hold=GESTURE` freezes a mapping while the gesture lasts; `relative` moves on from the
/// frozen value, so movement accumulates like a ratchet (Genki Wave's relative mode).
final class HoldRelativeTests: XCTestCase {
    /// accel.x readings at 50 Hz; `shaking` marks the frames where the shake gesture is active.
    func run(_ mapping: String, _ steps: [(x: Double, shaking: Bool)]) throws -> [Int] {
        var mapper = Mapper(mappings: [try Mapping(parsing: mapping)])
        var values: [Int] = []
        for (k, s) in steps.enumerated() {
            var f = SensorFrame()
            f.newGroups = SensorGroup.accelerometer.bit
            f.times[0] = Double(k) * 0.02
            f[.accelX] = s.x
            f.activeGestures = s.shaking ? Gesture.shake.bit : 0
            var last = values.last ?? -1
            mapper.process(f) { last = Int($0.midi!.value) }
            values.append(last)
        }
        return values
    }

    /// up to 0.5, hold while the wrist goes back to 0.1, release, then up by 0.2
    var gesture: [(x: Double, shaking: Bool)] {
        [
            (0, false), (0.25, false), (0.5, false), (0.5, true), (0.3, true), (0.1, true), (0.1, false), (0.2, false),
            (0.3, false)
        ]
    }

    func testHoldFreezesAndAbsoluteJumpsBack() throws {
        let v = try run("accel.x cc=1 range=0..1 unipolar smooth=0 speed=none hold=shake", gesture)
        XCTAssertEqual(v[2], 64)
        XCTAssertEqual(Array(v[3...5]), [64, 64, 64], "frozen while shaking")
        XCTAssertEqual(v[6], 13, "absolute: where the sensor is")
        XCTAssertEqual(v[8], 38)
    }

    func testRelativeMovesOnFromTheFrozenValue() throws {
        let v = try run("accel.x cc=1 range=0..1 unipolar smooth=0 speed=none hold=shake relative", gesture)
        XCTAssertEqual(Array(v[2...6]), [64, 64, 64, 64, 64], "frozen, then continues from there")
        XCTAssertEqual(v[7], 76); XCTAssertEqual(v[8], 89, "0.5 + 0.2 of movement after the hold")
        // a ratchet: pushing past the top stores nothing, coming back moves down at once
        let up = try run(
            "accel.x cc=1 range=0..1 unipolar smooth=0 speed=none hold=shake relative",
            [(0.8, false), (0.8, true), (0.2, true), (0.2, false), (0.6, false), (0.5, false)])
        XCTAssertEqual(Array(up), [102, 102, 102, 102, 127, 114])
    }

    /// A held pose: turning the wrist palm up (the watch faces down) freezes `hold=palm-up`.
    func testPalmUpPoseFreezesTheMapping() throws {
        let s = MotionScript(attitude: { t in
            let u = min(max((t - 1) / 0.5, 0), 1) - min(max((t - 3) / 0.5, 0), 1)
            return Quaternion.attitude(pitch: 0.1, roll: 0.3 + u * 2.6, yaw: 0)
        })
        var stage = MotionStage()
        var mapper = Mapper(mappings: [try Mapping(parsing: "tilt.y cc=1 smooth=0 hold=palm-up")])
        var down: [Double] = [], values: [(Double, Int)] = []
        for var f in s.frames(rate: 50, duration: 5) {
            stage.process(&f)
            if f.activeGestures & Pose.palmUp.bit != 0 { down.append(f.latestTime) }
            mapper.process(f) { values.append((f.latestTime, Int($0.midi!.value))) }
        }
        XCTAssertGreaterThan(down.count, 50)
        XCTAssertGreaterThan(down.first!, 1.1); XCTAssertLessThan(down.last!, 3.5)
        XCTAssertTrue(values.allSatisfy { !(down.first!...down.last!).contains($0.0) }, "no value sent while palm up")
        XCTAssertEqual(try Mapping(parsing: "tilt.x hold=palm-up relative").holdPose, .palmUp)
    }

    func testSyntax() throws {
        let m = try Mapping(parsing: "tilt.x hold=shake relative")
        XCTAssertEqual(m.hold, .shake); XCTAssertTrue(m.relative)
        for (text, message) in [
            ("tilt.x relative", "needs hold=GESTURE"),
            ("tilt.x hold=wave", "hold is a gesture (flick, shake, tap) or a pose"),
            ("tilt.x hold=", "hold needs a value"), ("flick note=1 hold=shake", "cannot be held"),
            ("tilt.x hold=shake relative=1", "relative takes no value")
        ] {
            XCTAssertThrowsError(try Mapping(parsing: text), text) { e in
                XCTAssertTrue("\(e)".contains(message), "\(text): \(e)")
            }
        }
    }
}
