/// Where `tilt.*` comes from.
public enum TiltSource: String, Sendable, CaseIterable {
    /// Our own fusion of the raw accelerometer and gyroscope (every input with both).
    case fused
    /// The attitude the app sends (SensorLog `motionQuaternion*` or `motionGravity*`, ZIG SIM
    /// quaternion); frames without one fall back to the fusion.
    case device
}

/// Settings of the motion stage: the estimator, the gestures, where tilt comes from, and the
/// gesture that re-zeroes.
public struct MotionSettings: Sendable, Equatable {
    public var estimator = EstimatorSettings()
    public var gestures = GestureSettings()
    public var tiltSource = TiltSource.fused
    /// A gesture that captures the rest orientation ("set forward"): after it, the next
    /// moment the wrist is held still for `zeroStillTime` becomes the rest.
    public var zeroGesture: Gesture?
    public var zeroStillTime = 0.4
    public var zeroStillRate = 0.5
    /// A rest orientation saved earlier (gravity direction in the device frame), in force
    /// from the first frame until a new one is captured.
    public var rest: Vector3?
    /// Without a saved `rest`, the orientation of the stream's first tilt becomes the rest, so
    /// `zero` sources start at level wherever the device is held (a new capture replaces it).
    public var zeroAtStart = true
    /// Gestures and poses taught by example (`--gestures FILE`), recognised per sender.
    public var learned: LearnedModel?
    public init() {}
}

/// Per-sender motion processing: fills the derived quantities of a frame (`tilt.*`, the same
/// relative to the captured rest orientation, gesture strengths) from its accelerometer, gyro
/// and (optionally) device attitude. One per sender: each `SenderSession`, each file replay.
/// Pure and allocation-free; apply it to each frame before `Pipeline.process`.
public struct MotionStage: Sendable {
    public var settings: MotionSettings
    public private(set) var estimator: OrientationEstimator
    public private(set) var gestures: GestureDetector
    /// The taught gestures' recogniser (nil without a model with gestures).
    public private(set) var recognizer: GestureRecognizer?
    @usableFromInline var learnedFed = false
    /// Gravity direction (device frame) captured as the rest orientation; nil until captured.
    public private(set) var restGravity: Vector3?
    /// True while the rest is the stream's first tilt (`zeroAtStart`), not one asked for: a
    /// listener saves only the ones asked for.
    public private(set) var restIsStartingPose = false
    @usableFromInline var zeroAtStartPending = false
    /// The rotation that takes the rest gravity to straight down (applied to every reading).
    @usableFromInline var zeroing = Quaternion.identity
    @usableFromInline var zeroArmed = false
    @usableFromInline var zeroRequested = false
    @usableFromInline var stillSince = Double.nan
    @usableFromInline var lastGravity = Vector3(.nan, .nan, .nan)
    @usableFromInline var deviceGravity = Vector3(.nan, .nan, .nan)
    @usableFromInline var lastPoseDown = false
    @usableFromInline var sawGyro = false
    @usableFromInline var firstAccelTime = Double.nan
    /// 0: not known yet or a gyro was seen; 1: accelerometer alone, not yet told; 2: told.
    @usableFromInline var accelOnlyState: UInt8 = 0
    /// A stream with accelerometer readings but no rotation rate for this long (s) gives its
    /// tilt from the accelerometer alone.
    public static let accelOnlyAfter = 1.0

    /// True once, when the stream has turned out to carry no rotation rate (accelerometer
    /// readings for `accelOnlyAfter` s and no gyro): its `tilt.*` follows the accelerometer
    /// alone, so a shake or a swing tilts it. The caller says so (one line on stderr).
    public mutating func takeAccelerometerOnlyNotice() -> Bool {
        guard accelOnlyState == 1 else { return false }
        accelOnlyState = 2
        return true
    }
    @usableFromInline var gyroSeen = false
    @usableFromInline var accelSeen = false

    public init(settings: MotionSettings = .init()) {
        self.settings = settings
        estimator = OrientationEstimator(settings: settings.estimator)
        gestures = GestureDetector(settings: settings.gestures)
        if let m = settings.learned, !m.gestures.classes.isEmpty { recognizer = GestureRecognizer(model: m.gestures) }
        if let r = settings.rest { setRest(gravity: r) } else if settings.zeroAtStart { zeroAtStartPending = true }
    }

