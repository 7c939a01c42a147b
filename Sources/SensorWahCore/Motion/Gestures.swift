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
        switch self { case .flick: return .flick; case .shake: return .shake; case .tap: return .tap }
    }
    public var description: String {
        switch self { case .flick: return "flick"; case .shake: return "shake"; case .tap: return "tap" }
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

/// Thresholds of the gesture recogniser. Rates in rad/s, accelerations in G, times in seconds.
/// The defaults were chosen on synthesised flicks, strums, wah playing and slow tilts
/// (GestureTests): see README "Motion".
public struct GestureSettings: Sendable, Equatable {
    /// A flick starts when the rotation rate exceeds this...
    public var flickThreshold = 10.0
    /// ...and the movement ends when it falls below this.
    public var flickRelease = 4.0
    /// No new flick for this long after one fired (the wrist's return swing is not a second flick).
    public var flickRefractory = 0.3
    /// Shaking: the acceleration level (gravity removed, averaged over `shakeTimeConstant`)
    /// must stay above `shakeThreshold` for `shakeMinDuration`; it ends below `shakeRelease`.
    public var shakeThreshold = 2.0
    public var shakeRelease = 1.0
    public var shakeTimeConstant = 0.15
    public var shakeMinDuration = 0.25
    /// A tap: the acceleration (gravity removed) jumps above `tapThreshold` from below
    /// `tapQuiet` in one sample while the rotation rate stays under `tapMaxRate`, and falls back
    /// below half the threshold within `tapMaxSamples` samples (a knock is an impulse; a hand
    /// movement lasts longer). It fires when it has fallen back: one sample of latency.
    public var tapThreshold = 2.0
    public var tapQuiet = 0.6
    public var tapMaxRate = 3.0
    public var tapMaxSamples = 2
    /// ...and the rotation rate has stayed under `tapMaxRate` this long (the jolt at the end
    /// of a stroke is not a tap).
    public var tapQuietRotation = 0.2
    public var tapRefractory = 0.15
    /// How long a tap counts as active (for `hold=tap`).
    public var tapActive = 0.1

    public init() {}
}

/// Recognises flicks, shaking and taps in one sender's stream. Pure and allocation-free.
public struct GestureDetector: Sendable {
    public var settings: GestureSettings
    /// Strength of each gesture that fired on the last update (0 = none).
    public private(set) var fired: InlineArray<3, Double> = .init(repeating: 0)
    /// Gestures in progress (bits of `Gesture.bit`).
    public private(set) var active: UInt8 = 0
    /// How many times each gesture fired.
    public private(set) var counts: InlineArray<3, Int> = .init(repeating: 0)

    @usableFromInline var strokePeak = 0.0
    @usableFromInline var inStroke = false
    @usableFromInline var strokeFired = false
    @usableFromInline var lastFlick = -Double.infinity
    @usableFromInline var rate = 0.0
    @usableFromInline var shakeLevel = 0.0
    @usableFromInline var shakeAbove = Double.nan
    @usableFromInline var shaking = false
    @usableFromInline var lastAccelTime = Double.nan
    @usableFromInline var lastDeviation = 0.0
    @usableFromInline var lastTap = -Double.infinity
    @usableFromInline var spikeSamples = 0
    @usableFromInline var spikeStart = 0.0
    @usableFromInline var lastFastRotation = -Double.infinity
    @usableFromInline var spikePeak = 0.0

    public init(settings: GestureSettings = .init()) { self.settings = settings }

    public mutating func reset() { self = GestureDetector(settings: settings) }

    /// Clears what fired on the previous update (call once per frame before the updates).
    public mutating func beginFrame() {
        fired[0] = 0; fired[1] = 0; fired[2] = 0
    }

    /// A gyro sample: `speed` is the magnitude of the bias-corrected rotation rate (rad/s).
    public mutating func gyro(speed: Double, at time: Double) {
        guard speed.isFinite else { return }
        rate = speed
        let s = settings
        if speed >= s.tapMaxRate { lastFastRotation = time }
        if !inStroke {
            guard speed >= s.flickThreshold, time - lastFlick >= s.flickRefractory else { return }
            inStroke = true
            strokeFired = false
            strokePeak = speed
            active |= Gesture.flick.bit
            return
        }
        if speed > strokePeak && !strokeFired {
            strokePeak = speed
        } else if !strokeFired {
            // the peak has passed: one event for this movement, its strength the peak rate
            strokeFired = true
            lastFlick = time
            fire(.flick, strokePeak)
        }
        if speed < s.flickRelease {
            inStroke = false
            active &= ~Gesture.flick.bit
        }
    }

    /// An accelerometer sample: `deviation` is the magnitude of the acceleration with gravity
    /// removed (G): |accelerometer - estimated gravity|.
    public mutating func accel(deviation: Double, at time: Double) {
        guard deviation.isFinite else { return }
        let s = settings
        let dt = lastAccelTime.isNaN ? 0 : time - lastAccelTime
        lastAccelTime = time
        // tap: a sharp spike from quiet, no rotation, over within a sample or two
        if active & Gesture.tap.bit != 0 && time - lastTap >= s.tapActive { active &= ~Gesture.tap.bit }
        if spikeSamples == 0 {
            if deviation >= s.tapThreshold && lastDeviation < s.tapQuiet && rate < s.tapMaxRate
                && time - lastTap >= s.tapRefractory && time - lastFastRotation > s.tapQuietRotation {
                spikeSamples = 1
                spikePeak = deviation
                spikeStart = time
            }
        } else if deviation < s.tapThreshold / 2 {
            if lastFastRotation < spikeStart {   // no rotation all through the spike
                lastTap = time
                active |= Gesture.tap.bit
                fire(.tap, spikePeak)
            }
            spikeSamples = 0
        } else {
            spikeSamples += 1
            spikePeak = max(spikePeak, deviation)
            if spikeSamples > s.tapMaxSamples { spikeSamples = 0 }   // too long for a knock
        }
        lastDeviation = deviation
        // shake: a sustained acceleration level
        if dt > 0 {
            let a = OrientationEstimator.alpha(dt: dt, tau: s.shakeTimeConstant)
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

    @inline(__always) mutating func fire(_ g: Gesture, _ strength: Double) {
        fired[g.rawValue] = strength
        counts[g.rawValue] &+= 1
    }
}
