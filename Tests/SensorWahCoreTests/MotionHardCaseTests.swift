import Foundation
import XCTest
@testable import SensorWahCore

/// The hard cases of real motion, synthesised with known truth, as other people's recordings
/// show them (a hand shaken back and forth, fast strokes sampled at watch rates, shocks and
/// clipping, a biased gyro, sloppy timestamps). Each prints its error; the
/// bounds sit a little above what was measured. The published filters run on the same kind of
/// motion in `tools/fusion-compare` (docs/motion.md), which `FusionCompareTests` checks.
final class MotionHardCaseTests: XCTestCase {
    struct Result: CustomStringConvertible {
        var rms = 0.0, worst = 0.0, n = 0
        var description: String { String(format: "%.2f° RMS, worst %.1f° (%d frames)", rms, worst, n) }
    }

    /// Runs frames (in the given order) through a motion stage; the tilt error against the
    /// script's truth on every frame after `from` seconds.
    func measure(_ script: MotionScript, _ frames: [SensorFrame], from: Double = 3) -> Result {
        var stage = MotionStage()
        var squares = 0.0, r = Result()
        for var f in frames {
            stage.process(&f)
            let t = f.latestTime
            guard t >= from, f.has(.derived) else { continue }
            let e = angleDegrees(script.attitude(t).gravity, Vector3(f[.tiltX], f[.tiltY], f[.tiltZ]))
            squares += e * e; r.n += 1; r.worst = max(r.worst, e)
        }
        r.rms = (squares / Double(max(r.n, 1))).squareRoot()
        return r
    }

    /// An attitude that drifts slowly (a few degrees a second at most), as a hand holding a
    /// phone does while it shakes it.
    static func drifting(_ t: Double) -> Quaternion {
        Quaternion.attitude(
            pitch: 0.1 + 0.3 * sin(2 * .pi * 0.02 * t), roll: 0.4 * sin(2 * .pi * 0.013 * t + 1), yaw: 0.01 * t)
    }
    static func envelope(_ t: Double, _ a: Double, _ b: Double) -> Double {
        min(max(t - a, 0), 1) * min(max(b - t, 0), 1)
    }

    /// Sustained linear acceleration: ±1-3 G of back-and-forth at 1-4 Hz for 10-60 s, horizontal
    /// and vertical, while the attitude drifts; the gyro carries a bias of about 1°/s and the
    /// device is never still. Accelerometer-only tilt is 40-70° off here; a filter that leaves
    /// out readings 2 G from 1 G keeps the upward half of a vertical shake and turns over.
    func testSustainedShakingDoesNotTiltTheEstimate() {
        let bias = Vector3(0.012, -0.008, 0.015)
        let cases: [(name: String, accel: (Double) -> Vector3)] = [
            (
                "horizontal ±2 G at 2 Hz for 40 s, ±1 G at 3.3 Hz for 40 s",
                { t in
                    let e1 = Self.envelope(t, 10, 50), e2 = Self.envelope(t, 60, 100)
                    return Vector3(
                        2 * e1 * sin(2 * .pi * 2 * t) + 0.5 * e2 * sin(2 * .pi * 1.3 * t),
                        e2 * sin(2 * .pi * 3.3 * t + 0.3), 0)
                }
            ),
            (
                "±3 G at 1.5 Hz with ±2.5 G vertical for 30 s, then 50 s of 1-4 Hz",
                { t in
                    let e1 = Self.envelope(t, 10, 40), e2 = Self.envelope(t, 50, 100)
                    return Vector3(
                        3 * e1 * sin(2 * .pi * 1.5 * t) + e2 * sin(2 * .pi * 2.1 * t),
                        1.5 * e2 * sin(2 * .pi * 3.7 * t + 0.3),
                        2.5 * e1 * sin(2 * .pi * 2.5 * t + 0.7) + 2 * e2 * sin(2 * .pi * 1.2 * t))
                }
            )
        ]
        for c in cases {
            let s = MotionScript(attitude: { Self.drifting($0) }, worldAccel: c.accel)
            for hz in [32.0, 95.0] {
                let r = measure(
                    s, s.frames(rate: hz, duration: 110, bias: bias, gyroNoise: 0.005, accelNoise: 0.006, seed: 3))
                print("hard case, shaking \(c.name) at \(Int(hz)) Hz: \(r)")
                XCTAssertLessThan(r.rms, 2, "\(c.name) at \(hz) Hz")
                XCTAssertLessThan(r.worst, 5, "\(c.name) at \(hz) Hz")
            }
        }
    }