    /// Recognises another model's gestures and poses from the next frame (a model file
    /// reloaded or taught live); nil: none. The recogniser starts afresh.
    public mutating func replaceLearned(_ model: LearnedModel?) {
        settings.learned = model
        recognizer = model.flatMap { $0.gestures.classes.isEmpty ? nil : GestureRecognizer(model: $0.gestures) }
        learnedFed = false
    }

    /// Forgets the stream (a new take); the captured rest orientation is kept.
    public mutating func reset() {
        estimator.reset()
        gestures.reset()
        recognizer?.reset()
        lastGravity = Vector3(.nan, .nan, .nan)
        deviceGravity = Vector3(.nan, .nan, .nan)
        gyroSeen = false
        accelSeen = false
    }

    /// "Set forward": the current orientation becomes the rest (taken on the next frame with a
    /// tilt). `zero` sources then read the tilt relative to it.
    public mutating func captureRest() { zeroRequested = true }

    /// Sets the rest orientation from a gravity direction in the device frame.
    public mutating func setRest(gravity g: Vector3) {
        guard g.isFiniteVector, g.length > 1e-6 else { return }
        restIsStartingPose = false
        let u = g / g.length
        restGravity = u
        zeroing = Quaternion.turning(u, to: Vector3(0, 0, -1))
    }

    /// Fills `frame`'s derived quantities and marks the `derived` group new when it carried
    /// anything the tilt or gestures depend on.
    public mutating func process(_ frame: inout SensorFrame) {
        let hasA = frame.has(.accelerometer), hasG = frame.has(.gyro), hasM = frame.has(.motion)
        gestures.beginFrame()
        frame.newGroups &= ~SensorGroup.derived.bit
        guard hasA || hasG || hasM else { return }
        let ta = frame.time(.accelerometer), tg = frame.time(.gyro)
        let a = Vector3(frame[.accelX], frame[.accelY], frame[.accelZ])
        let w = Vector3(frame[.gyroX], frame[.gyroY], frame[.gyroZ])
        let gyroOK = hasG && w.isFiniteVector
        let accelOK = hasA && a.isFiniteVector
        // the earlier sample first
        if gyroOK && (!accelOK || tg <= ta) { gyroStep(w, tg) }
        if accelOK { accelStep(a, ta) }
        if gyroOK { sawGyro = true }
        if accelOK && !sawGyro && accelOnlyState == 0 {
            if firstAccelTime.isNaN { firstAccelTime = ta }
            if ta - firstAccelTime >= Self.accelOnlyAfter { accelOnlyState = 1 }
        }
        if gyroOK && accelOK && tg > ta { gyroStep(w, tg) }
        learnedFed = false
        if recognizer != nil, let r = LearnedReading.of(frame) {
            learnedFed = true
            recognizer!.feed(accel: r.accel, gyro: r.gyro, at: r.time)
        }
        // no accelerometer (Sensor Logger's Accelerometer.csv, phyphox's linear acceleration,
        // ZIG SIM): the gestures read the device's own acceleration without gravity
        var userFed = false
        if !accelSeen && hasM {
            let u = Vector3(frame[.userX], frame[.userY], frame[.userZ])
            if u.isFiniteVector { gestures.accel(deviation: u.length, at: frame.time(.motion)); userFed = true }
        }
        if hasM { readDeviceAttitude(frame) }

        let t = max(hasA ? ta : -.infinity, hasG ? tg : -.infinity, hasM ? frame.time(.motion) : -.infinity)
        var g = Vector3(.nan, .nan, .nan)
        if settings.tiltSource == .device && deviceGravity.isFiniteVector {
            g = deviceGravity
        } else if estimator.initialised {
            g = estimator.gravity
        } else if deviceGravity.isFiniteVector {
            g = deviceGravity
        }
        guard g.isFiniteVector else {
            // no tilt (a rotation-rate-only log): the gestures still count
            guard gyroOK || accelOK || userFed else { return }
            writeGestures(&frame, at: t)
            return
        }
        lastGravity = g
        zeroByGesture(gyroOK ? (w - estimator.bias).length : .nan, at: t)
        if zeroRequested {
            zeroRequested = false; zeroAtStartPending = false
            setRest(gravity: g)
        } else if zeroAtStartPending {
            zeroAtStartPending = false
            setRest(gravity: g)
            restIsStartingPose = true
        }

        frame[.tiltPitch] = TiltAngles.pitch(g) * Self.degrees
        frame[.tiltRoll] = TiltAngles.roll(g) * Self.degrees
        frame[.tiltX] = g.x; frame[.tiltY] = g.y; frame[.tiltZ] = g.z
        let z = zeroing.rotate(g)
        frame[.zeroPitch] = TiltAngles.pitch(z) * Self.degrees
        frame[.zeroRoll] = TiltAngles.roll(z) * Self.degrees
        frame[.zeroX] = z.x; frame[.zeroY] = z.y; frame[.zeroZ] = z.z
        lastPoseDown = g.z > (lastPoseDown ? Pose.faceDownOff : Pose.faceDownOn)
        if let m = settings.learned {
            for p in 0..<min(m.poses.count, SensorFrame.learnedPoses) {
                frame.learned[SensorFrame.learnedPoseBase + p] = m.poses[p].value(at: g)
            }
        }
        writeGestures(&frame, at: t)
    }

