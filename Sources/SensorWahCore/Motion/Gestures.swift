#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The gestures `MotionStage` recognises.
public enum Gesture: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// A sharp wrist flick or stroke: one event per movement, strength = peak rotation rate (rad/s).
    case flick = 0
    /// Sustained shaking: one event when it starts, active while it lasts, strength = acceleration level (G).
    case shake = 1
    /// A knock on the device: a short acceleration spike without rotation, strength = spike (G).
    case tap = 2

    @inlinable public var bit: UInt8 { 1 << UInt8(rawValue) }
    @inlinable public var quantity: Quantity {
        switch self {
        case .flick: return .flick;
        case .shake: return .shake;
        case .tap: return .tap
        }
    }
    public var description: String {
        switch self {
        case .flick: return "flick";
        case .shake: return "shake";
        case .tap: return "tap"
        }
    }
    public init?(name: String) {
        switch name.lowercased() {
        case "flick", "stroke": self = .flick
        case "shake": self = .shake
        case "tap", "knock": self = .tap
        default: return nil
        }
    }
}

/// Held poses that can freeze a mapping (`hold=palm-up`), reported in
/// `SensorFrame.activeGestures` beside the gestures.
public enum Pose: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// The device faces down (gravity more than 30° past the horizontal toward the screen): a
    /// watch on a wrist turned palm up.
    case palmUp = 3
    @inlinable public var bit: UInt8 { 1 << UInt8(rawValue) }
    public var description: String { "palm-up" }
    public init?(name: String) {
        switch name.lowercased() {
        case "palm-up", "palmup", "face-down", "facedown": self = .palmUp
        default: return nil
        }
    }
    /// Gravity z (device frame) above which the device counts as facing down, and below which it
    /// stops (hysteresis).
    public static let faceDownOn = 0.5, faceDownOff = 0.35
}

