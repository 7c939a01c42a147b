#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Settings of the orientation estimator. Times in seconds, rates in rad/s, accelerations in G.
public struct EstimatorSettings: Sendable, Equatable {
    /// Time constant of each of the two first-order stages of the accelerometer's low-pass
    /// (in the almost-inertial frame): how long the gyro alone is trusted when its samples are
    /// smooth. 3 s, VQF's `tauAcc`: a hand shaken at 1-4 Hz (±1-3 G) is attenuated some
    /// 200-2,000 times before it can tilt the estimate.
    public var accelTimeConstant = 3.0
    /// ...but shorter when the rotation is rough for the sampling rate and the accelerometer
    /// calm, never below `minTimeConstant`: the time constant is `roughnessScale` × the readings'
    /// RMS distance from gravity (G) / the gyro integration's random walk (deg/√s; the
    /// trapezoid rule's error per step, |ω(k) − 2ω(k−1) + ω(k−2)|·Δt/12), both averaged over
    /// `roughnessTimeConstant`: the steady-state Kalman gain of a tilt whose process noise is the
    /// integration error and whose measurement noise is the hand's acceleration. Smooth motion
    /// at 30-100 Hz keeps 3 s; a phone walking at 16.8 Hz (about 3 deg/√s, 0.6 G) comes down to
    /// about 0.5 s, where integrating the gyro alone loses a degree a sample; a watch's strokes
    /// (rough, but shaking the accelerometer by 1 G) keep 2-3 s.
    public var minTimeConstant = 0.5
    public var roughnessScale = 1.5
    public var roughnessTimeConstant = 2.0
    /// While at rest (see `restTime`) the accelerometer reads gravity alone: this time constant.
    public var restTimeConstant = 0.5
    /// Start-up: the time constant ramps from `startTimeConstant` to its steady value over
    /// `startDuration` seconds (a high gain at first, so the first second is already right).
    public var startTimeConstant = 0.05
    public var startDuration = 2.0
    /// Readings whose magnitude is further than this from 1 G are left out of the low-pass (a
    /// corrupt sample). Nothing a hand does comes near: leaving out strong readings biases the
    /// average, since what is kept of a vertical shake at ±3 G points up.
    public var accelRejection = 50.0
    /// How far (G) one reading may pull the low-pass from where it is: a symmetric limit, so a
    /// shake's readings still average to gravity, while a single 8 G spike counts as 3 G.
    public var accelLimit = 3.0
    /// Gyro bias learnt in motion (a Kalman filter on the bias): the rate at which the
    /// inclination correction turns the estimate is the low-passed bias seen in the world
    /// frame, so each correction is a measurement of the bias's horizontal part.
    /// `biasSigmaInit`: the bias's standard deviation before anything is learnt (rad/s);
    /// `biasRandomWalk`: how fast a bias may wander (rad/s per √s); the measurement's noise is
    /// the correction's own recent power (averaged over `noiseTimeConstant`), correlated over the
    /// low-pass's time constant, and never taken below `biasSigmaFloor` (rad/s).
    public var biasSigmaInit = 0.5 * Double.pi / 180
    public var biasRandomWalk = 0.2 * Double.pi / 180
    public var biasSigmaFloor = 0.05 * Double.pi / 180
    public var noiseTimeConstant = 5.0
    /// Learning in motion starts this long after the start-up ramp (the low-pass settles first).
    public var biasSettleTime = 1.0
    /// Rest detection for gyro-bias learning: rotation within `restRate` of its short average
    /// and acceleration within `restAccel` of its own (both as RMS deviations over 0.3 s, so
    /// one noisy sample does not end a rest), and the accelerometer's direction within 0.5° of
    /// where the still spell began (a slow steady turn is not a bias), for `restTime` seconds.
    public var restRate = 0.03
    public var restAccel = 0.03
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
///   there by two first-order stages (second order, critically damped). In an inertial frame
///   the hand's accelerations average to nothing (velocity stays bounded), so the filtered
///   vector is gravity; the estimate is the inertial attitude turned, about a horizontal axis,
///   so that it points straight down. The time constant is 3 s while the rotation is smooth
///   for the sampling rate and comes down to 0.5 s when it is not (see `EstimatorSettings`).
///   Each stage's gain comes from the interval, so uneven sampling is fine.
/// - **Gyro bias** is learnt at rest (the gyro's average while gyro and accelerometer are
///   still) and in motion (a Kalman filter fed by the rate of the inclination correction,
///   compared with the low-passed bias it predicts).
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
    @usableFromInline var accelDeviation = 0.0, gyroDeviation = 0.0
    /// The window of rest detection's RMS deviations (s).
    static let restWindow = 0.3
    @usableFromInline var stillDirection = Vector3(0, 0, -1)
    /// cos of the largest turn of the accelerometer's direction during a still spell (0.5°)
    static let restCosine = cos(0.5 * Double.pi / 180)
    /// The bias's standard deviation after a rest (rad/s).
    static let restSigma = 0.02 * Double.pi / 180

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
        // a duplicate or a sample older than the last (reordered rows) adds nothing
        if !lastGyroTime.isNaN && time <= lastGyroTime { return }
        let rate = w - bias
        defer { detectRest(gyro: w, at: time); lastGyro = rate; lastGyroTime = time }
        guard initialised, !lastGyroTime.isNaN else { return }
        let dt = time - lastGyroTime
        guard dt > 0 else { return }
        guard dt <= settings.maxGap else {
            // the stream paused: the device may have turned any way meanwhile, so the next
            // accelerometer reading sets the tilt afresh and the low-pass starts fast again
            resync = true
            return
        }
        // mean rate over the interval plus the coning correction of two samples, then the exact rotation
        // how rough the rotation is for this sampling rate: the trapezoid rule's error from the
        // second difference of the rate (rad per step), as a random-walk density (rad^2/s)
        if prevGyro.isFiniteVector {
            let e = (rate - lastGyro * 2 + prevGyro).length * dt / 12
            roughness += (e * e / dt - roughness) * Self.alpha(dt: dt, tau: settings.roughnessTimeConstant)
        }
        prevGyro = lastGyro
        let theta = (lastGyro + rate) * (0.5 * dt) + lastGyro.cross(rate) * (dt * dt / 12)
        inertial = (inertial * Quaternion.rotation(theta)).normalized
        attitude = correction * inertial   // both unit: no normalising needed
    }

    /// An accelerometer sample (G, device frame, gravity included) taken at `time` seconds.
    public mutating func accel(_ a: Vector3, at time: Double) {
        guard a.isFiniteVector, time.isFinite else { return }
        let mag = a.length
        guard mag > 0.05 else { return }
        if initialised && time <= lastAccelTime { return }
        let deviation = a - accelAverage
        accelDeviation += (deviation.dot(deviation) - accelDeviation) * Self.alpha(dt: time - lastAccelTime, tau: Self.restWindow)
        accelStill = accelDeviation < settings.restAccel * settings.restAccel
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
            restartFilter(with: Vector3(0, 0, -1), at: time)
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
        if resync {
            resync = false
            startTime = time
            restartFilter(with: v, at: time)
            correct()
            return
        }
        if !filtering { restartFilter(with: v, at: time); correct(); return }
        if abs(mag - 1) > settings.accelRejection { rejected &+= 1; lastFilterTime = time; return }
        let step = min(time - lastFilterTime, settings.maxGap)
        lastFilterTime = time
        let age = time - startTime
        // how far the readings stray from gravity (G, averaged like the roughness): a hand's
        // swing makes the accelerometer worth less, so the time constant stays long
        let fn = filtered.length
        if fn > 1e-9 {
            let d = v - filtered / fn
            accelPower += (d.dot(d) - accelPower) * Self.alpha(dt: time - lastFilterTime, tau: settings.roughnessTimeConstant)
        }
        let walk = max(roughness.squareRoot() * 180 / Double.pi, 1e-9)
        var steady = min(settings.accelTimeConstant, max(settings.minTimeConstant, settings.roughnessScale * accelPower.squareRoot() / walk))
        // at rest the accelerometer reads gravity alone
        if atRest && accelStill { steady = min(steady, settings.restTimeConstant) }
        let tau = age >= settings.startDuration ? steady
            : settings.startTimeConstant + (steady - settings.startTimeConstant) * age / settings.startDuration
        let k = Self.alpha(dt: step, tau: tau)
        currentTau = tau
        // what a reading can pull by is limited (a symmetric limit keeps a shake's average at
        // zero, while a one-sided spike or a clipped reading counts no more than `accelLimit`)
        var pull = v - stage1
        let pn = pull.length
        if pn > settings.accelLimit { pull *= settings.accelLimit / pn }
        stage1 += pull * k
        filtered += (stage1 - filtered) * k
        let ri = Matrix3(inertial)
        rLP1 = rLP1 + (ri - rLP1) * k
        rLP = rLP + (rLP1 - rLP) * k
        let rb = ri.apply(bias)
        rbLP1 += (rb - rbLP1) * k
        rbLP += (rbLP1 - rbLP) * k
        correct(learningOver: age >= settings.startDuration + settings.biasSettleTime && !atRest ? step : 0)
    }

    /// Turns the correction, about a horizontal axis, so that the filtered reading points down.
    /// `learningOver` > 0: the correction also teaches the bias in motion, over that interval.
    @inline(__always) mutating func correct(learningOver step: Double = 0) {
        let down = correction.rotate(filtered)
        let n = down.length
        guard n > 1e-9 else { return }
        // the smallest rotation taking e = down / n to (0, 0, -1): axis (-e.y, e.x, 0), as VQF's
        let w = ((1 - down.z / n) * 0.5).squareRoot()
        let turn = w > 1e-6 ? Quaternion(w: w, x: -0.5 * down.y / (n * w), y: 0.5 * down.x / (n * w), z: 0)
            : Quaternion(w: 0, x: 1, y: 0, z: 0)   // pointing straight up: half a turn about x
        correction = (turn * correction).normalized
        attitude = correction * inertial
        if step > 0 { motionBiasUpdate(turn: turn, dt: step) }
    }
    /// Set by a gap in the gyro stream: the next accelerometer reading sets the tilt.
    @usableFromInline var resync = false
    @usableFromInline var prevGyro = Vector3(.nan, .nan, .nan)
    @usableFromInline var roughness = 0.0
    @usableFromInline var accelPower = 0.0
    @usableFromInline var rLP1 = Matrix3.identity, rLP = Matrix3.identity
    @usableFromInline var rbLP1 = Vector3(0, 0, 0), rbLP = Vector3(0, 0, 0)
    @usableFromInline var covariance = Matrix3.identity
    @usableFromInline var noiseLevel = 0.0
    @usableFromInline var covarianceReady = false

    @inline(__always) mutating func motionBiasUpdate(turn: Quaternion, dt: Double) {
        guard dt > 0 else { return }
        let s = settings
        if !covarianceReady { covariance = Matrix3.identity * (s.biasSigmaInit * s.biasSigmaInit); covarianceReady = true }
        covariance = covariance + Matrix3.identity * (s.biasRandomWalk * s.biasRandomWalk * dt)
        // the correction's rate this step (world frame, horizontal)
        let wc = Vector3(turn.x, turn.y, turn.z) * (2 / dt)
        let c = Matrix3(correction)
        let h = c * rLP
        let h1 = h.r0, h2 = h.r1
        let pred = c.apply(rbLP)
        let z1 = pred.x - wc.x, z2 = pred.y - wc.y
        let r1 = z1 - h1.dot(bias), r2 = z2 - h2.dot(bias)
        // measurement noise: the innovation's power, correlated over the low-pass's time
        let tau = max(currentTau, dt)
        noiseLevel += ((r1 * r1 + r2 * r2) * 0.5 - noiseLevel) * Self.alpha(dt: dt, tau: s.noiseTimeConstant)
        let v = max(noiseLevel, s.biasSigmaFloor * s.biasSigmaFloor) * 2 * tau / dt
        let u1 = covariance.apply(h1), u2 = covariance.apply(h2)
        let s11 = h1.dot(u1) + v, s12 = h1.dot(u2), s22 = h2.dot(u2) + v
        let det = s11 * s22 - s12 * s12
        guard det > 0 else { return }
        let i11 = s22 / det, i12 = -s12 / det, i22 = s11 / det
        let k1 = u1 * i11 + u2 * i12, k2 = u1 * i12 + u2 * i22
        bias += k1 * r1 + k2 * r2
        covariance = covariance - Matrix3.outer(k1, u1) - Matrix3.outer(k2, u2)
        covariance = covariance.symmetrised
        let b = bias.length
        if b > s.maxBias { bias *= s.maxBias / b }
    }
    @usableFromInline var currentTau = 3.0

    /// Starts the low-pass at `v`'s direction with gravity's magnitude (a first reading may be
    /// a knock of several G; the filter must not start out that strong).
    @inline(__always) mutating func restartFilter(with v: Vector3, at time: Double) {
        filtering = true
        let n = v.length
        stage1 = n > 1e-9 ? v / n : Vector3(0, 0, -1)
        filtered = stage1
        rLP1 = Matrix3(inertial); rLP = rLP1
        rbLP1 = rLP.apply(bias); rbLP = rbLP1
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
        let d = w - gyroAverage
        gyroDeviation += (d.dot(d) - gyroDeviation) * Self.alpha(dt: dt, tau: Self.restWindow)
        let still = initialised && accelStill && gyroDeviation < settings.restRate * settings.restRate
            && gyroAverage.length < settings.maxBias
        // the accelerometer's direction must hold too: a slow turn reads as a steady rate
        if still && !stillSince.isNaN {
            let c = accelAverage.dot(stillDirection) / max(accelAverage.length * stillDirection.length, 1e-12)
            if c < Self.restCosine { stillSince = .nan }
        }
        if !still { stillSince = .nan; atRest = false; return }
        if stillSince.isNaN { stillSince = time; stillDirection = accelAverage }
        atRest = time - stillSince >= settings.restTime
        if atRest {
            let k = Self.alpha(dt: dt, tau: settings.biasTimeConstant)
            bias += (gyroAverage - bias) * k
            // what rest teaches is known well: the motion filter starts from it
            if !covarianceReady { covariance = Matrix3.identity * (settings.biasSigmaInit * settings.biasSigmaInit); covarianceReady = true }
            covariance = covariance * (1 - k) + Matrix3.identity * (Self.restSigma * Self.restSigma * k)
            let b = bias.length
            if b > settings.maxBias { bias *= settings.maxBias / b }
        }
    }
}

