#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Settings of the orientation estimator. Times in seconds, rates in rad/s, accelerations in G.
public struct EstimatorSettings: Sendable, Equatable {
    /// Time constant of each of the two first-order stages of the accelerometer's low-pass:
    /// how long the gyro alone is trusted. Larger is calmer during fast moves, smaller forgets
    /// gyro errors sooner. Measured on a real 16.8 Hz walking phone log: 3.10° RMS at 0.4 s,
    /// 2.98° at 0.5-0.6 s, 3.09° at 0.8 s; the synthetic 100 Hz wrist log 0.55-0.70° and the 30 Hz
    /// watch log 0.35-0.29° over 0.5-0.8 s. (A prototype with VQF's second-order Butterworth
    /// instead did no better on the walking log: 3.07° at its best.)
    public var accelTimeConstant = 0.6
    /// Start-up: the time constant ramps from `startTimeConstant` to `accelTimeConstant` over
    /// `startDuration` seconds (a high gain at first, so the first second is already right).
    public var startTimeConstant = 0.05
    public var startDuration = 2.0
    /// Readings whose magnitude is further than this from 1 G are left out of the low-pass: a
    /// knock or a shock, not a hand's swing. Hand accelerations of a few tenths of a G are kept,
    /// because the raw readings average to gravity in an inertial frame (a tighter bound left
    /// out the same phases of every walking stride and biased the average: on the walking log
    /// 2.98-3.00° RMS from 1 G up, 3.47° at 0.5 G, 4.05° at 0.35 G).
    public var accelRejection = 2.0
    /// Rest detection for gyro-bias learning: rotation below `restRate`, acceleration within
    /// `restAccel` of its short average, for `restTime` seconds.
    public var restRate = 0.03
    public var restAccel = 0.025
    public var restTime = 1.5
    /// Time constant of the bias estimate while at rest.
    public var biasTimeConstant = 1.0
    /// Largest bias learnt (a larger steady rotation is a real one, e.g. a turntable).
    public var maxBias = 0.1
    /// A gap between gyro samples longer than this is not integrated (the stream paused).
    public var maxGap = 0.5
    /// Without a gyro sample for this long, the accelerometer alone gives the tilt.
    public var gyroTimeout = 0.5
    /// Time constant of the accelerometer-only tilt (inputs with no gyro).
    public var accelOnlyTimeConstant = 0.01

    public init() {}
}

/// Attitude from accelerometer and gyroscope, after VQF's inclination filter (Laidig & Seel
/// 2023, the accelerometer low-passed in an almost-inertial frame), with the samples' own
/// timestamps.
///
/// - **Prediction**: each gyro sample turns an *almost-inertial* attitude (the gyro alone) by the
///   exact rotation of the interval since the previous one (the quaternion exponential of the
///   mean rate times the sample interval, plus the two-sample coning term), so a 20 Hz watch
///   stroke of 30° per sample is integrated without the error of a first-order step.
/// - **Correction**: each raw accelerometer reading (gravity plus the hand's acceleration, its
///   magnitude kept) is taken to that almost-inertial frame at its own time and low-passed
///   there by two first-order stages (`accelTimeConstant` each; second order, critically
///   damped). In an inertial frame the hand's accelerations average to nothing (velocity stays
///   bounded), so the filtered vector is gravity; the estimate is the inertial attitude turned,
///   about a horizontal axis, so that it points straight down. Each stage's gain comes from the
///   interval, so uneven sampling is fine. Readings more than `accelRejection` from 1 G (knocks)
///   are left out.
/// - **Gyro bias** is learnt while the device is at rest.
/// - **Start-up**: the first accelerometer reading sets the tilt; the low-pass starts fast and
///   relaxes over `startDuration`.
///
/// Nothing assumes a rate. Yaw is free (no magnetometer): only the tilt (the gravity direction)
/// is meant to be used.
public struct OrientationEstimator: Sendable {
    public var settings: EstimatorSettings
    /// The current attitude (device to world). Identity until the first accelerometer reading.
    public private(set) var attitude = Quaternion.identity
    public private(set) var initialised = false
    /// The learnt gyro bias (rad/s, device frame).
    public private(set) var bias = Vector3(0, 0, 0)
    /// True while the device has been still for `restTime`.
    public private(set) var atRest = false
    /// Accelerometer readings left out of the correction (counted).
    public private(set) var rejected = 0

