#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Settings of the orientation estimator. Times in seconds, rates in rad/s, accelerations in G.
public struct EstimatorSettings: Sendable, Equatable {
    /// Time constant of the accelerometer correction once settled: how long the gyro alone is
    /// trusted. Larger is calmer during fast moves, smaller forgets gyro drift sooner.
    public var accelTimeConstant = 1.5
    /// Start-up: the time constant ramps from `startTimeConstant` to `accelTimeConstant` over
    /// `startDuration` seconds (a high gain at first, so the first second is already right).
    public var startTimeConstant = 0.05
    public var startDuration = 2.0
    /// Readings whose magnitude is further than this from 1 G are not used for the correction
    /// (the hand is accelerating).
    public var accelRejection = 0.35
    /// Readings whose direction differs from the estimate's gravity by more than this (radians)
    /// are not used either, unless disagreement lasts (`recoveryTime`: then the estimate is wrong).
    /// Off (π) by default: on a real walking log at 17 Hz it made the estimate sticky (4.0° RMS
    /// without, 7.5-10° with 20-35°); the world-frame averaging already absorbs hand accelerations.
    public var deviationRejection = Double.pi
    public var recoveryTime = 2.0
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

/// Attitude from accelerometer and gyroscope: a complementary filter on the unit quaternion in
/// the manner of VQF and Madgwick's revised algorithm.
///
/// - **Prediction**: each gyro sample turns the estimate by the exact rotation of the interval
///   since the previous one (the quaternion exponential of the mean rate times the sample
///   interval, plus the two-sample coning term), so a 20 Hz watch stroke of 30° per sample is
///   integrated without the error of a first-order step.
/// - **Correction**: each accelerometer reading is taken to the world frame with the current
///   estimate and low-passed there (time constant `accelTimeConstant`); the estimate is then
///   turned, about a horizontal axis only, so that the filtered direction points down. Hand
///   accelerations that come and go average out in the world frame; readings far from 1 G or far
///   from the estimate are left out (with recovery when the disagreement lasts).
/// - **Gyro bias** is learnt while the device is at rest.
/// - **Start-up**: the first accelerometer reading sets the tilt; the correction starts strong
///   and relaxes over `startDuration`.
///
/// Times are the samples' own timestamps; nothing assumes a rate. Yaw is free (no
/// magnetometer): only the tilt (the gravity direction) is meant to be used.
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
    @usableFromInline var startTime = Double.nan
    /// Low-passed accelerometer direction in the world frame.
    @usableFromInline var filtered = Vector3(0, 0, -1)
    @usableFromInline var recoveryScore = 0.0
    @usableFromInline var recovering = false
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
        attitude = (attitude * Quaternion.rotation(theta)).normalized
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
            attitude = Quaternion.turning(a, to: Vector3(0, 0, -1))
            filtered = Vector3(0, 0, -1)
            initialised = true
            startTime = time
            lastAccelTime = time
            accelAverage = a
            return
        }
        let dt = time - lastAccelTime
        lastAccelTime = time
        guard dt > 0 else { return }
        let gyroAlive = !lastGyroTime.isNaN && time - lastGyroTime <= settings.gyroTimeout
        let up = a / mag
        let seen = attitude(at: time)
        let world = seen.rotate(up)
        var tau: Double
        let age = time - startTime
        if !gyroAlive {
            tau = settings.accelOnlyTimeConstant
        } else {
            tau = age >= settings.startDuration ? settings.accelTimeConstant
                : settings.startTimeConstant + (settings.accelTimeConstant - settings.startTimeConstant) * age / settings.startDuration
            // acceleration rejection: magnitude far from 1 G, or direction far from the estimate.
            // As in Fusion, a rejection raises a score and an acceptance lowers it nine times as
            // much: when nearly every reading disagrees for `recoveryTime`, the estimate is the
            // one that is wrong, and the readings are used again, with a fast correction.
            let disagrees = age >= settings.startDuration
                && (abs(mag - 1) > settings.accelRejection
                    || (settings.deviationRejection < .pi && acos(min(max(-world.z, -1), 1)) > settings.deviationRejection))
            let step = min(dt, settings.maxGap)
            if recovering {
                recoveryScore -= 9 * step
                if recoveryScore <= 0 { recovering = false; recoveryScore = 0 }
                tau = settings.startTimeConstant * 2
            } else if disagrees {
                rejected &+= 1
                recoveryScore += step
                if recoveryScore < settings.recoveryTime { return }
                recovering = true
                tau = settings.startTimeConstant * 2
            } else {
                recoveryScore = max(recoveryScore - 9 * step, 0)
            }
        }
        filtered += (world - filtered) * Self.alpha(dt: dt, tau: tau)
        // the correction is a rotation in the world frame: it applies to `seen` and `attitude` alike
        let correction = Quaternion.turning(filtered, to: Vector3(0, 0, -1))
        attitude = (correction * attitude).normalized
        filtered = Vector3(0, 0, -filtered.length)
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
