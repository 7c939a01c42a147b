import Foundation
import XCTest
@testable import SensorWahCore

/// The accelerometer flick with its defaults (the adaptive rule, `flickAdaptive=1`) on its own
/// (no gyro), fed readings at 100 Hz: a gentle player's strokes, a strong player's follow-through, footsteps and turns of
/// the device.
final class GestureFlickTests: XCTestCase {
    static let adaptive = GestureSettings()
    static var fixed: GestureSettings {
        var s = GestureSettings()
        s.flickAdaptive = 0
        return s
    }

    /// Feeds `reading(t)` (G, the device lying flat: gravity reads (0, 0, -1)) for `duration` s
    /// and returns the flick times.
    static func flicks(
        duration: Double, rate: Double = 100, settings: GestureSettings = adaptive, _ reading: (Double) -> Vector3
    ) -> [Double] {
        var d = GestureDetector(settings: settings)
        var out: [Double] = []
        for i in 0..<Int(duration * rate) {
            let t = Double(i) / rate
            let a = reading(t)
            d.beginFrame()
            d.accel(deviation: abs(a.length - 1), reading: a, at: t)
            if d.fired[Gesture.flick.rawValue] > 0 { out.append(t) }
        }
        return out
    }

    /// A push along x peaking at `peak` G: accelerate, then stop, over `length` s.
    static func push(_ t: Double, at t0: Double, peak: Double, length: Double = 0.3) -> Double {
        let u = (t - t0) / length
        return u >= 0 && u <= 1 ? peak * sin(2 * .pi * u) : 0
    }

    /// A gentle player: punches across gravity peaking at 1.8 G (the level's 40 ms average
    /// reaches about 1.6 G), every 1.5 s: one note each, before the push is over. The fixed
    /// flick (`flickAdaptive=0`, 3 G on | |a| - 1 G |) hears none of them.
    func testGentleStrokesFireOnceEach() {
        let starts = (0..<8).map { 1 + 1.5 * Double($0) }
        let notes = Self.flicks(duration: 13.5) { t in
            Vector3(starts.reduce(0) { $0 + Self.push(t, at: $1, peak: 1.8) }, 0, -1)
        }
        XCTAssertEqual(notes.count, starts.count, "\(notes)")
        for (n, s) in zip(notes, starts) { XCTAssertTrue((s...(s + 0.35)).contains(n), "\(notes)") }
        let fixed = Self.flicks(duration: 13.5, settings: Self.fixed) { t in
            Vector3(starts.reduce(0) { $0 + Self.push(t, at: $1, peak: 1.8) }, 0, -1)
        }
        XCTAssertEqual(fixed, [])
    }

    /// A strong player's stroke (8 G) and its follow-through 0.6 s later (2.5 G, above the
    /// default threshold): one note; the player's scale holds the threshold at half their
    /// stroke. Their next stroke, 2 s on, is a note again.
    func testAStrongPlayersFollowThroughIsNotASecondNote() {
        let notes = Self.flicks(duration: 5) { t in
            Vector3(
                Self.push(t, at: 1, peak: 8) + Self.push(t, at: 1.6, peak: 2.5) + Self.push(t, at: 3, peak: 8), 0, -1)
        }
        XCTAssertEqual(notes.count, 2, "\(notes)")
        if notes.count == 2 {
            XCTAssertEqual(notes[0], 1.1, accuracy: 0.15)
            XCTAssertEqual(notes[1], 3.1, accuracy: 0.15)
        }
    }

    /// Footsteps: bumps along gravity up to 1.2 G, two a second for 20 s; and turning the
    /// device 90° in 0.3 s and back (|a| stays 1 G, whatever its slow average lags): no note.
    func testFootstepsAndTurnsDoNotFire() {
        let steps = Self.flicks(duration: 20) { t in
            let phase = t.truncatingRemainder(dividingBy: 0.5) / 0.12
            let bump = phase < 1 ? 1.2 * sin(.pi * phase) * sin(.pi * phase) : 0
            return Vector3(0.1 * sin(2 * .pi * t), 0, -1 - bump)
        }
        XCTAssertEqual(steps, [], "footsteps")
        let turns = Self.flicks(duration: 8) { t in
            let k = (t - 1).truncatingRemainder(dividingBy: 2)
            let angle =
                t < 1 ? 0 : .pi / 2 * GestureTests.minJerk(k / 0.3) * (1 - GestureTests.minJerk((k - 0.8) / 0.3))
            return Vector3(sin(angle), 0, -cos(angle))
        }
        XCTAssertEqual(turns, [], "turns")
    }