/// Thresholds of the gesture recogniser. Rates in rad/s, accelerations in G, times in seconds:
/// nothing counts samples, so the same defaults hold from 17 to 800 Hz. The gyro flick's,
/// shaking's and the tap's defaults were chosen on synthesised flicks, strums, wah playing and
/// slow tilts (GestureTests), the labelled simulated takes of `tools/gesture-sim` and two real
/// tennis recordings; the accelerometer flick's (the adaptive rule; `flickAdaptive=0` gives the
/// fixed one) on the teach split of other people's labelled recordings (punches, walking,
/// pointing: `tools/gesture-score --sets`): see docs/gestures.md.
public struct GestureSettings: Sendable, Equatable {
    // ---- flick from the gyro
    /// A flick fires when the rotation rate peaks above this (a sharp wrist flick)...
    public var flickThreshold = 10.0
    /// ...and the movement (one rotation, one event at most) ends when the rate falls below this.
    public var flickRelease = 2.0
    /// No new flick for this long after one fired (the wrist's return swing is not a second flick).
    public var flickRefractory = 0.4
    /// With a gyro and no accelerometer at all (a rotation-rate-only log): a slower but long
    /// swing counts too: peak above `flickSweepRate` and at least `flickSweepAngle` rad turned
    /// while the rate stays above `flickRelease` (a tennis stroke turns the wrist 90-280°).
    public var flickSweepRate = 5.0
    public var flickSweepAngle = 1.2
    /// With an accelerometer, a gyro flick can also be made to need the hand to move: the
    /// acceleration without gravity must reach this during the rotation. A flick swings the
    /// hand on the forearm's lever (ω²r ≈ 3 G at 19 rad/s and 8 cm); turning the wrist about
    /// the forearm moves a watch 2-3 cm from the axis (0.4 G at 13 rad/s), a phone strapped to
    /// the forearm about as little (the demo recording's heel-toe strokes: 0.5 G). Off (0) by
    /// default: a rotation faster than `flickThreshold` is a flick, whatever turned it; 0.6
    /// leaves fast wrist turns out.
    public var flickTurnAccel = 0.0
    // ---- flick from the accelerometer (every input that has one)
    /// A stroke moves the hand. The level is the stage's acceleration without gravity or, with
    /// `flickGravityTimeConstant` > 0, the reading minus a slow average of itself over that
    /// time (gravity, as far as a still hand goes), which counts a push across gravity in full
    /// (| |a| - 1 G | reads a punch along the horizon at a fraction of its size) and the turn a
    /// punch gives the device on its way; either low-passed over `flickAccelTimeConstant` (an
    /// impact spike of a few ms is averaged away). A movement starts when the level rises above
    /// `flickAccelStartFraction` of its threshold and is a stroke when it peaks above the
    /// threshold (`flickAccelThreshold`, or `flickPlayerScale` times the player's recent stroke
    /// peaks when that is higher: a strong player's wind-up and follow-through stay under it),
    /// | |a| - 1 G | (same low-pass) has reached `flickAccelMagnitude` in it (turning the device
    /// leaves |a| at 1 G, whatever the slow average says), and it stayed above the start for
    /// `flickAccelMinDuration` (a single reading is a knock, not a movement).
    public var flickAccelThreshold = 1.5
    public var flickAccelStartFraction = 0.5
    public var flickAccelMagnitude = 0.35
    public var flickAccelMinDuration = 0.05
    public var flickAccelTimeConstant = 0.04
    public var flickGravityTimeConstant = 1.5
    /// The player's stroke scale (0: off): the peak level of each movement that gave a note
    /// (from either sensor) raises it to that peak, or lowers it 40 % of the way to a lower one;
    /// it decays over `flickPlayerMemory` s.
    public var flickPlayerScale = 0.5
    public var flickPlayerMemory = 20.0
    /// The movement ends when the level has stayed below `flickAccelReleaseFraction` of its
    /// threshold for `flickAccelGap` (the deceleration of a punch and the follow-through of a
    /// stroke belong to it), or, once it fired, when the level has fallen to
    /// `flickRearmFraction` (0: never) of its peak at least `flickRearmTime` after the note (the
    /// next punch of a combination rises from that valley).
    public var flickAccelReleaseFraction = 0.5
    public var flickAccelGap = 0.15
    public var flickRearmFraction = 0.3
    public var flickRearmTime = 0.9
    /// The flick fires when the level has fallen to this fraction of its peak (just after the peak).
    public var flickAccelPeakFraction = 0.7
    /// A rotation-only sweep fires when the rate has fallen to this fraction of its peak.
    public var flickPeakFraction = 0.5
    /// 1: an accelerometer movement that starts while a rotation that already gave its note
    /// goes on is spent too (0: it is not; at 25 Hz a boxer's glove turns faster than
    /// `flickRelease` between punches, so every later punch would be spent).
    public var flickAccelSpentByRotation = 0.0
    /// A rotation that starts while an accelerometer movement that gave its note goes on is
    /// spent (the punch's own turn and return) when it starts within this long of the note; a
    /// later one is a stroke of its own (0: always spent, as in the fixed rule).
    public var flickSpentTime = 0.5
    /// A rotation that turns back against the turn of the last note (its axis more than 120°
    /// from that turn's) and starts within this long of the note is that movement's return,
    /// spent: a punch's retraction, the arm's recovery after a stroke (0: off, as in the fixed
    /// rule). Only a movement that moved the hand has a return: an accelerometer note's, or a
    /// rotation's whose acceleration without gravity reached `flickReturnAccel`; a turn of the
    /// wrist alone (0.4-0.5 G) and the turn back after it are two strokes. The turn of an
    /// accelerometer note is the rotation at its time, when the wrist turned faster than half
    /// `flickRelease`. Needs a gyro; another accelerometer movement is a note of its own
    /// whichever way the wrist turns.
    public var flickReturnTime = 1.0
    public var flickReturnAccel = 0.8
    /// The adaptive flick (1, the defaults above) or the fixed one (0): `flickAdaptive=0` sets
    /// the accelerometer flick's settings above to the fixed rule's (3 G on the acceleration
    /// without gravity, no player scale: for a sensor on a strumming hand, whose strokes of 1-2 G
    /// the adaptive rule can take for gentle punches), 1 back to the adaptive rule's; reading it
    /// says which of the two the settings are based on. Given before the settings it sets.
    public var flickAdaptive: Double {
        get { flickGravityTimeConstant > 0 ? 1 : 0 }
        set {
            let adaptive = newValue >= 0.5, a = GestureSettings()
            flickAccelThreshold = adaptive ? a.flickAccelThreshold : 3.0
            flickAccelStartFraction = adaptive ? a.flickAccelStartFraction : 2.0 / 3.0
            flickAccelMagnitude = adaptive ? a.flickAccelMagnitude : 0
            flickAccelMinDuration = adaptive ? a.flickAccelMinDuration : 0.04
            flickAccelTimeConstant = adaptive ? a.flickAccelTimeConstant : 0.02
            flickGravityTimeConstant = adaptive ? a.flickGravityTimeConstant : 0
            flickPlayerScale = adaptive ? a.flickPlayerScale : 0
            flickAccelReleaseFraction = a.flickAccelReleaseFraction
            flickAccelGap = adaptive ? a.flickAccelGap : 0.1
            flickRearmFraction = adaptive ? a.flickRearmFraction : 0
            flickAccelPeakFraction = adaptive ? a.flickAccelPeakFraction : 0.5
            flickAccelSpentByRotation = adaptive ? a.flickAccelSpentByRotation : 1
            flickRefractory = adaptive ? a.flickRefractory : 0.3
            flickSpentTime = adaptive ? a.flickSpentTime : 0
            flickReturnTime = adaptive ? a.flickReturnTime : 0
        }
    }
    /// An accelerometer flick's strength is its peak level (G) times this, so that the flick's
    /// default velocity range (10-30) covers 3.3-10 G.
    public var flickAccelStrengthScale = 3.0
    // ---- shake
    /// Shaking: the acceleration level (gravity removed, averaged over `shakeTimeConstant`)
    /// must stay above `shakeThreshold` for `shakeMinDuration`; it ends below `shakeRelease`.
    /// The duration is what tells shaking from a stroke: a tennis forehand (swing, 47 G ball
    /// impact, follow-through) keeps that level up for 0.34-0.55 s on the real Apple Watch
    /// take, a punch for 0.2-0.4 s; shaking goes on.
    public var shakeThreshold = 2.0
    public var shakeRelease = 1.0
    public var shakeTimeConstant = 0.15
    public var shakeMinDuration = 0.7
    // ---- tap
    /// A tap: the acceleration (gravity removed) jumps above `tapThreshold` from below
    /// `tapQuiet` while the rotation rate stays under `tapMaxRate`, and falls back below half
    /// the threshold within `tapMaxDuration` (a knock is an impulse that rings down in a few
    /// ms; a hand movement lasts longer). It fires when it has fallen back: one sample of latency.
    public var tapThreshold = 2.0
    public var tapQuiet = 0.6
    public var tapMaxRate = 3.0
    public var tapMaxDuration = 0.03
    /// ...and the rotation rate has stayed under `tapMaxRate` this long (the jolt at the end
    /// of a stroke is not a tap)...
    public var tapQuietRotation = 0.2
    /// ...and the acceleration under `tapQuiet` this long: a knock hits a device held still;
    /// the stop of a punch or the first reading of a stroke at 17 Hz comes out of a movement
    /// (without a gyro, this is what keeps them from being taps).
    public var tapQuietBefore = 0.2
    public var tapRefractory = 0.15
    /// How long a tap counts as active (for `hold=tap`).
    public var tapActive = 0.1