    @usableFromInline var lastGyro = Vector3(0, 0, 0)
    @usableFromInline var lastGyroTime = Double.nan
    @usableFromInline var lastAccelTime = Double.nan
    /// The gyro alone: device to the almost-inertial frame.
    @usableFromInline var inertial = Quaternion.identity
    /// The inclination correction: almost-inertial frame to the world (a tilt, no yaw).
    @usableFromInline var correction = Quaternion.identity
    /// The accelerometer's low-pass in the almost-inertial frame (G): its two stages.
    @usableFromInline var stage1 = Vector3(0, 0, -1)
    @usableFromInline var filtered = Vector3(0, 0, -1)
    @usableFromInline var startTime = Double.nan
    @usableFromInline var lastFilterTime = Double.nan
    /// False until the first reading with a live gyro (and after accelerometer-only spells).
    @usableFromInline var filtering = false
    // rest detection
    @usableFromInline var gyroAverage = Vector3(0, 0, 0)
    @usableFromInline var accelAverage = Vector3(0, 0, -1)
    @usableFromInline var stillSince = Double.nan
    @usableFromInline var accelStill = true

    public init(settings: EstimatorSettings = .init()) { self.settings = settings }

    /// Forgets everything (a new take, a sender that reconnects).
    public mutating func reset() { self = OrientationEstimator(settings: settings) }

    /// Gravity direction in the device frame (unit vector).
    @inlinable public var gravity: Vector3 { attitude.gravity }

    /// The attitude at `time`: the estimate turned on by the last rotation rate for the time
    /// since the last gyro sample (at most `maxPrediction`), so that a reading stamped a few
    /// milliseconds after the gyro is seen in the right attitude.
    public func attitude(at time: Double) -> Quaternion {
        let dt = time - lastGyroTime
        guard dt > 0, dt <= Self.maxPrediction else { return attitude }
        return (attitude * Quaternion.rotation(lastGyro * dt)).normalized
    }
    public static let maxPrediction = 0.1

    /// A gyro sample (rad/s, device frame) taken at `time` seconds.
    public mutating func gyro(_ w: Vector3, at time: Double) {
        guard w.isFiniteVector, time.isFinite else { return }
        let rate = w - bias
        defer { detectRest(gyro: w, at: time); lastGyro = rate; lastGyroTime = time }
        guard initialised, !lastGyroTime.isNaN else { return }
        let dt = time - lastGyroTime
        guard dt > 0, dt <= settings.maxGap else { return }
        // mean rate over the interval plus the coning correction of two samples, then the exact rotation
        let theta = (lastGyro + rate) * (0.5 * dt) + lastGyro.cross(rate) * (dt * dt / 12)
        inertial = (inertial * Quaternion.rotation(theta)).normalized
        attitude = correction * inertial   // both unit: no normalising needed
    }