    /// `flickAdaptive` reads back, 0 sets the fixed rule, and 1 the adaptive rule (the defaults) again.
    func testTheSwitchReadsBackAndSetsTheDefaultsAgain() {
        var s = Self.fixed
        XCTAssertEqual(s.flickAdaptive, 0)
        XCTAssertEqual(s.flickAccelThreshold, 3)
        XCTAssertEqual(s.flickPlayerScale, 0)
        s.flickAdaptive = 1
        XCTAssertEqual(s, GestureSettings())
        XCTAssertEqual(GestureSettings().flickAdaptive, 1)
    }

    /// A player who never plays above the threshold (pushes of 1.2 G) gets no notes: the
    /// threshold is what tells them from footsteps, and `flickAccelThreshold` lowers it.
    func testTheThresholdIsASetting() {
        let starts = [1.0, 2.5, 4.0]
        let reading = { (t: Double) in Vector3(starts.reduce(0) { $0 + Self.push(t, at: $1, peak: 1.2) }, 0, -1) }
        XCTAssertEqual(Self.flicks(duration: 5, reading), [])
        var settings = Self.adaptive
        settings.flickAccelThreshold = 0.8
        XCTAssertEqual(Self.flicks(duration: 5, settings: settings, reading).count, 3)
    }

    // ---- the return of a movement (a gyro and an accelerometer)

    /// Feeds readings and rotation rates (rad/s) at 100 Hz for `duration` s, the device lying
    /// flat, and returns the flick times.
    static func flicks(
        duration: Double, settings: GestureSettings = adaptive, _ sample: (Double) -> (a: Vector3, w: Vector3)
    ) -> [Double] {
        var d = GestureDetector(settings: settings)
        var out: [Double] = []
        for i in 0..<Int(duration * 100) {
            let t = Double(i) / 100
            let (a, w) = sample(t)
            d.beginFrame()
            d.gyro(w, at: t)
            d.accel(deviation: (a - Vector3(0, 0, -1)).length, reading: a, at: t)
            if d.fired[Gesture.flick.rawValue] > 0 { out.append(t) }
        }
        return out
    }

    /// A turn about z peaking at `peak` rad/s (negative: the other way) over `length` s.
    static func turn(_ t: Double, at t0: Double, peak: Double, length: Double = 0.25) -> Double {
        let u = (t - t0) / length
        return u >= 0 && u <= 1 ? peak * sin(.pi * u) : 0
    }

    /// A punch (a 2.5 G push while the wrist turns at 12 rad/s) and its return 0.85 s later (the
    /// wrist turning back as fast, the arm pulled back at 1 G): one note, every 2 s. Without the
    /// return rule (`flickReturnTime=0`) the return is a note too.
    func testAPunchsReturnIsNotASecondNote() {
        let starts = [1.0, 3.0, 5.0]
        let sample = { (t: Double) -> (a: Vector3, w: Vector3) in
            let x = starts.reduce(0) { $0 + Self.push(t, at: $1, peak: 2.5) - Self.push(t, at: $1 + 0.85, peak: 1) }
            let z = starts.reduce(0) {
                $0 + Self.turn(t, at: $1 + 0.05, peak: 12) + Self.turn(t, at: $1 + 0.85, peak: -12)
            }
            return (Vector3(x, 0, -1), Vector3(0, 0, z))
        }
        let notes = Self.flicks(duration: 7, sample)
        XCTAssertEqual(notes.count, 3, "\(notes)")
        for (n, s) in zip(notes, starts) { XCTAssertTrue((s...(s + 0.4)).contains(n), "\(notes)") }
        var off = Self.adaptive
        off.flickReturnTime = 0
        XCTAssertEqual(Self.flicks(duration: 7, settings: off, sample).count, 6)
    }

    /// A combination: punches 0.9 s apart that turn the wrist the same way are a note each.
    func testACombinationTurningTheSameWayIsANoteEach() {
        let starts = [1.0, 1.9, 2.8]
        let notes = Self.flicks(duration: 4.5) { t in
            let x = starts.reduce(0) { $0 + Self.push(t, at: $1, peak: 2.5) }
            let z = starts.reduce(0) { $0 + Self.turn(t, at: $1 + 0.05, peak: 12) }
            return (Vector3(x, 0, -1), Vector3(0, 0, z))
        }
        XCTAssertEqual(notes.count, 3, "\(notes)")
    }

    /// A turn of the wrist alone (12 rad/s, the hand moving 0.4 G) and the turn back 0.7 s
    /// later are two strokes: only a movement that moved the hand has a return.
    func testAWristTurnAndItsTurnBackAreTwoNotes() {
        let notes = Self.flicks(duration: 3) { t in
            let x = Self.push(t, at: 1, peak: 0.4) - Self.push(t, at: 1.7, peak: 0.4)
            let z = Self.turn(t, at: 1, peak: 12) + Self.turn(t, at: 1.7, peak: -12)
            return (Vector3(x, 0, -1), Vector3(0, 0, z))
        }
        XCTAssertEqual(notes.count, 2, "\(notes)")
    }
}