    public init() {}
}

/// Recognises flicks, shaking and taps in one sender's stream. Pure and allocation-free.
///
/// A flick (stroke, swing, punch) comes from whichever sensor the stream has: from the gyro
/// (a sharp rotation peak, or with no accelerometer a long fast swing) and from the
/// accelerometer (a sustained high acceleration, impact spikes merged into the stroke that
/// holds them). One movement gives one flick: when one rule fires, the other's movement in
/// progress is spent too, and the refractory holds both.
public struct GestureDetector: Sendable {
    public var settings: GestureSettings
    /// Strength of each gesture that fired on the last update (0 = none).
    public private(set) var fired: InlineArray<3, Double> = .init(repeating: 0)
    /// Gestures in progress (bits of `Gesture.bit`).
    public private(set) var active: UInt8 = 0
    /// How many times each gesture fired.
    public private(set) var counts: InlineArray<3, Int> = .init(repeating: 0)

    // gyro movement
    @usableFromInline var strokePeak = 0.0
    @usableFromInline var strokeAngle = 0.0
    @usableFromInline var strokeAccel = 0.0
    @usableFromInline var inStroke = false
    @usableFromInline var strokeFired = false
    @usableFromInline var lastGyroTime = Double.nan
    @usableFromInline var lastFlick = -Double.infinity
    @usableFromInline var rate = 0.0
    /// The rotation of the movement in progress (the sum of its rates: a direction), a
    /// low-passed rotation rate (the turn at an accelerometer note), and the unit axis of the
    /// last note's turn (zero: none).
    @usableFromInline var strokeTurn = Vector3(0, 0, 0)
    @usableFromInline var recentTurn = Vector3(0, 0, 0)
    @usableFromInline var noteTurn = Vector3(0, 0, 0)
    @usableFromInline var sawAccel = false
    // accelerometer movement
    @usableFromInline var moveLevel = 0.0
    @usableFromInline var magnitudeLevel = 0.0
    @usableFromInline var slowGravity = Vector3(0, 0, 0)
    @usableFromInline var playerPeak = 0.0
    @usableFromInline var lastMoveTime = Double.nan
    @usableFromInline var inMove = false
    @usableFromInline var moveFired = false
    @usableFromInline var moveNoted = false
    @usableFromInline var moveThreshold = 0.0
    @usableFromInline var movePeak = 0.0
    @usableFromInline var moveMagnitude = 0.0
    @usableFromInline var moveFirstAbove = 0.0
    @usableFromInline var moveLastAbove = 0.0
    @usableFromInline var moveQuiet = 0.0
    // shake, tap
    @usableFromInline var shakeLevel = 0.0
    @usableFromInline var shakeAbove = Double.nan
    @usableFromInline var shaking = false
    @usableFromInline var lastAccelTime = Double.nan
    @usableFromInline var lastDeviation = 0.0
    @usableFromInline var lastLoud = -Double.infinity
    @usableFromInline var lastTap = -Double.infinity
    @usableFromInline var inSpike = false
    @usableFromInline var spikeStart = 0.0
    @usableFromInline var lastFastRotation = -Double.infinity
    @usableFromInline var spikePeak = 0.0

