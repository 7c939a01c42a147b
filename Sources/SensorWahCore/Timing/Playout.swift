#if canImport(Glibc)
    import Glibc
#endif

/// When to play each reading of one sender so that its readings leave as evenly as the sender
/// took them: at its own time, mapped onto the local clock (`SenderClock`), plus a constant
/// delay. A reading that arrives after its time is played at once and counted as late.
///
/// The delay is fixed (`Mode.fixed`) or follows what this sender's delivery needs
/// (`Mode.auto`): a high quantile of how late its recent readings arrived, plus a margin.
/// It grows at once when the delivery worsens (the readings after a stall would otherwise all
/// be late) and shrinks slowly when it improves, within `Settings.maximum`. Fixed storage, no
/// allocation after `init`.
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
        /// Added to that quantile (seconds).
        public var margin = 0.001
        /// How many readings back the lateness counts half (the memory of the delivery).
        public var halfLife = 30_000.0
        /// `auto` raises the delay when the delivery needs this much more (seconds)...
        public var raiseAbove = 0.005
        /// ...and lowers it, slowly, when it needs this much less.
        public var lowerBelow = 0.005
        /// How fast a delay longer than needed shrinks (seconds of delay per second).
        public var shrinkPerSecond = 0.0005
        /// The longest delay `auto` sets (seconds).
        public var maximum = 0.25
        /// Readings over which `auto` follows the delivery both ways, before it holds the delay
        /// steady (then it moves only past `raiseAbove` or `lowerBelow`): seconds of the sender's
        /// time from its first reading (a jump of its clock changes nothing of its delivery).
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

    /// How late readings arrived: weights in bins of `binSeconds`, fading with `halfLife`.
    private var bins: [Double]
    private var total = 0.0
    static let binSeconds = 0.0005
    private var lastRelease = -Double.infinity
    private var lastUpdate = Double.nan
    /// The sender time `auto`'s warm-up counts from: its first reading's.
    private var warmUpFrom = Double.nan

    public init(mode: Mode, settings: Settings = Settings()) {
        precondition(settings.halfLife >= 64 && settings.quantile > 0 && settings.quantile < 1)
        self.mode = mode
        self.settings = settings
        if case .fixed(let d) = mode { delay = d } else { delay = settings.margin }
        bins = Array(repeating: 0, count: Int((settings.maximum / Self.binSeconds).rounded(.up)) + 1)
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
        if clock.restarts != restartsBefore {
            lastRelease = -Double.infinity
            if warmUpFrom.isNaN { warmUpFrom = senderTime }
        }
        record(lateness)
        if mode == .auto { adapt(lateness, now: arrival, senderTime: senderTime) }
        var release = clock.local(senderTime) + delay
        var late = false
        if release < arrival {
            release = arrival
            late = true
            lateCount += 1
        }
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

    private func bin(holding q: Double) -> Int {
        var below = 0.0, k = 0
        let wanted = total * q
        while k < bins.count - 1 && below + bins[k] < wanted {
            below += bins[k]
            k += 1
        }
        return k
    }

    private mutating func record(_ lateness: Double) {
        let bin = min(bins.count - 1, max(0, Int(lateness / Self.binSeconds)))
        bins[bin] += 1
        total += 1
        if count % 256 == 0 {
            let fade = exp(-256 * 0.693_147_180_559_945_3 / settings.halfLife)  // 0.5 per half-life
            for i in bins.indices { bins[i] *= fade }
            total *= fade
        }
    }

    private mutating func adapt(_ lateness: Double, now: Double, senderTime: Double) {
        let warming = !(senderTime - warmUpFrom >= settings.warmUp)
        // the quantile is taken again every 64 readings, and at once while warming up for a
        // reading later than the delay allows; while warming up the delay follows it both ways
        guard count % 64 == 0 || (warming && lateness + settings.margin > delay) else { return }
        let elapsed = lastUpdate.isNaN ? 0 : max(0, now - lastUpdate)
        lastUpdate = now
        let k = bin(holding: settings.quantile)
        let needed = min(settings.maximum, Double(k + 1) * Self.binSeconds + settings.margin)
        if warming {
            delay = needed
        } else if needed > delay + settings.raiseAbove {
            delay = needed
        } else if needed < delay - settings.lowerBelow {
            delay = max(needed + settings.lowerBelow / 2, delay - settings.shrinkPerSecond * elapsed)
        }
    }
}
