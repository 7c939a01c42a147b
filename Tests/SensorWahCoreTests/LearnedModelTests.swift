import XCTest
@testable import SensorWahCore

/// Poses by example (`PoseSet`), the `gesture:`/`pose:` sources and their slots, and the
/// motion stage carrying the taught gestures into frames.
final class LearnedModelTests: XCTestCase {
    func rotate(_ g: Vector3, about axis: Vector3, by a: Double) -> Vector3 {
        let k = axis / axis.length
        return g * cos(a) + k.cross(g) * sin(a) + k * k.dot(g) * (1 - cos(a))
    }

    /// Two poses: exact at each, linear in angle along the arc between them, held at the ends
    /// beyond them; the same whichever way the device is held around the arc's axis.
    func testTwoPosesInterpolateAlongTheArc() {
        let heel = Vector3(0, 0, -1), toe = rotate(heel, about: Vector3(1, 0, 0), by: 1.0)
        let p = PoseSet(name: "wah", points: [.init(gravity: heel, value: 10), .init(gravity: toe * 3, value: 90)])
        XCTAssertEqual(p.value(at: heel), 10, accuracy: 1e-9)
        XCTAssertEqual(p.value(at: toe), 90, accuracy: 1e-9)
        var last = -Double.infinity
        for k in 0...20 {
            let a = Double(k) / 20
            let v = p.value(at: rotate(heel, about: Vector3(1, 0, 0), by: a))
            XCTAssertEqual(v, 10 + 80 * a, accuracy: 1e-6)
            XCTAssertGreaterThan(v, last); last = v
        }
        XCTAssertEqual(
            p.value(at: rotate(heel, about: Vector3(1, 0, 0), by: 1.5)), 90, accuracy: 1e-9,
            "beyond the toe: the toe's value")
        XCTAssertEqual(
            p.value(at: rotate(heel, about: Vector3(1, 0, 0), by: -0.4)), 10, accuracy: 1e-9, "beyond the heel")
        // off the arc (turned about the other axis a little): still between, near the projection
        let off = rotate(rotate(heel, about: Vector3(1, 0, 0), by: 0.5), about: Vector3(0, 1, 0), by: 0.2)
        XCTAssertEqual(p.value(at: off), 50, accuracy: 6)
        XCTAssertTrue(p.value(at: Vector3(.nan, 0, 0)).isNaN)
    }

    /// Palm up and palm down: whichever way the wrist turns from one to the other, the value
    /// moves from one value to the other, half-way at a quarter turn; exactly opposite
    /// directions give no NaN.
    func testOppositePosesWorkEitherWayRound() {
        let up = Vector3(0, 0, -1), down = Vector3(0.02, 0, 1)
        let p = PoseSet(name: "palm", points: [.init(gravity: up, value: 0), .init(gravity: down, value: 1)])
        for axis in [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(-1, 0, 0)] {
            var last = -1.0
            for k in 0...18 {
                let v = p.value(at: rotate(up, about: axis, by: Double(k) * .pi / 18))
                XCTAssertGreaterThanOrEqual(v, last - 1e-9, "about \(axis)"); last = v
            }
            XCTAssertEqual(p.value(at: rotate(up, about: axis, by: .pi / 2)), 0.5, accuracy: 0.02)
        }
        let exact = PoseSet(
            name: "x", points: [.init(gravity: Vector3(0, 0, -1), value: 0), .init(gravity: Vector3(0, 0, 1), value: 1)]
        )
        XCTAssertEqual(exact.value(at: Vector3(1, 0, 0)), 0.5, accuracy: 1e-9)
        XCTAssertEqual(exact.value(at: Vector3(0, 0, 1)), 1, accuracy: 1e-9)
    }

    /// Three or more poses: exact at each, and between two of them the value moves monotonely.
    func testSeveralPosesAreExactAndMonotoneBetweenNeighbours() {
        let a = Vector3(0, 0, -1), b = rotate(a, about: Vector3(1, 0, 0), by: 0.8),
            c = rotate(a, about: Vector3(0, 1, 0), by: 0.8)
        let p = PoseSet(
            name: "x", points: [.init(gravity: a, value: 0), .init(gravity: b, value: 1), .init(gravity: c, value: 2)])
        XCTAssertEqual(p.value(at: a), 0); XCTAssertEqual(p.value(at: b), 1); XCTAssertEqual(p.value(at: c), 2)
        var last = -Double.infinity
        for k in 1..<20 {
            let v = p.value(at: rotate(a, about: Vector3(1, 0, 0), by: 0.8 * Double(k) / 20))
            XCTAssertGreaterThanOrEqual(v, last); last = v
        }
    }