    public init(settings: GestureSettings = .init()) { self.settings = settings }

    public mutating func reset() { self = GestureDetector(settings: settings) }

    /// Clears what fired on the previous update (call once per frame before the updates).
    public mutating func beginFrame() {
        fired[0] = 0; fired[1] = 0; fired[2] = 0
    }

    /// A gyro sample: `w` is the bias-corrected rotation rate (rad/s).
    public mutating func gyro(_ w: Vector3, at time: Double) {
        let speed = w.length
        guard speed.isFinite else { return }
        let dt = lastGyroTime.isNaN ? 0 : max(0, min(time - lastGyroTime, 0.1))
        lastGyroTime = time
        rate = speed
        let s = settings
        if s.flickReturnTime > 0 { recentTurn += (w - recentTurn) * Self.alpha(dt, Self.turnTimeConstant) }
        if speed >= s.tapMaxRate { lastFastRotation = time }
        if !inStroke {
            guard speed >= s.flickRelease else { return }
            inStroke = true
            strokeFired =
                time - lastFlick < s.flickRefractory
                || (inMove && moveFired && (s.flickSpentTime <= 0 || time - lastFlick < s.flickSpentTime))
            strokePeak = speed
            strokeAngle = speed * dt
            strokeAccel = lastDeviation
            strokeTurn = w
            return
        }
        strokeAngle += speed * dt
        strokeTurn += w
        if !strokeFired && time - lastFlick < s.flickReturnTime && isReturn() { strokeFired = true }
        if !strokeFired { checkStroke(speed, time) }
        if speed < s.flickRelease {
            inStroke = false
            active &= ~Gesture.flick.bit
        }
    }

    /// The low-pass of the rotation rate whose direction is an accelerometer note's turn.
    public static let turnTimeConstant = 0.1

    /// Whether the movement in progress turns back against the last note's turn (cos < -0.5).
    @inline(__always) func isReturn() -> Bool {
        let n = strokeTurn.length
        return n > 1e-9 && noteTurn.dot(strokeTurn) < -0.5 * n
    }