    /// An accelerometer sample (G, device frame, gravity included) taken at `time` seconds.
    public mutating func accel(_ a: Vector3, at time: Double) {
        guard a.isFiniteVector, time.isFinite else { return }
        let mag = a.length
        guard mag > 0.05 else { return }
        accelStill = (a - accelAverage).length < settings.restAccel
        accelAverage += (a - accelAverage) * Self.alpha(dt: time - lastAccelTime, tau: 0.2)
        if !initialised {
            // the first reading gives the tilt (yaw 0)
            inertial = Quaternion.turning(a, to: Vector3(0, 0, -1))
            correction = .identity
            attitude = inertial
            initialised = true
            lastAccelTime = time
            accelAverage = a
            startTime = time
            restartFilter(with: Vector3(0, 0, -mag), at: time)
            return
        }
        let dt = time - lastAccelTime
        guard dt > 0 else { return }
        lastAccelTime = time
        let gyroAlive = !lastGyroTime.isNaN && time - lastGyroTime <= settings.gyroTimeout
        if !gyroAlive {
            // no gyro: follow the accelerometer (lightly smoothed), and start the low-pass
            // afresh when the gyro comes back
            let world = attitude.rotate(a / mag)
            let target = world + (Vector3(0, 0, -1) - world) * Self.alpha(dt: dt, tau: settings.accelOnlyTimeConstant)
            correction = (Quaternion.turning(world, to: target) * correction).normalized
            attitude = (correction * inertial).normalized
            filtering = false
            return
        }
        // the reading in the almost-inertial frame at its own time (a few ms from the gyro's)
        var seen = inertial
        let ahead = time - lastGyroTime
        if ahead > 0 && ahead <= Self.maxPrediction { seen = inertial * Quaternion.rotation(lastGyro * ahead) }
        let v = seen.rotate(a)
        if !filtering { restartFilter(with: v, at: time); correct(); return }
        if abs(mag - 1) > settings.accelRejection { rejected &+= 1; lastFilterTime = time; return }
        let step = min(time - lastFilterTime, settings.maxGap)
        lastFilterTime = time
        let age = time - startTime
        let tau = age >= settings.startDuration ? settings.accelTimeConstant
            : settings.startTimeConstant + (settings.accelTimeConstant - settings.startTimeConstant) * age / settings.startDuration
        let k = Self.alpha(dt: step, tau: tau)
        stage1 += (v - stage1) * k
        filtered += (stage1 - filtered) * k
        correct()
    }

    /// Turns the correction, about a horizontal axis, so that the filtered reading points down.
    @inline(__always) mutating func correct() {
        let down = correction.rotate(filtered)
        let n = down.length
        guard n > 1e-9 else { return }
        // the smallest rotation taking e = down / n to (0, 0, -1): axis (-e.y, e.x, 0), as VQF's
        let w = ((1 - down.z / n) * 0.5).squareRoot()
        let turn = w > 1e-6 ? Quaternion(w: w, x: -0.5 * down.y / (n * w), y: 0.5 * down.x / (n * w), z: 0)
            : Quaternion(w: 0, x: 1, y: 0, z: 0)   // pointing straight up: half a turn about x
        correction = (turn * correction).normalized
        attitude = correction * inertial
    }

    @inline(__always) mutating func restartFilter(with v: Vector3, at time: Double) {
        filtering = true
        stage1 = v
        filtered = v
        lastFilterTime = time
    }

    /// The smoothing factor of a first-order low-pass over `dt` (the one-euro filter's
    /// discretisation, dt / (dt + τ): no exponential per sample).
    @inline(__always) static func alpha(dt: Double, tau: Double) -> Double {
        guard dt > 0, dt.isFinite else { return 1 }
        guard tau > 0 else { return 1 }
        return dt / (dt + tau)
    }

    mutating func detectRest(gyro w: Vector3, at time: Double) {
        let dt = time - lastGyroTime
        gyroAverage += (w - gyroAverage) * Self.alpha(dt: dt, tau: 0.3)
        let still = initialised && accelStill && (w - gyroAverage).length < settings.restRate
            && gyroAverage.length < settings.maxBias
        if !still { stillSince = .nan; atRest = false; return }
        if stillSince.isNaN { stillSince = time }
        atRest = time - stillSince >= settings.restTime
        if atRest {
            bias += (gyroAverage - bias) * Self.alpha(dt: dt, tau: settings.biasTimeConstant)
            let b = bias.length
            if b > settings.maxBias { bias *= settings.maxBias / b }
        }
    }
}
