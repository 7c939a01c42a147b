import Foundation
import XCTest
@testable import SensorWahCore

/// Four classes taught from one take and recognised in the next, accelerometer only: the
/// protocol the project is checked by on other people's labelled takes. Two simulated sets
/// whose classes differ in direction and shape more than in force (unlike table tennis, tennis
/// and boxing): four tennis strokes (forehand, backhand, serve, volley; ball impacts of 8-40 G)
/// and four arm gestures made with a phone (circle, wave, raise, push; hand acceleration about
/// 0.2-3.5 G, no impact). Each class is taught
/// from the first three of its movements in a take where the four are mixed in random order;
/// two other takes are recognised. Scored one-to-one per class (a firing of the wrong class is
/// a false alarm and a miss), and "right class": of all labelled movements, the share that got
/// a firing of their own class.
final class FourClassGestureTests: XCTestCase {
    /// One teaching seed per set, at 50 and 100 Hz, asserted at about the level reached (so a
    /// change that loses it fails): mean per-class F1 ≥ 0.8, each class ≥ 0.65, the right class
    /// for at least three movements in four, nothing on the distractor take. The aim is 0.85
    /// per class; on this teaching set the arm gestures' mean is 0.82 at 50 Hz, and wave and
    /// volley reach 0.70-0.83 (over many teaching sets push and raise are the weakest:
    /// docs/gestures.md).
    func testFourClassesFromOneTakeToTheNext() {
        for set in [SimTake.tennis4, SimTake.arm4] {
            for hz in [50.0, 100] {
                let s = Self.score(set, teach: 3, recognise: [4, 5], hz: hz, marks: .peak)
                print("four classes \(set.map(\.rawValue).joined(separator: ",")) at \(Int(hz)) Hz: \(s)")
                XCTAssertGreaterThanOrEqual(s.f1.reduce(0, +) / Double(s.f1.count), 0.8, "\(s)")
                for (k, f) in s.f1.enumerated() {
                    XCTAssertGreaterThanOrEqual(f, 0.65, "\(set[k]) at \(Int(hz)) Hz: \(s)")
                }
                XCTAssertGreaterThanOrEqual(s.rightClass, 0.75, "\(s)")
                XCTAssertEqual(s.distractors, 0, "\(s)")
            }
        }
    }

    struct Result: CustomStringConvertible {
        var hits: [Int], falseAlarms: [Int], misses: [Int]
        var labels = 0, distractors = 0
        /// Per class: movements found with that class alone in the model (what competition costs).
        var alone: [Int]
        var f1: [Double] {
            hits.indices.map { k in
                let p = Double(hits[k]) / Double(max(1, hits[k] + falseAlarms[k])),
                    r = Double(hits[k]) / Double(max(1, hits[k] + misses[k]))
                return p + r == 0 ? 0 : 2 * p * r / (p + r)
            }
        }
        var rightClass: Double { Double(hits.reduce(0, +)) / Double(max(1, labels)) }
        var description: String {
            let per = hits.indices.map {
                String(format: "%.2f (h%d f%d m%d)", f1[$0], hits[$0], falseAlarms[$0], misses[$0])
            }
            return "F1 " + per.joined(separator: " ")
                + String(format: ", right class %.2f, distractors %d; alone ", rightClass, distractors)
                + alone.map(String.init).joined(separator: " ")
        }
    }

    /// Where a teaching mark falls: at the movement's peak, or anywhere inside it.
    enum Marks { case peak, anywhere }