    /// A note: its turn is the movement's rotation, or the rotation at this time when no
    /// rotation movement goes on (none when the wrist turns slower than half `flickRelease`, or
    /// when the movement did not move the hand: `moved`).
    @inline(__always) mutating func rememberTurn(moved: Bool) {
        let v = inStroke ? strokeTurn : recentTurn, n = v.length
        noteTurn = moved && (inStroke || n >= settings.flickRelease / 2) && n > 1e-9 ? v / n : Vector3(0, 0, 0)
    }

    /// One gyro movement gives one flick, when its rate has peaked: above `flickThreshold`, or
    /// (no accelerometer) above `flickSweepRate` after turning `flickSweepAngle`.
    @inline(__always) mutating func checkStroke(_ speed: Double, _ time: Double) {
        let s = settings
        if speed > strokePeak { strokePeak = speed }
        if strokePeak >= s.flickThreshold { active |= Gesture.flick.bit }
        // the peak has passed: one event for this movement, its strength the peak rate
        let sharp =
            strokePeak >= s.flickThreshold && speed < strokePeak && (!sawAccel || strokeAccel >= s.flickTurnAccel)
        let sweep =
            !sawAccel && strokePeak >= s.flickSweepRate && strokeAngle >= s.flickSweepAngle
            && speed <= strokePeak * s.flickPeakFraction
        if sharp || sweep {
            strokeFired = true
            active |= Gesture.flick.bit
            let noted = time - lastFlick >= s.flickRefractory
            if inMove {
                moveFired = true
                if noted { moveNoted = true }
            }
            if noted {
                lastFlick = time
                rememberTurn(moved: strokeAccel >= s.flickReturnAccel)
                fire(.flick, strokePeak)
            }
        }
    }

    /// An accelerometer sample: `deviation` is the magnitude of the acceleration with gravity
    /// removed (G): |accelerometer - estimated gravity|. `reading` is the accelerometer itself
    /// (G) when the stream has one: the flick reads it against its own slow average. Without a
    /// reading (a device's own user acceleration), the flick reads `deviation`.
    public mutating func accel(deviation: Double, reading: Vector3 = Vector3(.nan, .nan, .nan), at time: Double) {
        guard deviation.isFinite else { return }
        sawAccel = true
        let s = settings
        let dt = lastAccelTime.isNaN ? 0 : max(0, time - lastAccelTime)
        lastAccelTime = time
        // tap: a sharp spike from quiet, no rotation, over within a few ms
        if active & Gesture.tap.bit != 0 && time - lastTap >= s.tapActive { active &= ~Gesture.tap.bit }
        if !inSpike {
            if deviation >= s.tapThreshold && lastDeviation < s.tapQuiet && time - lastLoud >= s.tapQuietBefore
                && rate < s.tapMaxRate && time - lastTap >= s.tapRefractory
                && time - lastFastRotation > s.tapQuietRotation
            {
                inSpike = true
                spikePeak = deviation
                spikeStart = time
            }
        } else if deviation < s.tapThreshold / 2 {
            if lastFastRotation < spikeStart {  // no rotation all through the spike
                lastTap = time
                active |= Gesture.tap.bit
                fire(.tap, spikePeak)
                // the knock's own rise of the flick's level is not a stroke
                if inMove && moveFirstAbove >= spikeStart { moveFired = true }
            }
            inSpike = false
        } else {
            spikePeak = max(spikePeak, deviation)
            if time - spikeStart > s.tapMaxDuration { inSpike = false }  // too long for a knock
        }
        lastDeviation = deviation
        if deviation >= s.tapQuiet { lastLoud = time }
        if inStroke {
            strokeAccel = max(strokeAccel, deviation)
            if !strokeFired && rate < strokePeak { checkStroke(rate, time) }  // the evidence came after the peak
        }
        accelFlick(deviation, reading, time)
        // shake: a sustained acceleration level
        if dt > 0 {
            let a = Self.alpha(dt, s.shakeTimeConstant)
            shakeLevel += (deviation - shakeLevel) * a
        }
        if !shaking {
            if shakeLevel >= s.shakeThreshold {
                if shakeAbove.isNaN { shakeAbove = time }
                if time - shakeAbove >= s.shakeMinDuration {
                    shaking = true
                    active |= Gesture.shake.bit
                    fire(.shake, shakeLevel)
                }
            } else {
                shakeAbove = .nan
            }
        } else if shakeLevel < s.shakeRelease {
            shaking = false
            shakeAbove = .nan
            active &= ~Gesture.shake.bit
        }
    }