    @inline(__always) func writeGestures(_ frame: inout SensorFrame, at t: Double) {
        if let r = recognizer {
            for c in 0..<min(r.classCount, SensorFrame.learnedGestures) {
                frame.learned[c] = learnedFed ? r.fired[c] : 0  // fired on this frame's reading only
                frame.learned[SensorFrame.learnedProgressBase + c] = r.progress[c]
            }
        }
        frame[.flick] = gestures.fired[Gesture.flick.rawValue]
        frame[.shake] = gestures.fired[Gesture.shake.rawValue]
        frame[.tap] = gestures.fired[Gesture.tap.rawValue]
        frame.activeGestures = gestures.active | (lastPoseDown ? Pose.palmUp.bit : 0)
        frame.times[SensorGroup.derived.rawValue] = t
        frame.newGroups |= SensorGroup.derived.bit
    }

    public static let degrees = 180.0 / Double.pi

    @inline(__always) mutating func gyroStep(_ w: Vector3, _ t: Double) {
        estimator.gyro(w, at: t)
        gyroSeen = true
        gestures.gyro(w - estimator.bias, at: t)
    }

    /// The gestures read the acceleration without gravity: with a gyro, the reading minus the
    /// fused gravity; without one, | |a| - 1 G |, which turning the device leaves at zero (an
    /// accelerometer-only tilt follows the reading itself and cannot tell a push from a turn).
    /// The flick also gets the reading (the adaptive flick measures a movement against its slow average).
    @inline(__always) mutating func accelStep(_ a: Vector3, _ t: Double) {
        estimator.accel(a, at: t)
        accelSeen = true
        let deviation: Double
        if gyroSeen && estimator.initialised {
            deviation = (a - estimator.gravity).length
        } else {
            deviation = abs(a.length - 1)
        }
        gestures.accel(deviation: deviation, reading: a, at: t)
    }

    @inline(__always) mutating func readDeviceAttitude(_ f: SensorFrame) {
        let q = Quaternion(w: f[.quatW], x: f[.quatX], y: f[.quatY], z: f[.quatZ])
        if q.w.isFinite && q.x.isFinite && q.y.isFinite && q.z.isFinite {
            let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).squareRoot()
            if n > 0.5 && n < 1.5 { deviceGravity = q.normalized.gravity; return }
        }
        let g = Vector3(f[.gravityX], f[.gravityY], f[.gravityZ])
        if g.isFiniteVector && g.length > 0.5 { deviceGravity = g / g.length }
    }

    /// After the zero gesture, the next still moment becomes the rest.
    @inline(__always) mutating func zeroByGesture(_ speed: Double, at t: Double) {
        guard let zg = settings.zeroGesture else { return }
        if gestures.fired[zg.rawValue] > 0 { zeroArmed = true; stillSince = .nan; return }
        guard zeroArmed, gestures.active & 7 == 0 else { return }
        if speed.isFinite && speed > settings.zeroStillRate { stillSince = .nan; return }
        if stillSince.isNaN { stillSince = t }
        if t - stillSince >= settings.zeroStillTime {
            zeroArmed = false
            zeroRequested = true
        }
    }
}
