import XCTest
@testable import SensorWahCore

/// Live teaching's capture (`TeachCapture`): presses timed by the arrival clock land on the
/// sensor's clock; a press during or up to a second after a stroke teaches that stroke; two
/// presses on one stroke teach it once; a pose is the orientation held before its press.
final class TeachCaptureTests: XCTestCase {
    func testPressesJustAfterEachStrokeTeachTheSameExamplesAsMarksAtTheirPeaks() {
        let take = SimTake.make(.tt, seed: 900)
        let frames = take.frames(rate: 100, gyro: true, seed: 5)
        var capture = TeachCapture(name: "stroke", kind: .gesture)
        // the frames arrive 10 ms apart on a clock of their own, starting at 7 s
        let start: UInt64 = 7_000_000_000
        var arrivals: [UInt64] = []
        for (i, f) in frames.enumerated() {
            let at = start + UInt64(i) * 10_000_000
            capture.add(f, arrived: at)
            arrivals.append(at)
        }
        let t0 = capture.times[0]
        // presses 0.2-0.9 s after each of the first four peaks (a hand on a key after the
        // stroke), and a second press 0.3 s after one of them
        let labels = Array(take.labels.prefix(4))
        let lags = [0.2, 0.5, 0.9, 0.4]
        func nanos(at sensorTime: Double) -> UInt64 {
            let i = capture.times.firstIndex { $0 >= sensorTime }!
            return capture.arrivals[i] + 1
        }
        for (l, lag) in zip(labels, lags) { XCTAssertTrue(capture.press(at: nanos(at: l + lag))) }
        capture.press(at: nanos(at: labels[1] + 0.8))
        XCTAssertEqual(capture.presses.count, 5)
        XCTAssertEqual(
            capture.presses[0], labels[0] + 0.2, accuracy: 0.011,
            "a press lands on the sensor time of the last frame before it")

        var live = LearnedModel()
        let outcome = capture.teach(into: &live, origin: "live")
        print("TeachCaptureTests: \(outcome.lines)")
        XCTAssertEqual(outcome.taught, 4, "\(outcome.lines)")
        XCTAssertTrue(outcome.lines[4].contains("the same movement as an earlier press, taught once"), outcome.lines[4])

        var marked = GestureModel()
        let t = LearnedGestureTests.take(frames)
        marked.teach(times: t.times, accel: t.accel, gyro: t.gyro, marks: labels.map { ($0 - t0, "stroke") })
        let a = live.gestures.classes[0].examples.map(\.duration), b = marked.classes[0].examples.map(\.duration)
        XCTAssertEqual(a.count, 4)
        for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: 0.04, "live \(a) vs marked \(b)") }
        // no press before any reading, nothing taught
        var empty = TeachCapture(name: "x", kind: .gesture)
        XCTAssertFalse(empty.press(at: 5))
        var none = LearnedModel()
        XCTAssertEqual(empty.teach(into: &none, origin: "live").taught, 0)
    }

    func testAPoseIsTheOrientationHeldBeforeItsPress() {
        var capture = TeachCapture(name: "wah", kind: .pose(value: 0.75))
        let roll = 0.5
        for i in 0..<200 {
            var f = SensorFrame()
            let t = Double(i) / 100
            // rolled for the first second, then turning away
            let a = t < 1 ? roll : roll + (t - 1) * 1.5
            f.newGroups = SensorGroup.accelerometer.bit | SensorGroup.derived.bit
            f.times[SensorGroup.accelerometer.rawValue] = t
            f.times[SensorGroup.derived.rawValue] = t
            f[.accelX] = sin(a); f[.accelY] = 0; f[.accelZ] = -cos(a)
            f[.tiltX] = sin(a); f[.tiltY] = 0; f[.tiltZ] = -cos(a)
            capture.add(f, arrived: UInt64(i) * 10_000_000)
        }
        capture.press(at: 99 * 10_000_000)  // at 0.99 s: held since 0.39 s
        var model = LearnedModel()
        let o = capture.teach(into: &model, origin: "live")
        XCTAssertEqual(o.taught, 1, "\(o.lines)")
        XCTAssertEqual(model.poses.count, 1)
        let p = model.poses[0].points[0]
        XCTAssertEqual(p.value, 0.75)
        XCTAssertEqual(p.gravity.x, sin(roll), accuracy: 1e-6)
        XCTAssertTrue(o.lines[0].contains("held within 0°"), o.lines[0])
        // pressed while turning: taught, with a warning
        capture.press(at: 180 * 10_000_000)
        let o2 = capture.teach(into: &model, origin: "live")
        XCTAssertTrue(o2.lines[1].contains("the wrist moved"), o2.lines[1])
    }
}