    /// A stroke from the accelerometer: a movement whose level peaks above its threshold, one
    /// event per movement just after its peak.
    @inline(__always) mutating func accelFlick(_ deviation: Double, _ a: Vector3, _ time: Double) {
        let s = settings
        let dt = lastMoveTime.isNaN ? 0 : max(0, min(time - lastMoveTime, 0.1))
        var user = deviation, magnitude = deviation
        if a.isFiniteVector {
            magnitude = abs(a.length - 1)
            if s.flickGravityTimeConstant > 0 {
                if lastMoveTime.isNaN || slowGravity.length < 1e-9 {
                    slowGravity = a
                } else {
                    slowGravity += (a - slowGravity) * Self.alpha(dt, s.flickGravityTimeConstant)
                }
                let g = slowGravity.length
                user = g > 1e-9 ? (a - slowGravity / g).length : magnitude
            }
        }
        if lastMoveTime.isNaN {
            moveLevel = user
            magnitudeLevel = magnitude
        } else {
            let k = Self.alpha(dt, s.flickAccelTimeConstant)
            moveLevel += (user - moveLevel) * k
            magnitudeLevel += (magnitude - magnitudeLevel) * k
        }
        lastMoveTime = time
        if dt > 0 && s.flickPlayerScale > 0 && s.flickPlayerMemory > 0 { playerPeak *= exp(-dt / s.flickPlayerMemory) }
        let level = moveLevel
        if !inMove {
            let threshold = max(s.flickAccelThreshold, s.flickPlayerScale * playerPeak)
            guard level >= s.flickAccelStartFraction * threshold else { return }
            inMove = true
            moveThreshold = threshold
            moveFired =
                time - lastFlick < s.flickRefractory || (s.flickAccelSpentByRotation >= 0.5 && inStroke && strokeFired)
            moveNoted = false
            movePeak = level
            moveMagnitude = magnitudeLevel
            moveFirstAbove = time
            moveLastAbove = time
            moveQuiet = 0
            return
        }
        let start = s.flickAccelStartFraction * moveThreshold
        let release = s.flickAccelReleaseFraction * moveThreshold
        if level >= start { moveLastAbove = time }
        movePeak = max(movePeak, level)
        moveMagnitude = max(moveMagnitude, magnitudeLevel)
        if !moveFired && movePeak >= moveThreshold && moveMagnitude >= s.flickAccelMagnitude
            && moveLastAbove - moveFirstAbove >= s.flickAccelMinDuration && level <= movePeak * s.flickAccelPeakFraction
        {
            moveFired = true
            moveNoted = true
            if inStroke { strokeFired = true }
            lastFlick = time
            rememberTurn(moved: true)
            active |= Gesture.flick.bit
            fire(.flick, movePeak * s.flickAccelStrengthScale)
        }
        var ended = false
        if level < release {
            moveQuiet += dt
            ended = moveQuiet >= s.flickAccelGap
        } else {
            moveQuiet = 0
        }
        if moveFired && level <= s.flickRearmFraction * movePeak && time - lastFlick >= s.flickRearmTime
            && s.flickRearmFraction > 0
        {
            ended = true
        }
        if ended {
            inMove = false
            if !inStroke { active &= ~Gesture.flick.bit }
            if moveNoted && s.flickPlayerScale > 0 {
                // the player's scale: up to a stronger stroke at once, 40 % of the way down to a weaker one
                playerPeak += (movePeak > playerPeak ? 1 : 0.4) * (movePeak - playerPeak)
            }
        }
    }

    /// The exact first-order low-pass step for an interval `dt` (the same smoothing at any rate).
    @inline(__always) static func alpha(_ dt: Double, _ tau: Double) -> Double {
        guard dt > 0, dt.isFinite, tau > 0 else { return 1 }
        return 1 - exp(-dt / tau)
    }

    @inline(__always) mutating func fire(_ g: Gesture, _ strength: Double) {
        fired[g.rawValue] = strength
        counts[g.rawValue] &+= 1
    }
}
