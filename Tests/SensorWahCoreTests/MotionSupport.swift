import Foundation
@testable import SensorWahCore

/// Synthesised motion: an attitude as a function of time, sampled like a device would.
struct MotionScript {
    /// Attitude (device to world) at time t.
    var attitude: (Double) -> Quaternion
    /// Acceleration of the device in the world frame (G), besides gravity.
    var worldAccel: (Double) -> Vector3 = { _ in Vector3(0, 0, 0) }

    /// Body rotation rate at t (rad/s, device frame), by a central difference of the attitude.
    func rate(_ t: Double) -> Vector3 {
        let h = 1e-5
        let a = attitude(t - h), b = attitude(t + h)
        var d = a.conjugate * b
        if d.w < 0 { d = Quaternion(w: -d.w, x: -d.x, y: -d.y, z: -d.z) }
        return Vector3(d.x, d.y, d.z) * (2 / (2 * h))
    }

    /// Accelerometer reading (G): gravity plus the world acceleration, in the device frame,
    /// with Core Motion's sign (a device at rest face up reads (0, 0, -1)).
    func accel(_ t: Double) -> Vector3 {
        let q = attitude(t)
        return q.unrotate(Vector3(0, 0, -1) + worldAccel(t))
    }

    /// What a gyro sample is: the rate at its timestamp (an app that picks every n-th reading of
    /// a faster sensor), or the mean rate over the interval that ends at it (a sensor that
    /// averages, as its digital low-pass does).
    enum GyroSamples { case instant, intervalMean }

    /// Frames at `rate` Hz for `duration` s; gyro bias and noise optional. `gyroLead`: the gyro is
    /// sampled that long before the accelerometer on each frame (a real iPhone log: 10 ms).
    func frames(
        rate hz: Double, duration: Double, bias: Vector3 = .zero, gyroNoise: Double = 0, accelNoise: Double = 0,
        seed: UInt64 = 1, accelOnly: Bool = false, gyroLead: Double = 0,
        gyroSamples: GyroSamples = .instant
    ) -> [SensorFrame] {
        var rng = SeededRandom(seed: seed)
        func gauss() -> Double {
            let u1 = max(Double(rng.next() % 1_000_000) / 1_000_000, 1e-9),
                u2 = Double(rng.next() % 1_000_000) / 1_000_000
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        var out: [SensorFrame] = []
        let n = Int(duration * hz)
        for i in 0...n {
            let t = Double(i) / hz
            var f = SensorFrame()
            let a = accel(t) + Vector3(gauss(), gauss(), gauss()) * accelNoise
            f[.accelX] = a.x; f[.accelY] = a.y; f[.accelZ] = a.z
            f.times[SensorGroup.accelerometer.rawValue] = t
            f.newGroups = SensorGroup.accelerometer.bit
            if !accelOnly {
                var mean = Vector3(0, 0, 0)
                if gyroSamples == .intervalMean {
                    for j in 0..<16 { mean += rate(t - gyroLead - (Double(j) + 0.5) / (16 * hz)) / 16 }
                }
                let w =
                    (gyroSamples == .instant ? rate(t - gyroLead) : mean) + bias + Vector3(gauss(), gauss(), gauss())
                    * gyroNoise
                f[.gyroX] = w.x; f[.gyroY] = w.y; f[.gyroZ] = w.z
                f.times[SensorGroup.gyro.rawValue] = t - gyroLead
                f.newGroups |= SensorGroup.gyro.bit
            }
            out.append(f)
        }
        return out
    }
}

/// Angle in degrees between two directions.
func angleDegrees(_ a: Vector3, _ b: Vector3) -> Double {
    let c = a.dot(b) / (a.length * b.length)
    return acos(min(max(c, -1), 1)) * 180 / .pi
}

func wrapDegrees(_ d: Double) -> Double {
    var x = d.truncatingRemainder(dividingBy: 360)
    if x > 180 { x -= 360 }
    if x < -180 { x += 360 }
    return x
}

/// The fused tilt against the device's own attitude, over a whole log.
struct AttitudeComparison: CustomStringConvertible {
    var frames = 0
    var gravitySquares = 0.0, pitchSquares = 0.0, rollSquares = 0.0
    var rollFrames = 0
    var worst = 0.0
    var gravityRMS: Double { (gravitySquares / Double(max(frames, 1))).squareRoot() }
    var pitchRMS: Double { (pitchSquares / Double(max(frames, 1))).squareRoot() }
    var rollRMS: Double { (rollSquares / Double(max(rollFrames, 1))).squareRoot() }
    var description: String {
        String(
            format:
                "%d frames: gravity direction %.2f° RMS (worst %.1f°), pitch %.2f° RMS, roll %.2f° RMS (%d frames with |pitch| < 60°)",
            frames, gravityRMS, worst, pitchRMS, rollRMS, rollFrames)
    }
}

/// The device's own gravity direction on a frame (the reference the fusion is compared with):
/// its attitude quaternion (SensorLog), else its gravity vector (Android's `MPL_Gravity`), else
/// the accelerometer minus its user acceleration (Android's linear acceleration). Nil when the
/// frame carries none. Its sign follows the log's accelerometer, as the fused tilt does.
func deviceGravity(_ f: SensorFrame) -> Vector3? {
    guard f.has(.motion) else { return nil }
    let q = Quaternion(w: f[.quatW], x: f[.quatX], y: f[.quatY], z: f[.quatZ])
    if q.w.isFinite && q.x.isFinite && q.y.isFinite && q.z.isFinite { return q.normalized.gravity }
    let g = Vector3(f[.gravityX], f[.gravityY], f[.gravityZ])
    if g.isFiniteVector && g.length > 0.5 { return g / g.length }
    let u = Vector3(f[.userX], f[.userY], f[.userZ]), a = Vector3(f[.accelX], f[.accelY], f[.accelZ])
    if f.has(.accelerometer) && u.isFiniteVector && a.isFiniteVector && (a - u).length > 0.5 {
        return (a - u) / (a - u).length
    }
    return nil
}

/// Runs a log through the parser and a motion stage; compares the fused tilt with the
/// device's own (`deviceGravity`) on every frame with a new motion sample, after `skip` s.
func compareWithDevice(path: String, settings: MotionSettings = .init(), skip: Double = 3) throws -> AttitudeComparison
{
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let (_, frames) = parseBytes(bytes, chunks: [])
    var stage = MotionStage(settings: settings)
    var c = AttitudeComparison()
    let t0 = frames.first?.latestTime ?? 0
    for var f in frames {
        stage.process(&f)
        guard f.has(.derived), f.latestTime - t0 >= skip, let dev = deviceGravity(f) else { continue }
        // the estimate as of the frame's last gyro sample
        let fused =
            settings.tiltSource == .device
            ? Vector3(f[.tiltX], f[.tiltY], f[.tiltZ])
            : stage.estimator.gravity
        let e = angleDegrees(dev, fused)
        c.frames += 1
        c.gravitySquares += e * e
        c.worst = max(c.worst, e)
        let devPitch = TiltAngles.pitch(dev) * 180 / .pi, devRoll = TiltAngles.roll(dev) * 180 / .pi
        let dp = TiltAngles.pitch(fused) * 180 / .pi - devPitch
        c.pitchSquares += dp * dp
        if abs(devPitch) < 60 {
            let dr = wrapDegrees(TiltAngles.roll(fused) * 180 / .pi - devRoll)
            c.rollSquares += dr * dr
            c.rollFrames += 1
        }
    }
    return c
}