    func testSourcesParseAndPrint() {
        for text in ["gesture:forehand", "gesture:forehand.progress", "pose:wah", "gesture:heel_toe-2"] {
            let s = Source(parsing: text)
            XCTAssertEqual(s?.description, text)
        }
        XCTAssertTrue(Source(parsing: "gesture:forehand")!.isTriggerSource)
        XCTAssertFalse(Source(parsing: "gesture:forehand.progress")!.isTriggerSource)
        XCTAssertFalse(Source(parsing: "pose:wah")!.isTriggerSource)
        for bad in ["gesture:", "gesture:a b", "pose:", "gesture:.progress", "pose:x/y"] {
            XCTAssertNil(Source(parsing: bad), bad)
        }
        XCTAssertThrowsError(try Mapping(parsing: "pose:wah note=60"))
        XCTAssertNoThrow(try Mapping(parsing: "gesture:forehand note=60"))
        XCTAssertNoThrow(try Mapping(parsing: "gesture:forehand fx=delay.bypass toggle"))
    }

    func testResolveGivesSlotsOrNamesWhatIsMissing() throws {
        var g = GestureModel()
        g.classes = [
            .init(name: "a", examples: [.init(values: [Double](repeating: 0, count: 12))], threshold: 0.1),
            .init(name: "Forehand", examples: [.init(values: [Double](repeating: 0, count: 12))], threshold: 0.1)
        ]
        let model = LearnedModel(
            gestures: g, poses: [PoseSet(name: "wah", points: [.init(gravity: Vector3(0, 0, -1), value: 0)])])
        var maps = try ["gesture:forehand note=60", "gesture:FOREHAND.progress cc=2", "pose:wah cc=11", "accel.x cc=1"]
            .map { try Mapping(parsing: $0) }
        XCTAssertNil(LearnedModel.resolve(&maps, against: model))
        let slots = maps.prefix(3).map { m -> Int in
            if case .learned(let l) = m.source { return l.slot } else { return -9 }
        }
        XCTAssertEqual(slots, [1, SensorFrame.learnedProgressBase + 1, SensorFrame.learnedPoseBase])
        var missing = [try Mapping(parsing: "gesture:backhand note=60")]
        XCTAssertEqual(
            LearnedModel.resolve(&missing, against: model, file: "m.yaml"),
            "gesture:backhand: no gesture 'backhand' in m.yaml (it has a, Forehand)")
        XCTAssertTrue(LearnedModel.resolve(&missing, against: nil)!.contains("needs --gestures FILE"))
        var pose = [try Mapping(parsing: "pose:heel cc=1")]
        XCTAssertEqual(LearnedModel.resolve(&pose, against: model), "pose:heel: no pose 'heel' (it has wah)")
    }

    /// The motion stage with a model: a taught movement fires once in the frames, on a frame
    /// that carried a reading, with progress up to 1; a frame without a reading carries no firing.
    func testMotionStageCarriesTaughtGesturesIntoFrames() {
        // a bump on x, taught once from a stream of frames
        func frames(bumps: [Double], until end: Double) -> [SensorFrame] {
            var out: [SensorFrame] = []
            var t = 0.0
            while t < end {
                var f = SensorFrame()
                f.newGroups = SensorGroup.accelerometer.bit
                f.times[SensorGroup.accelerometer.rawValue] = t
                var x = 0.0
                for b in bumps where t >= b && t < b + 0.5 { x += 1.5 * sin(2 * .pi * (t - b) / 0.5) }
                f[.accelX] = x; f[.accelY] = 0; f[.accelZ] = -1
                out.append(f)
                // a frame of the motion group alone, with no reading for the gestures
                var m = SensorFrame()
                m.newGroups = SensorGroup.motion.bit
                m.times[SensorGroup.motion.rawValue] = t + 0.005
                m[.userX] = 0; m[.userY] = 0; m[.userZ] = 0
                out.append(m)
                t += 0.01
            }
            return out
        }
        let teach = frames(bumps: [2, 5], until: 8)
        var times: [Double] = [], accel: [Vector3] = []
        for f in teach { if let r = LearnedReading.of(f) { times.append(r.time); accel.append(r.accel) } }
        var model = GestureModel()
        let found = model.teach(times: times, accel: accel, gyro: [], marks: [(2.25, "bump"), (5.25, "bump")])
        XCTAssertFalse(found.contains { $0 == nil })
        var settings = MotionSettings()
        settings.learned = LearnedModel(gestures: model)
        var stage = MotionStage(settings: settings)
        var fired: [Double] = [], firedWithoutReading = 0, maxProgress = 0.0
        for var f in frames(bumps: [3, 9], until: 12) {
            stage.process(&f)
            if f.learned[0] > 0 {
                if LearnedReading.of(f) == nil { firedWithoutReading += 1 }
                fired.append(f.latestTime)
            }
            if f.learned[SensorFrame.learnedProgressBase].isFinite {
                maxProgress = max(maxProgress, f.learned[SensorFrame.learnedProgressBase])
            }
        }
        XCTAssertEqual(fired.count, 2, "\(fired)")
        XCTAssertEqual(firedWithoutReading, 0)
        XCTAssertTrue(fired.allSatisfy { t in [3.0, 9.0].contains { t > $0 && t < $0 + 1.2 } }, "\(fired)")
        XCTAssertEqual(maxProgress, 1)
        // without a model the slots stay empty
        var plain = MotionStage()
        var f = teach[0]
        plain.process(&f)
        XCTAssertTrue(f.learned[0].isNaN)
    }
}