    /// Fast strokes sampled at watch rates: 20-40° between two samples at 17-32 Hz, with gyro
    /// samples of both kinds. The estimator gives an interval ¾ of the sample that closes it
    /// and ¼ of the one that opens it (what the real sets bear out, docs/motion.md): a quarter
    /// of an interval off for either kind, which at 10-20 rad/s is 5-8°. Measured 5.3-5.8° RMS
    /// on both kinds.
    func testFastRotationAtWatchRates() {
        for (hz, peak) in [(17.0, 10.0), (25.0, 14.0), (32.0, 20.0)] {
            let s = MotionScript(attitude: { t in
                let a = peak / (2 * .pi * 1.6)  // a swing whose rate peaks at `peak` rad/s
                return Quaternion.attitude(
                    pitch: 0.3 + 0.4 * a * sin(2 * .pi * 1.6 * t), roll: 0.9 * a * sin(2 * .pi * 1.6 * t + 0.5),
                    yaw: 0.2 * sin(t))
            })
            for kind in [MotionScript.GyroSamples.instant, .intervalMean] {
                let r = measure(
                    s, s.frames(rate: hz, duration: 60, gyroNoise: 0.01, accelNoise: 0.01, seed: 4, gyroSamples: kind))
                print(
                    "hard case, fast rotation at \(Int(hz)) Hz (up to \(Int(peak / hz * 180 / .pi))° a sample), \(kind) gyro samples: \(r)"
                )
                XCTAssertLessThan(r.rms, 6.5, "\(hz) Hz, \(kind)")
            }
        }
    }

    /// Shocks of 6-10 G (one or two samples) and an accelerometer clipped at ±8 G during a
    /// vigorous shake.
    func testSpikesAndClipping() {
        let q = Quaternion.attitude(pitch: 0.5, roll: -0.3, yaw: 0)
        let s = MotionScript(
            attitude: { t in q * Quaternion.rotation(Vector3(0.2, 0.1, 0) * sin(0.7 * t)) },
            worldAccel: { t in
                let k = (t * 2).rounded()
                // a spike every 1.5 s
                if abs(t * 2 - k) < 0.006 && Int(k) % 3 == 0 { return Vector3(6 + Double(Int(k) % 5), -2, 3) }
                if t > 20 && t < 35 { return Vector3(9 * sin(2 * .pi * 3 * t), 0, 4 * sin(2 * .pi * 3 * t + 1)) }
                return .zero
            })
        for hz in [50.0, 100.0] {
            var frames = s.frames(rate: hz, duration: 45, gyroNoise: 0.005, accelNoise: 0.005, seed: 5)
            for i in frames.indices {
                frames[i][.accelX] = min(max(frames[i][.accelX], -8), 8)
                frames[i][.accelY] = min(max(frames[i][.accelY], -8), 8)
                frames[i][.accelZ] = min(max(frames[i][.accelZ], -8), 8)
            }
            let r = measure(s, frames)
            print("hard case, 6-10 G spikes and clipping at ±8 G, \(Int(hz)) Hz: \(r)")
            // one-sided spikes (no rebound) push the average for real: the first reading is a
            // spike too. Measured 6.9° at 50 Hz, 4.3° at 100 Hz; VQF 7.0° on the same motion
            // (tools/fusion-compare's hard-spikes-clip-50hz, whose knocks rebound: 1.1°)
            XCTAssertLessThan(r.rms, hz < 60 ? 7.5 : 5, "\(hz) Hz")
        }
    }

    /// The accelerometer stamped one sample after the gyro, on wrist motion.
    func testAccelerometerOneSampleLate() {
        let s = MotionScript(attitude: { t in
            Quaternion.attitude(pitch: 0.6 * sin(1.3 * t), roll: 0.9 * sin(2.1 * t + 0.4), yaw: 0.3 * t)
        })
        for hz in [30.0, 100.0] {
            let r = measure(s, s.frames(rate: hz, duration: 40, gyroNoise: 0.005, accelNoise: 0.005, gyroLead: 1 / hz))
            print("hard case, accelerometer one sample after the gyro at \(Int(hz)) Hz: \(r)")
            // a quarter of a 33 ms interval of this wrist motion: measured 2.1° at 30 Hz
            XCTAssertLessThan(r.rms, hz < 50 ? 2.5 : 1, "\(hz) Hz")
        }
    }

    /// Duplicated frames (the same time twice) and neighbours swapped (time going back).
    func testDuplicatedAndReorderedTimestamps() {
        let s = MotionScript(attitude: { t in
            Quaternion.attitude(pitch: 0.5 * sin(1.1 * t), roll: 0.8 * sin(1.7 * t), yaw: 0)
        })
        let clean = s.frames(rate: 50, duration: 40, gyroNoise: 0.005, accelNoise: 0.005)
        var frames: [SensorFrame] = []
        var rng = SeededRandom(seed: 11)
        var i = 0
        while i < clean.count {
            switch rng.next() % 10 {
            case 0: frames.append(clean[i]); frames.append(clean[i]); i += 1  // duplicated
            case 1 where i + 1 < clean.count: frames.append(clean[i + 1]); frames.append(clean[i]); i += 2  // swapped
            default: frames.append(clean[i]); i += 1
            }
        }
        let r = measure(s, frames)
        print("hard case, duplicated and reordered timestamps (50 Hz): \(r)")
        XCTAssertLessThan(r.rms, 1)
        XCTAssertLessThan(r.worst, 3)
    }

