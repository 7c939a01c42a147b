#if canImport(Glibc)
    import Glibc
#endif

/// When to play each reading of one sender so that its readings leave as evenly as the sender
/// took them: at its own time, mapped onto the local clock (`SenderClock`), plus a constant
/// delay. A reading that arrives after its time is played at once and counted as late.
///
/// The delay is fixed (`Mode.fixed`) or follows what this sender's delivery needs
/// (`Mode.auto`). For the sender's first minute `auto` follows the 99th percentile of how late
/// its readings arrived, plus a margin, both ways. Then it sets the delay once, a little above
/// that percentile, and holds it: every change of a held delay shifts the output by as much,
/// which is what a steady playout must avoid. It moves again only when the delivery has
/// clearly changed, judged on the recent readings (the last minute or so): up when more than
/// 1.25 % of them came late, down when under 0.5 % would come later than 5 ms less; never
/// twice within that minute, and never beyond `Settings.maximum`. Fixed storage, no allocation
/// after `init`.
public struct Playout: Sendable {
    public enum Mode: Sendable, Equatable {
        /// Play each reading as it arrives (no schedule).
        case off
        /// A constant delay, in seconds.
        case fixed(Double)
        /// The delay the delivery needs.
        case auto

        /// As `--playout` writes it: `off`, `auto`, or the delay in milliseconds.
        public var text: String {
            switch self {
            case .off: return "off"
            case .auto: return "auto"
            case .fixed(let d): return NumberText.trimmed(d * 1000, 3) + " ms"
            }
        }

        /// `off`, `auto`, or a delay in milliseconds (0 to 1000); nil for anything else.
        public init?(parsing text: String) {
            let t = String(text.lowercased().filter { $0 != " " })
            switch t {
            case "off": self = .off
            case "auto": self = .auto
            default:
                guard let ms = Double(t.hasSuffix("ms") ? String(t.dropLast(2)) : t), ms.isFinite,
                    (0...1000).contains(ms)
                else { return nil }
                self = .fixed(ms / 1000)
            }
        }
    }

    public struct Settings: Sendable, Equatable {
        /// The share of readings `auto` lets arrive in time.
        public var quantile = 0.99
        /// Added to that quantile while warming up (seconds)...
        public var margin = 0.001
        /// ...and when the delay is set to be held: the middle of the window between the
        /// quantile (fewer late readings would need more delay) and 5 ms above it.
        public var centre = 0.0025
        /// How long ago (seconds) a reading's lateness counts half: over the sender's whole
        /// stream (the delay set after the warm-up), and over its recent readings (the moves
        /// after it). In seconds, not readings, so a watch at 800 Hz is judged over as many
        /// of the network's stalls as a phone at 100 Hz.
        public var halfLife = 300.0
        public var recentHalfLife = 60.0
        /// A held delay rises when more than this share of the recent readings came late...
        public var raiseShare = 0.0125
        /// ...and falls when less than this share of them would come later than `lowerBy` less.
        public var lowerShare = 0.005
        public var lowerBy = 0.005
        /// Seconds a held delay stays put after it is set or moved.
        public var holdSeconds = 60.0
        /// The longest delay `auto` sets (seconds).
        public var maximum = 0.25
        /// The sender's first seconds (from its first reading's arrival), over which `auto`
        /// follows the delivery both ways before it holds the delay.
        public var warmUp = 60.0
        public init() {}
    }

    /// What `schedule` decided for one reading.
    public struct Decision: Sendable, Equatable {
        /// The local time to play it at (seconds; the arrival for a late reading or with `off`).
        public var release: Double
        /// It arrived after its time and plays late.
        public var late: Bool
        /// How late it arrived against the sender's clock envelope (seconds).
        public var lateness: Double
    }

    public private(set) var mode: Mode
    public let settings: Settings
    public private(set) var clock = SenderClock()
    /// The delay in force (seconds).
    public private(set) var delay: Double
    /// Readings played late, and all readings scheduled.
    public private(set) var lateCount = 0
    public private(set) var count = 0

    /// How late readings arrived: weights in bins of `binSeconds`, fading with `halfLife`, and
    /// the same over the recent readings (fading with `recentHalfLife`).
    private var bins: [Double]
    private var total = 0.0
    private var recentBins: [Double]
    private var recentTotal = 0.0
    /// The recent readings played late, and all of them (fading with `recentHalfLife`).
    private var recentLate = 0.0
    private var recentSeen = 0.0
    /// `auto` holds its delay (the warm-up is over), and since when (local seconds) it has not
    /// moved; when the lateness last faded.
    private var holding = false
    private var movedAt = -Double.infinity
    private var fadedAt = Double.nan
    static let binSeconds = 0.0005
    private var lastRelease = -Double.infinity
    /// The local time `auto`'s warm-up counts from: its first reading's arrival.
    private var warmUpFrom = Double.nan