/// A 3x3 matrix by rows (the estimator's bias filter).
@usableFromInline struct Matrix3: Sendable {
    @usableFromInline var r0, r1, r2: Vector3
    @inlinable init(_ r0: Vector3, _ r1: Vector3, _ r2: Vector3) { self.r0 = r0; self.r1 = r1; self.r2 = r2 }
    @usableFromInline static let identity = Matrix3(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))
    /// The rotation matrix of a unit quaternion (device to world).
    @inlinable init(_ q: Quaternion) {
        let w = q.w, x = q.x, y = q.y, z = q.z
        r0 = Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y))
        r1 = Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x))
        r2 = Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    }
    @inlinable func apply(_ v: Vector3) -> Vector3 { Vector3(r0.dot(v), r1.dot(v), r2.dot(v)) }
    @inlinable static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let c0 = Vector3(b.r0.x, b.r1.x, b.r2.x), c1 = Vector3(b.r0.y, b.r1.y, b.r2.y), c2 = Vector3(b.r0.z, b.r1.z, b.r2.z)
        return Matrix3(Vector3(a.r0.dot(c0), a.r0.dot(c1), a.r0.dot(c2)),
                       Vector3(a.r1.dot(c0), a.r1.dot(c1), a.r1.dot(c2)),
                       Vector3(a.r2.dot(c0), a.r2.dot(c1), a.r2.dot(c2)))
    }
    @inlinable static func * (a: Matrix3, k: Double) -> Matrix3 { Matrix3(a.r0 * k, a.r1 * k, a.r2 * k) }
    @inlinable static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2) }
    @inlinable static func - (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2) }
    /// a b^T
    @inlinable static func outer(_ a: Vector3, _ b: Vector3) -> Matrix3 { Matrix3(b * a.x, b * a.y, b * a.z) }
    @inlinable var symmetrised: Matrix3 {
        let xy = (r0.y + r1.x) * 0.5, xz = (r0.z + r2.x) * 0.5, yz = (r1.z + r2.y) * 0.5
        return Matrix3(Vector3(r0.x, xy, xz), Vector3(xy, r1.y, yz), Vector3(xz, yz, r2.z))
    }
}