    /// Teaches `set` from the first `per` movements of each class of take `teach`, recognises
    /// takes `recognise` (seeds), all at `hz`, accelerometer only; and the distractor take.
    static func score(
        _ set: [SimTake.Movement], teach: UInt64, per: Int = 3, recognise: [UInt64], hz: Double, marks: Marks
    ) -> Result {
        let lesson = SimTake.mixed(set, perClass: per + 1, seed: teach)
        let t = LearnedGestureTests.take(lesson.take.frames(rate: hz, gyro: false, seed: teach + 1000))
        var rng = SeededRandom(seed: teach &* 31 &+ 7)
        var model = GestureModel(), taught = [Int](repeating: 0, count: set.count), m: [(Double, String)] = []
        for (i, l) in lesson.take.labels.enumerated() where taught[lesson.classes[i]] < per {
            taught[lesson.classes[i]] += 1
            let at: Double
            switch marks {
            case .peak: at = l
            case .anywhere:
                let span = lesson.spans[i]
                at = span.lowerBound + (span.upperBound - span.lowerBound) * Double(rng.next() % 1000) / 1000
            }
            m.append((at - t.times[0], set[lesson.classes[i]].rawValue))
        }
        model.teach(times: t.times, accel: t.accel, gyro: t.gyro, marks: m)
        // the model's classes are in the order first taught; fires are counted by the set's order
        let order = set.map { model.index(of: $0.rawValue) ?? -1 }
        guard !order.contains(-1) else {
            XCTFail(
                "teach \(teach): a class taught nothing (\(set.map(\.rawValue)) against \(model.classes.map(\.name)))")
            let zeros = [Int](repeating: 0, count: set.count)
            return Result(hits: zeros, falseAlarms: zeros, misses: zeros, alone: zeros)
        }
        let zeros = [Int](repeating: 0, count: set.count)
        var r = Result(hits: zeros, falseAlarms: zeros, misses: zeros, alone: zeros)
        for seed in recognise {
            let take = SimTake.mixed(set, perClass: 6, seed: seed)
            let played = LearnedGestureTests.take(take.take.frames(rate: hz, gyro: false, seed: seed + 1000))
            let fires = LearnedGestureTests.recognise(model, played).fires
                .map { (time: $0.time, cls: order.firstIndex(of: $0.cls)!, strength: $0.strength) }
            var used = Set<Int>()
            for k in set.indices {
                let mine = take.take.labels.indices.filter { take.classes[$0] == k }.map { take.take.labels[$0] }
                let paired = LearnedGestureTests.pair(mine, fires, cls: k)
                for j in paired.compactMap({ $0 }) { used.insert(j) }
                r.hits[k] += paired.compactMap { $0 }.count
                r.misses[k] += paired.filter { $0 == nil }.count
            }
            for j in fires.indices where !used.contains(j) { r.falseAlarms[fires[j].cls] += 1 }
            for k in set.indices {
                let one = GestureModel(classes: [model.classes[order[k]]])
                let mine = take.take.labels.indices.filter { take.classes[$0] == k }.map { take.take.labels[$0] }
                let found = LearnedGestureTests.recognise(one, played).fires
                r.alone[k] += LearnedGestureTests.pair(mine, found).compactMap { $0 }.count
            }
            r.labels += take.take.labels.count
        }
        let n = SimTake.make(.negatives, seed: teach + 77)
        r.distractors =
            LearnedGestureTests.recognise(
                model, LearnedGestureTests.take(n.frames(rate: hz, gyro: false, seed: teach + 78))
            ).fires.count
        return r
    }

    /// Many teaching seeds, marks at the peak and anywhere inside the movement (about 90 s in a
    /// debug build, so not in every run; its lines start with `score4`):
    ///   SENSORWAH_GESTURE_SCORE=1 swift test --filter FourClassGestureTests
    func testScoreOnManyTakes() throws {
        guard ProcessInfo.processInfo.environment["SENSORWAH_GESTURE_SCORE"] != nil else {
            throw XCTSkip("set SENSORWAH_GESTURE_SCORE=1 to score four taught classes on many simulated takes")
        }
        for set in [SimTake.tennis4, SimTake.arm4] {
            for marks in [Marks.peak, .anywhere] {
                var f1: [Double] = [], right: [Double] = [], distractors = 0
                for teach in [10, 20, 30, 40, 50, 60] as [UInt64] {
                    let s = Self.score(set, teach: teach, recognise: [teach + 1, teach + 2], hz: 100, marks: marks)
                    print("score4 \(set[0].rawValue)… marks \(marks) teach \(teach): \(s)")
                    f1 += s.f1; right.append(s.rightClass); distractors += s.distractors
                }
                print(
                    String(
                        format:
                            "score4 \(set[0].rawValue)… marks \(marks): mean per-class F1 %.3f min %.2f, right class mean %.2f min %.2f, distractor firings %d",
                        f1.reduce(0, +) / Double(f1.count), f1.min()!, right.reduce(0, +) / Double(right.count),
                        right.min()!, distractors))
            }
        }
    }
}