    public init(mode: Mode, settings: Settings = Settings()) {
        precondition(
            settings.halfLife > 0 && settings.recentHalfLife > 0 && settings.quantile > 0 && settings.quantile < 1)
        self.mode = mode
        self.settings = settings
        if case .fixed(let d) = mode { delay = d } else { delay = settings.margin }
        bins = Array(repeating: 0, count: Int((settings.maximum / Self.binSeconds).rounded(.up)) + 1)
        recentBins = bins
    }

    /// Plays on another way, keeping what was learnt of the sender's clock and delivery: a
    /// fixed delay takes over at once; `auto` starts from the delay in force.
    public mutating func set(_ mode: Mode) {
        self.mode = mode
        if case .fixed(let d) = mode { delay = d }
    }

    /// Schedules one reading stamped `senderTime` (the sender's seconds) that arrived at
    /// `arrival` (local seconds). Releases never go backwards: readings keep their order.
    public mutating func schedule(senderTime: Double, arrival: Double) -> Decision {
        count += 1
        guard mode != .off, senderTime.isFinite else {
            return Decision(release: arrival, late: false, lateness: 0)
        }
        let restartsBefore = clock.restarts
        let lateness = clock.observe(senderTime: senderTime, arrival: arrival)
        if clock.restarts != restartsBefore { lastRelease = -Double.infinity }
        if warmUpFrom.isNaN { warmUpFrom = arrival }
        record(lateness, now: arrival)
        if mode == .auto { adapt(lateness, now: arrival) }
        var release = clock.local(senderTime) + delay
        var late = false
        if release < arrival {
            release = arrival
            late = true
            lateCount += 1
            recentLate += 1
        }
        recentSeen += 1
        release = max(release, lastRelease)
        lastRelease = release
        return Decision(release: release, late: late, lateness: lateness)
    }

    /// How late the sender's readings have been arriving, recent ones counting most: the
    /// lateness (seconds, against the clock envelope) below which `q` of them arrived; NaN
    /// before any reading. The spread between q = 0.01 and 0.99 is the delivery's jitter.
    public func lateness(quantile q: Double) -> Double {
        guard total > 0 else { return .nan }
        return Double(bin(holding: q)) * Self.binSeconds
    }

    private func bin(holding q: Double, recent: Bool = false) -> Int {
        var below = 0.0, k = 0
        let wanted = (recent ? recentTotal : total) * q
        while k < bins.count - 1 && below + (recent ? recentBins[k] : bins[k]) < wanted {
            below += recent ? recentBins[k] : bins[k]
            k += 1
        }
        return k
    }

    /// The share of the recent readings that arrived later than `lateness` (seconds).
    private func recentShare(laterThan lateness: Double) -> Double {
        guard recentTotal > 0 else { return 0 }
        guard lateness >= 0 else { return 1 }
        let k = Int(lateness / Self.binSeconds)
        guard k < recentBins.count - 1 else { return 0 }
        var above = 0.0
        for i in (k + 1)..<recentBins.count { above += recentBins[i] }
        return above / recentTotal
    }

    /// The delay that lets `quantile` of the readings (the recent ones, or all) arrive in time,
    /// plus `extra`.
    private func needed(recent: Bool, plus extra: Double) -> Double {
        min(settings.maximum, Double(bin(holding: settings.quantile, recent: recent) + 1) * Self.binSeconds + extra)
    }

    private mutating func record(_ lateness: Double, now: Double) {
        let bin = min(bins.count - 1, max(0, Int(lateness / Self.binSeconds)))
        bins[bin] += 1
        total += 1
        recentBins[bin] += 1
        recentTotal += 1
        if fadedAt.isNaN { fadedAt = now }
        if count % 256 == 0 {
            // 0.5 per half-life of the time since the last fading
            let elapsed = max(0, now - fadedAt) * 0.693_147_180_559_945_3
            fadedAt = now
            let fade = exp(-elapsed / settings.halfLife)
            for i in bins.indices { bins[i] *= fade }
            total *= fade
            let recentFade = exp(-elapsed / settings.recentHalfLife)
            for i in recentBins.indices { recentBins[i] *= recentFade }
            recentTotal *= recentFade
            recentLate *= recentFade
            recentSeen *= recentFade
        }
    }

    private mutating func adapt(_ lateness: Double, now: Double) {
        if !holding && !(now - warmUpFrom >= settings.warmUp) {
            // warming up: the quantile every 64 readings, and at once for a reading later than
            // the delay allows; the delay follows it both ways
            guard count % 64 == 0 || lateness + settings.margin > delay else { return }
            delay = needed(recent: false, plus: settings.margin)
            return
        }
        if !holding {
            holding = true
            movedAt = now
            delay = needed(recent: false, plus: settings.centre)
            return
        }
        guard count % 64 == 0, now - movedAt >= settings.holdSeconds else { return }
        if recentSeen > 0 && recentLate / recentSeen > settings.raiseShare {
            let wanted = needed(recent: true, plus: settings.centre)
            if wanted > delay {
                delay = wanted
                movedAt = now
            }
        } else if recentShare(laterThan: delay - settings.lowerBy) < settings.lowerShare {
            let wanted = needed(recent: true, plus: settings.centre)
            if wanted < delay - settings.lowerBy {
                delay = wanted
                movedAt = now
            }
        }
    }
}
