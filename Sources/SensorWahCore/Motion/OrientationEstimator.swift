#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Settings of the orientation estimator. Times in seconds, rates in rad/s, accelerations in G.
public struct EstimatorSettings: Sendable, Equatable {
    /// Time constant of each of the two first-order stages of the accelerometer's low-pass
    /// (in the almost-inertial frame): how long the gyro alone is trusted. At most
    /// `accelTimeConstant` (3 s, VQF's `tauAcc`: a hand shaken at 1-4 Hz, ±1-3 G, is attenuated
    /// some 200-2,000 times before it can tilt the estimate), and shorter in two cases, each the
    /// steady-state gain of a tilt filter whose measurement noise is the hand's acceleration:
    /// - the readings are clean: `disturbanceScale` × their RMS distance from the filtered
    ///   gravity (G, averaged over `disturbanceTimeConstant`), never below `minTimeConstant`. A
    ///   phone turned slowly in the hand (0.1-0.2 G) follows its accelerometer within about a
    ///   second; one swung or run with (0.6 G and more) keeps 3 s;
    /// - the rotation is rough for the sampling rate: `roughnessScale` × that same RMS distance
    ///   (G) / the integration's random walk (deg/√s, from the second difference of the rate,
    ///   |ω(k) − 2ω(k−1) + ω(k−2)|·Δt/12 per step, averaged over `disturbanceTimeConstant`), never
    ///   below `roughMinTimeConstant`. A phone walking at 16.8 Hz (about 3 deg/√s, 0.6 G) comes
    ///   down to about 0.6 s, where integrating its gyro alone loses a degree a sample.
    public var accelTimeConstant = 3.0
    public var minTimeConstant = 1.0
    public var disturbanceScale = 5.0
    public var disturbanceTimeConstant = 2.0
    public var roughnessScale = 3.0
    public var roughMinTimeConstant = 0.5
    /// Neither shortening applies for `clipHoldTime` s after a reading that looks clipped: one
    /// at the largest magnitude the stream has shown on any axis (when that is 1.5 G or more,
    /// e.g. a phone whose range is ±2 G, run with): a clipped reading under-reports the hand's
    /// acceleration, so it looks cleaner than it is.
    public var clipHoldTime = 2.0
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
    /// Gyro bias learnt in motion (a Kalman filter on the bias, with VQF's noise model): the
    /// rate at which the inclination correction turns the estimate is the low-passed bias seen
    /// in the world frame, so each correction is a measurement of the bias's horizontal part.
    /// `biasSigmaInit`: the bias's standard deviation before anything is learnt, and the most
    /// its uncertainty grows back to (rad/s); `biasForgettingTime`: how long the uncertainty
    /// takes to grow by 0.1 °/s (s); `biasSigmaMotion`: the standard deviation the estimate
    /// settles at in steady motion (rad/s). A measurement further than `biasDisagreementLimit`
    /// (rad/s) from the estimate counts as that far (the first corrections after a knock).
    public var biasSigmaInit = 0.5 * Double.pi / 180
    public var biasForgettingTime = 100.0
    public var biasSigmaMotion = 0.1 * Double.pi / 180
    public var biasDisagreementLimit = 5.0 * Double.pi / 180
    /// Learning in motion starts this long after the start-up ramp (the low-pass settles first).
    public var biasSettleTime = 1.0
    /// Rest detection for gyro-bias learning: rotation within `restRate` of its short average
    /// (each reading, and as an RMS deviation over 0.3 s) and acceleration within `restAccel`
    /// of its own (as an RMS deviation over 0.3 s), and the accelerometer's direction within 0.5° of
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
///   exact rotation of the interval that ends at its timestamp: the quaternion exponential of
///   the interval times ¾ of its rate and ¼ of the previous sample's. A sensor's sample is
///   its digital low-pass's output, somewhere between the rate at its timestamp (an app that
///   picks every n-th sample; the trapezoid of the two samples is right for it) and the mean
///   over the interval before it (a sensor that averages; VQF's rectangle, the closing
///   sample alone, is right for it). The ¾-¼ weighting is wrong by at most a quarter of an
///   interval for either; `tools/fusion-compare --dev` measures both kinds of stream.
/// - **Correction**: each raw accelerometer reading (gravity plus the hand's acceleration, its
///   magnitude kept) is taken to that almost-inertial frame at its own time and low-passed
///   there by two first-order stages (second order, critically damped). In an inertial frame
///   the hand's accelerations average to nothing (velocity stays bounded), so the filtered
///   vector is gravity; the estimate is the inertial attitude turned, about a horizontal axis,
///   so that it points straight down. The time constant is 3 s while the readings are disturbed
///   by the hand's own acceleration and comes down when they are clean or the rotation is rough
///   for the sampling rate (0.5 s at rest; see `EstimatorSettings`). Each stage's gain comes from the interval, so uneven sampling is
///   fine.
/// - **Gyro bias** is learnt at rest (the gyro's average while gyro and accelerometer are
///   still) and in motion (a Kalman filter fed by the rate of the inclination correction,
///   compared with the low-passed bias it predicts, with VQF's fixed noise model).
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
    @usableFromInline var prevGyro = Vector3(.nan, .nan, .nan)
    @usableFromInline var roughness = 0.0
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
        // how rough the rotation is for this sampling rate: the trapezoid rule's error from the
        // second difference of the rate (rad per step), as a random-walk density (rad^2/s)
        if prevGyro.isFiniteVector {
            let e = (rate - lastGyro * 2 + prevGyro).length * dt / 12
            roughness += (e * e / dt - roughness) * Self.alpha(dt: dt, tau: settings.disturbanceTimeConstant)
        }
        prevGyro = lastGyro
        // the interval's rate (see the type's doc), as an exact rotation
        let theta = (lastGyro * 0.25 + rate * 0.75) * dt + lastGyro.cross(rate) * (dt * dt / 12)
        inertial = (inertial * Quaternion.rotation(theta)).normalized
        attitude = correction * inertial  // both unit: no normalising needed
    }

    /// An accelerometer sample (G, device frame, gravity included) taken at `time` seconds.
    public mutating func accel(_ a: Vector3, at time: Double) {
        guard a.isFiniteVector, time.isFinite else { return }
        let mag = a.length
        guard mag > 0.05 else { return }
        if initialised && time <= lastAccelTime { return }
        let deviation = a - accelAverage
        accelDeviation +=
            (deviation.dot(deviation) - accelDeviation) * Self.alpha(dt: time - lastAccelTime, tau: Self.restWindow)
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
        // the reading in the almost-inertial frame as of the last gyro sample (a phone's
        // accelerometer and gyro run on clocks of their own: turning the reading on by the
        // time between their stamps fits real streams less well than leaving it)
        let v = inertial.rotate(a)
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
        // how far the readings stray from gravity (G): the cleaner, the sooner they are believed
        let fn = filtered.length
        if fn > 1e-9 {
            let d = v - filtered / fn
            disturbance += (d.dot(d) - disturbance) * Self.alpha(dt: step, tau: settings.disturbanceTimeConstant)
        }
        let largest = max(abs(a.x), abs(a.y), abs(a.z))
        accelPeak = max(accelPeak, largest)
        if accelPeak >= Self.clipFloor && largest >= Self.clipFraction * accelPeak { lastClipTime = time }
        let spread = disturbance.squareRoot()
        let walk = max(roughness.squareRoot() * 180 / Double.pi, 1e-9)
        var steady =
            time - lastClipTime < settings.clipHoldTime
            ? settings.accelTimeConstant
            : min(
                settings.accelTimeConstant,
                max(settings.minTimeConstant, settings.disturbanceScale * spread),
                max(settings.roughMinTimeConstant, settings.roughnessScale * spread / walk))
        // at rest the accelerometer reads gravity alone
        if atRest && accelStill { steady = min(steady, settings.restTimeConstant) }
        let tau =
            age >= settings.startDuration
            ? steady
            : settings.startTimeConstant + (steady - settings.startTimeConstant) * age / settings.startDuration
        let k = Self.alpha(dt: step, tau: tau)
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
        let turn =
            w > 1e-6
            ? Quaternion(w: w, x: -0.5 * down.y / (n * w), y: 0.5 * down.x / (n * w), z: 0)
            : Quaternion(w: 0, x: 1, y: 0, z: 0)  // pointing straight up: half a turn about x
        correction = (turn * correction).normalized
        attitude = correction * inertial
        if step > 0 { motionBiasUpdate(turn: turn, dt: step) }
    }
    /// Set by a gap in the gyro stream: the next accelerometer reading sets the tilt.
    @usableFromInline var resync = false
    /// The readings' mean squared distance from the filtered gravity (G^2).
    @usableFromInline var disturbance = 0.0
    /// The largest magnitude on any axis so far (G), and when a reading last reached it.
    @usableFromInline var accelPeak = 0.0
    @usableFromInline var lastClipTime = -Double.infinity
    /// A reading within half a percent of the largest magnitude seen counts as clipped.
    static let clipFraction = 0.995
    static let clipFloor = 1.5
    @usableFromInline var rLP1 = Matrix3.identity, rLP = Matrix3.identity
    @usableFromInline var rbLP1 = Vector3(0, 0, 0), rbLP = Vector3(0, 0, 0)
    @usableFromInline var covariance = Matrix3.identity
    @usableFromInline var covarianceReady = false

    @inline(__always) mutating func motionBiasUpdate(turn: Quaternion, dt: Double) {
        guard dt > 0 else { return }
        let s = settings
        let p0 = s.biasSigmaInit * s.biasSigmaInit
        if !covarianceReady { covariance = Matrix3.identity * p0; covarianceReady = true }
        // the uncertainty grows by (0.1 °/s)^2 per forgetting time, never past its start
        let grow = Self.forgettingStep * Self.forgettingStep * dt / s.biasForgettingTime
        if covariance.r0.x < p0 { covariance.r0.x += grow }
        if covariance.r1.y < p0 { covariance.r1.y += grow }
        if covariance.r2.z < p0 { covariance.r2.z += grow }
        // a measurement's variance such that steady motion settles at biasSigmaMotion
        let pm = s.biasSigmaMotion * s.biasSigmaMotion
        let noise = pm * pm / grow + pm
        // the correction's rate this step (world frame, horizontal)
        let wc = Vector3(turn.x, turn.y, turn.z) * (2 / dt)
        let c = Matrix3(correction)
        let h = c * rLP
        let pred = c.apply(rbLP)
        let limit = s.biasDisagreementLimit
        // the horizontal disagreements, and the vertical part of the bias pulled weakly to 0
        let e = Vector3(
            min(max(pred.x - wc.x - h.r0.dot(bias), -limit), limit),
            min(max(pred.y - wc.y - h.r1.dot(bias), -limit), limit),
            min(max(-h.r2.dot(bias), -limit), limit))
        let hp = h * covariance
        var sm = hp * h.transposed
        sm.r0.x += noise; sm.r1.y += noise; sm.r2.z += noise / Self.verticalForgetting
        guard let inverse = sm.inverse else { return }
        let gain = covariance * h.transposed * inverse
        bias += gain.apply(e)
        covariance = (covariance - gain * hp).symmetrised
        let b = bias.length
        if b > s.maxBias { bias *= s.maxBias / b }
    }
    /// The uncertainty's growth step (rad/s) per `biasForgettingTime`, and how much weaker the
    /// pull of the bias's vertical part to zero is than a horizontal measurement (VQF's).
    static let forgettingStep = 0.1 * Double.pi / 180
    static let verticalForgetting = 1e-4

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
        // a rest ends at the first reading that strays (a movement starting must not be
        // averaged into the bias)
        let still =
            initialised && accelStill && gyroDeviation < settings.restRate * settings.restRate
            && d.dot(d) < settings.restRate * settings.restRate && gyroAverage.length < settings.maxBias
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
            if !covarianceReady {
                covariance = Matrix3.identity * (settings.biasSigmaInit * settings.biasSigmaInit);
                covarianceReady = true
            }
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
        let c0 = Vector3(b.r0.x, b.r1.x, b.r2.x), c1 = Vector3(b.r0.y, b.r1.y, b.r2.y),
            c2 = Vector3(b.r0.z, b.r1.z, b.r2.z)
        return Matrix3(
            Vector3(a.r0.dot(c0), a.r0.dot(c1), a.r0.dot(c2)),
            Vector3(a.r1.dot(c0), a.r1.dot(c1), a.r1.dot(c2)),
            Vector3(a.r2.dot(c0), a.r2.dot(c1), a.r2.dot(c2)))
    }
    @inlinable static func * (a: Matrix3, k: Double) -> Matrix3 { Matrix3(a.r0 * k, a.r1 * k, a.r2 * k) }
    @inlinable static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2) }
    @inlinable static func - (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2) }
    @inlinable var transposed: Matrix3 {
        Matrix3(Vector3(r0.x, r1.x, r2.x), Vector3(r0.y, r1.y, r2.y), Vector3(r0.z, r1.z, r2.z))
    }
    /// The inverse, nil when the matrix is (nearly) singular.
    @inlinable var inverse: Matrix3? {
        let c0 = r1.cross(r2), c1 = r2.cross(r0), c2 = r0.cross(r1)
        let det = r0.dot(c0)
        guard abs(det) > 1e-300, det.isFinite else { return nil }
        let k = 1 / det
        return Matrix3(Vector3(c0.x, c1.x, c2.x) * k, Vector3(c0.y, c1.y, c2.y) * k, Vector3(c0.z, c1.z, c2.z) * k)
    }
    @inlinable var symmetrised: Matrix3 {
        let xy = (r0.y + r1.x) * 0.5, xz = (r0.z + r2.x) * 0.5, yz = (r1.z + r2.y) * 0.5
        return Matrix3(Vector3(r0.x, xy, xz), Vector3(xy, r1.y, yz), Vector3(xz, yz, r2.z))
    }
}