// MARK: - movements of the four-class sets

extension SimTake {
    enum Movement: String { case forehand, backhand, serve, volley, circle, wave, raise, push }
    static let tennis4: [Movement] = [.forehand, .backhand, .serve, .volley]
    static let arm4: [Movement] = [.circle, .wave, .raise, .push]

    /// A take of `perClass` movements of each of `set`, in random order, with pauses between;
    /// per label its class (index into `set`) and the span of the movement (seconds).
    static func mixed(_ set: [Movement], perClass: Int, seed: UInt64) -> (
        take: SimTake, classes: [Int], spans: [ClosedRange<Double>]
    ) {
        var rng = SeededRandom(seed: seed &* 6364136223846793005 &+ 1442695040888963407)
        func u(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() % 1_000_000) / 1_000_000 }
        func dir(_ x: Double, _ y: Double, _ z: Double, _ spread: Double) -> Vector3 {
            let v = Vector3(x, y, z), r = Vector3(u(-1, 1), u(-1, 1), u(-1, 1))
            return v / v.length + r * spread
        }
        var order = set.indices.flatMap { [Int](repeating: $0, count: perClass) }
        order.shuffle(using: &rng)
        var take = SimTake(duration: 0)
        take.start = Quaternion.attitude(pitch: u(0.2, 0.4), roll: u(-0.3, -0.1), yaw: 0)
        var classes: [Int] = [], spans: [ClosedRange<Double>] = []
        var t = 1.5
        for k in order {
            // each movement: its preparation from t, the labelled moment, its end
            let (label, span) = take.add(set[k], at: t, u: u, dir: dir)
            take.labels.append(label); classes.append(k); spans.append(span)
            t = span.upperBound + u(0.7, 1.4)
        }
        take.duration = t + 1
        return (take, classes, spans)
    }

    /// Adds one movement starting at `t`; returns its labelled moment (peak hand speed) and
    /// the span of the movement proper (without the return to rest).
    mutating func add(
        _ m: Movement, at t: Double, u: (Double, Double) -> Double, dir: (Double, Double, Double, Double) -> Vector3
    ) -> (Double, ClosedRange<Double>) {
        switch m {
        case .forehand, .backhand:
            // a swing on a circle in the horizontal plane, the wrist turning with it (the
            // backhand the other way round, the forearm pronated first), the ball at peak speed
            let s: Double = m == .forehand ? 1 : -1
            let t0 = t + 0.75
            let T = u(0.32, 0.48), ang = u(120, 170) * .pi / 180, r = u(0.5, 0.7)
            let pronate = m == .backhand ? u(1.0, 1.6) : 0, back = u(1.0, 1.5)
            turn(t, 0.6, pronate, Vector3(1, 0, 0))
            turn(t, 0.6, -s * back, Vector3(0, 0, 1))
            arc(t0, T, ang, r, Vector3(1, 0, 0), Vector3(0, s, 0))
            turn(t0, T, s * ang, Vector3(0.2, 0.3, 1))
            let ti = t0 + T / 2
            pulse(ti, u(0.002, 0.004), u(10, 35), dir(0, s, 0.2, 0.3))
            move(t0 + T + 0.05, 0.6, 0.3, Vector3(-1, 0, 0.3))
            // back to the ready position
            turn(t0 + T + 0.7, 0.6, -s * ang, Vector3(0.2, 0.3, 1))
            turn(t0 + T + 0.7, 0.6, s * back, Vector3(0, 0, 1))
            turn(t0 + T + 0.7, 0.6, -pronate, Vector3(1, 0, 0))
            return (ti, t...(t0 + T + 0.3))
        case .serve:
            // the racket raised overhead (the device pitched up), then a fast arc forward and down
            let up = u(1.5, 2.0), t0 = t + 0.9
            turn(t, 0.8, -up, Vector3(0, 1, 0))
            move(t, 0.8, u(0.4, 0.6), Vector3(0, 0, 1))
            let T = u(0.28, 0.38), ang = u(130, 160) * .pi / 180, r = u(0.6, 0.75)
            arc(t0, T, ang, r, Vector3(0, 0, 1), Vector3(1, 0, 0))
            turn(t0, T, ang, Vector3(0, 1, 0.2))
            let ti = t0 + T * 0.4
            pulse(ti, u(0.002, 0.004), u(15, 40), dir(1, 0, 0.3, 0.3))
            move(t0 + T + 0.1, 0.7, u(0.4, 0.6), Vector3(0, 0, -1))
            turn(t0 + T + 0.1, 0.8, up - ang, Vector3(0, 1, 0.2))
            return (ti, t...(t0 + T + 0.3))
        case .volley:
            // a short block forward, little swing, the ball meeting the racket
            let T = u(0.15, 0.22), D = u(0.15, 0.3), fwd = dir(1, 0.3, 0.3, 0.3), a = u(10, 30) * .pi / 180
            move(t, T, D, fwd)
            turn(t, T, a, Vector3(0, 0, 1))
            pulse(t + T * 0.6, u(0.002, 0.004), u(8, 20), fwd)
            move(t + T + 0.15, 0.5, D, fwd * -1)
            turn(t + T + 0.15, 0.5, -a, Vector3(0, 0, 1))
            return (t + T / 2, t...(t + T + 0.1))
        case .circle:
            // one turn of a circle drawn in the air in front, the phone in the hand
            let P = u(0.9, 1.3), r = u(0.12, 0.2), tilt = u(10, 25) * .pi / 180
            arc(t, P, 2 * .pi, r, Vector3(0, 1, 0), Vector3(0, 0, 1))
            turn(t, P / 2, tilt, Vector3(1, 0, 0))
            turn(t + P / 2, P / 2, -tilt, Vector3(1, 0, 0))
            return (t + P / 2, t...(t + P))
        case .wave:
            // waving: two swings side to side, the wrist rolling with them
            let f = u(1.5, 2.2), A = u(25, 40) * .pi / 180, x = u(0.06, 0.12), t1 = t + 2 / f
            wobbles.append(
                (
                    Vector3(1, 0, 0),
                    { s in s < t || s > t1 ? 0 : A * sin(2 * .pi * f * (s - t)) * sin(.pi * (s - t) / (t1 - t)) }
                ))
            accelTerms.append { s in
                guard s >= t && s <= t1 else { return .zero }
                return Vector3(0, 1, 0)
                    * (-x * pow(2 * .pi * f, 2) / 9.81 * sin(2 * .pi * f * (s - t)) * sin(.pi * (s - t) / (t1 - t)))
            }
            return (t + 1 / f, t...t1)
        case .raise:
            // the arm raised from the side to the front, held, lowered
            let T = u(0.6, 0.9), a = u(70, 100) * .pi / 180, D = u(0.3, 0.5), hold = u(0.3, 0.6)
            turn(t, T, -a, Vector3(0, 1, 0))
            move(t, T, D, dir(0.5, 0, 1, 0.2))
            turn(t + T + hold, T * 1.2, a, Vector3(0, 1, 0))
            move(t + T + hold, T * 1.2, D, Vector3(-0.5, 0, -1))
            return (t + T / 2, t...(t + T))
        case .push:
            // a push forward, a pause, back
            let T = u(0.35, 0.5), D = u(0.25, 0.4), fwd = dir(1, 0, 0.1, 0.3)
            move(t, T, D, fwd)
            move(t + T + u(0.2, 0.4), 0.6, D, fwd * -1)
            return (t + T / 2, t...(t + T))
        }
    }
}