    /// Strokes with the device still for 10 s between them, and a gyro bias of 0.5-2°/s:
    /// learnt while still, so the tilt holds through the next stroke.
    func testStillBetweenStrokesWithABiasedGyro() {
        for biasDeg in [0.5, 1.0, 2.0] {
            let bias = Vector3(1, -0.6, 0.8) / Vector3(1, -0.6, 0.8).length * (biasDeg * .pi / 180)
            let rest = Quaternion.attitude(pitch: 0.3, roll: 0.2, yaw: 0)
            let s = MotionScript(
                attitude: { t in
                    let p = t.truncatingRemainder(dividingBy: 12)  // 2 s of strokes, 10 s still
                    guard p < 2 else { return rest }
                    let w = sin(.pi * p / 2)  // a smooth start and end
                    return rest * Quaternion.rotation(Vector3(1.2, 0.5, 0.3) * (w * w * sin(2 * .pi * 2 * p)))
                },
                worldAccel: { t in
                    let p = t.truncatingRemainder(dividingBy: 12)
                    return p < 2 ? Vector3(1.5 * sin(2 * .pi * 2 * p), 0.5 * sin(2 * .pi * 4 * p), 0) : .zero
                })
            let r = measure(
                s, s.frames(rate: 50, duration: 72, bias: bias, gyroNoise: 0.005, accelNoise: 0.005, seed: 6), from: 12)
            print("hard case, strokes 10 s apart with a \(biasDeg)°/s gyro bias (50 Hz): \(r)")
            XCTAssertLessThan(r.rms, 1.5, "\(biasDeg)°/s")
        }
    }

    /// A gyro bias of 0.5-2°/s with the device never still: learnt in motion.
    func testGyroBiasLearntInMotion() {
        for biasDeg in [0.5, 2.0] {
            let bias = Vector3(0.7, 0.5, -0.5) / Vector3(0.7, 0.5, -0.5).length * (biasDeg * .pi / 180)
            let s = MotionScript(
                attitude: { t in
                    Quaternion.attitude(pitch: 0.5 * sin(0.4 * t), roll: 0.7 * sin(0.27 * t + 1), yaw: 0.2 * t)
                },
                worldAccel: { t in Vector3(0.3 * sin(5 * t), 0.2 * sin(7 * t), 0) })
            var stage = MotionStage()
            var late = Result(), squares = 0.0
            for var f in s.frames(rate: 50, duration: 120, bias: bias, gyroNoise: 0.005, accelNoise: 0.005, seed: 8) {
                stage.process(&f)
                let t = f.latestTime
                guard t >= 60 else { continue }
                let e = angleDegrees(s.attitude(t).gravity, Vector3(f[.tiltX], f[.tiltY], f[.tiltZ]))
                squares += e * e; late.n += 1; late.worst = max(late.worst, e)
            }
            late.rms = (squares / Double(late.n)).squareRoot()
            let left = (stage.estimator.bias - bias).length * 180 / .pi
            print(
                "hard case, \(biasDeg)°/s gyro bias, never still (50 Hz), after a minute: \(late); bias left \(String(format: "%.2f", left))°/s"
            )
            XCTAssertLessThan(late.rms, 1, "\(biasDeg)°/s")
            XCTAssertLessThan(left, 0.5 * biasDeg + 0.1, "\(biasDeg)°/s")
        }
    }

    /// No raw gyro, only Core Motion's rotation rate (SensorLog's motionRotationRate*), through
    /// the parser: the fusion runs on it.
    func testMotionRotationRateInsteadOfTheGyro() throws {
        let s = MotionScript(
            attitude: { t in Quaternion.attitude(pitch: 0.6 * sin(1.3 * t), roll: 0.9 * sin(0.9 * t + 0.4), yaw: 0) },
            worldAccel: { t in Vector3(0.8 * sin(2 * .pi * 2 * t), 0, 0.4 * sin(2 * .pi * 3 * t)) })
        var text =
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G),motionTimestamp_sinceReboot(s),motionRotationRateX(rad/s),motionRotationRateY(rad/s),motionRotationRateZ(rad/s)\n"
        for i in 0..<(30 * 40) {
            let t = 1000 + Double(i) / 30, w = s.rate(t - 1000), a = s.accel(t - 1000)
            text += String(
                format: "2025-01-01T00:00:00.000Z,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", t, a.x, a.y, a.z, t, w.x,
                w.y, w.z)
        }
        let (_, frames) = parseBytes(Array(text.utf8), chunks: [])
        XCTAssertGreaterThan(frames.count, 1100)
        var stage = MotionStage()
        var squares = 0.0, n = 0
        let t0 = frames.first?.latestTime ?? 0
        for var f in frames {
            stage.process(&f)
            let t = f.latestTime - t0
            guard t >= 3, f.has(.derived) else { continue }
            let e = angleDegrees(s.attitude(t).gravity, Vector3(f[.tiltX], f[.tiltY], f[.tiltZ]))
            squares += e * e; n += 1
        }
        let rms = (squares / Double(max(n, 1))).squareRoot()
        print(
            String(format: "hard case, motionRotationRate only (30 Hz, ±0.8 G swing): %.2f° RMS over %d frames", rms, n)
        )
        XCTAssertGreaterThan(n, 1000)
        XCTAssertLessThan(rms, 2.2)  // measured 1.9°
    }
}
