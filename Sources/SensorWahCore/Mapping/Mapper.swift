#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the mapper counted.
public struct MapperStats: Sendable, Equatable {
    public var outOfBounds = 0  // dropped: beyond the hard bound
    public var implausibleJumps = 0  // dropped: a jump too fast against recent samples
    public var nonFinite = 0  // dropped: NaN or infinity
    public var rateLimited = 0  // changes held back by the rate limit (sent later)
    public var messages = 0
    public init() {}
    public var outliers: Int { outOfBounds + implausibleJumps }
}

/// Per-mapping running state.
struct MappingState: Sendable {
    var filter: OneEuroFilter
    var lastAccepted = Double.nan
    var lastAcceptedTime = Double.nan
    var candidate = Double.nan
    var candidateRun = 0
    var lastSent = -1
    var lastSentTime = -Double.infinity
    var pending = -1
    var pendingTime = 0.0
    /// `glide=`: gliding to rest from this value since `glideStartClock` (monotonic s) / the
    /// sensor time `glideStartTime` (-1: not gliding); then resuming from `resumeFrom` since
    /// the sensor time `resumeStart` (-1: no resume; NaN start: waiting for the first reading).
    var glideFrom = -1
    var glideStartClock = 0.0
    var glideStartTime = 0.0
    var resumeFrom = -1
    var resumeStart = Double.nan
    /// A note that is sounding: when its Note Off is due (NaN: none).
    var noteOffDue = Double.nan
    /// Toggles and the wah switch: the state the next gesture flips.
    var toggled = false
    /// `hold=`: frozen now; `relative`: the offset added to the input, the last input before
    /// the hold, and whether the next reading re-bases the offset.
    var held = false
    var offset = 0.0
    var lastInput = Double.nan
    var rebase = false
    /// The live view's probe: the last reading and its smoothed value, gestures fired.
    var probeRaw = Double.nan
    var probeSmoothed = Double.nan
    var fires = 0
    /// Readings dropped as outliers (beyond the hard bound, or an implausible jump).
    var rejected = 0
}

/// Turns sensor frames into MIDI events, one mapping at a time, in this order: outlier
/// rejection, clamping, smoothing, normalisation (invert, dead zone, curve, bipolar centre),
/// then emission only when the output value changes (optionally rate-limited).
/// No allocation per frame: state lives in arrays sized once.
public struct Mapper: Sendable {
    public let mappings: [Mapping]
    var states: [MappingState]
    public internal(set) var stats = MapperStats()
    /// The latest sensor time seen (stamps rest messages at the end of a stream).
    @usableFromInline var _latest = 0.0
    public var latestTime: Double { _latest }
    /// Whether any mapping reads what the motion stage computes (else the stage can be skipped).
    /// Stored: the listener asks for every frame.
    public let needsMotionStage: Bool
    /// Whether any mapping reads the device's attitude quaternion (`quat.*`).
    public var readsQuaternion: Bool {
        mappings.contains { m in
            if case .axis(let q) = m.source {
                return q.rawValue >= Quantity.quatX.rawValue && q.rawValue <= Quantity.quatW.rawValue
            }
            return false
        }
    }
    /// Solo (the live view's `s` key): only mapping `solo` sends; -1 lets every mapping send.
    /// The others are left where they are (not stepped) until solo ends.
    public var solo = -1

    public init(mappings: [Mapping] = [.default]) {
        self.mappings = mappings
        self.needsMotionStage = mappings.contains { $0.needsMotionStage }
        self.states = mappings.map { MappingState(filter: OneEuroFilter(timeConstant: $0.smoothing, beta: $0.beta)) }
    }

    /// Processes one frame; `emit` receives each message in mapping order.
    /// `sender` names the frame's origin for mappings restricted to one sender.
    @inlinable
    public mutating func process(_ frame: borrowing SensorFrame, sender: String? = nil, emit: (MappedEvent) -> Void) {
        let groups = frame.newGroups
        for i in 0..<mappings.count {
            let m = mappings[i]
            let g = m.source.group
            // a sounding note ends when its length has passed, whatever this frame carries
            if m.target.isTrigger { endDueNote(i, m, now: frame.latestTime, emit: emit) }
            if groups & g.bit == 0 { continue }
            if solo >= 0 && i != solo { continue }
            if let wanted = m.sender, !Mapping.sender(sender, matches: wanted) { continue }
            let hb = m.holdBits
            if hb != 0, holding(i, m, active: frame.activeGestures & hb != 0) { continue }
            let t = frame.times[g.rawValue]
            if t > _latest { _latest = t }
            if m.target.isTrigger {
                trigger(i, m, strength: m.source.read(frame), time: t, emit: emit)
                continue
            }
            step(i, m, value: m.source.read(frame), time: frame.times[g.rawValue], emit: emit)
        }
    }

    @usableFromInline
    mutating func step(_ i: Int, _ m: Mapping, value x: Double, time t: Double, emit: (MappedEvent) -> Void) {
        // held-back change whose interval has passed goes out first, whatever this reading does
        flushPending(i, m, now: t, emit: emit)
        if x.isNaN { return }  // "no value": nothing to do
        states[i].probeRaw = x
        if !x.isFinite { stats.nonFinite &+= 1; return }
        if let bound = m.rejectAbove, abs(x) > bound { stats.outOfBounds &+= 1; states[i].rejected &+= 1; return }
        // implausible jump against the last accepted reading
        let last = states[i].lastAccepted
        if !last.isNaN && m.maxSpeed.isFinite {
            let dt = max(t - states[i].lastAcceptedTime, 0)
            let allowed = m.maxSpeed * dt + m.jumpAllowance
            if abs(x - last) > allowed {
                // a real change of level persists: accept after `jumpConfirm` consistent readings
                let cand = states[i].candidate
                if !cand.isNaN && abs(x - cand) <= m.jumpAllowance + m.maxSpeed * 0.02 {
                    states[i].candidateRun &+= 1
                } else {
                    states[i].candidateRun = 1
                }
                states[i].candidate = x
                if states[i].candidateRun < m.jumpConfirm {
                    stats.implausibleJumps &+= 1
                    states[i].rejected &+= 1
                    return
                }
                states[i].filter.reset()  // the new level is real: restart the smoother there
            }
        }
        states[i].candidate = .nan
        states[i].candidateRun = 0
        states[i].lastAccepted = x
        states[i].lastAcceptedTime = t
        // relative: the input plus an offset that keeps the value where the hold left it
        var input = x
        if m.relative {
            if states[i].rebase, !states[i].lastInput.isNaN { states[i].offset = states[i].lastInput - x }
            states[i].rebase = false
            input = x + states[i].offset
            // pushing past an end of the range stores nothing: the offset keeps the value at the end
            let inside = min(max(input, m.inputMin), m.inputMax)
            states[i].offset += inside - input
            input = inside
            states[i].lastInput = input
        }
        // clamp, smooth
        let clamped = min(max(input, m.inputMin), m.inputMax)
        let smoothed = m.smoothing > 0 ? states[i].filter.filter(clamped, at: t) : clamped
        guard smoothed.isFinite else { stats.nonFinite &+= 1; states[i].filter.reset(); return }
        states[i].probeSmoothed = smoothed
        var out = Self.normalise(smoothed, m)
        if m.glide > 0 { out = resume(i, m, out, time: t) }
        send(i, m, value: out, time: t, emit: emit)
    }

    /// `glide=` after a rest (or during a glide to it): the output moves from where it was to
    /// the sensor's value over the glide time instead of jumping.
    @inline(__always)
    mutating func resume(_ i: Int, _ m: Mapping, _ out: Int, time t: Double) -> Int {
        if states[i].glideFrom >= 0 {  // the sender came back mid-glide
            states[i].glideFrom = -1
            states[i].resumeFrom = states[i].lastSent
            states[i].resumeStart = t
        }
        let from = states[i].resumeFrom
        guard from >= 0 else { return out }
        if states[i].resumeStart.isNaN { states[i].resumeStart = t }
        let f = (t - states[i].resumeStart) / m.glide
        if f >= 1 { states[i].resumeFrom = -1; return out }
        return Int((Double(from) + Double(out - from) * max(f, 0)).rounded())
    }

    /// What mapping `i` last read (raw, before outlier rejection), its smoothed value, the
    /// value last sent (-1: none yet), how often its gesture fired and how many readings it
    /// dropped as outliers: the live view's and the plot's probe.
    public func probe(_ i: Int) -> (raw: Double, smoothed: Double, output: Int, fires: Int, rejected: Int) {
        let s = states[i]
        return (s.probeRaw, s.probeSmoothed, s.lastSent, s.fires, s.rejected)
    }

    /// True while a controller glides to its rest value (call `advanceGlides` until false).
    public var isGliding: Bool {
        for i in 0..<states.count where states[i].glideFrom >= 0 { return true }
        return false
    }

    /// Moves gliding controllers on to `clock` (the monotonic seconds `rest(glideClock:)` used);
    /// a glide that has arrived leaves the controller at rest, to resume smoothly.
    public mutating func advanceGlides(clock: Double, emit: (MappedEvent) -> Void) {
        for i in 0..<mappings.count where states[i].glideFrom >= 0 {
            let m = mappings[i]
            let from = states[i].glideFrom
            let elapsed = max(clock - states[i].glideStartClock, 0)
            let f = min(elapsed / m.glide, 1)
            let v = Int((Double(from) + Double(m.rest - from) * f).rounded())
            if f >= 1 {
                states[i].glideFrom = -1
                states[i].resumeFrom = m.rest
                states[i].resumeStart = .nan
            }
            if v == states[i].lastSent { continue }
            let t = states[i].glideStartTime + elapsed
            states[i].lastSent = v
            states[i].lastSentTime = t
            stats.messages &+= 1
            emit(Self.event(m.target, value: v, time: t))
        }
    }

    /// `hold=`: true while the gesture lasts (the mapping is frozen); at its end a relative
    /// mapping re-bases on the next reading.
    @usableFromInline
    mutating func holding(_ i: Int, _ m: Mapping, active: Bool) -> Bool {
        if active {
            states[i].held = true
            states[i].pending = -1
            return true
        }
        if states[i].held {
            states[i].held = false
            if m.relative { states[i].rebase = true }
        }
        return false
    }

    /// The softest velocity a gesture plays: a gesture that fired at all is heard.
    public static let softestVelocity = 40

    /// A gesture's note velocity from its strength's place in the mapping's range (0-127):
    /// `softestVelocity` at the bottom of the range (a gesture just over its threshold), 127
    /// at the top.
    @inlinable
    static func noteVelocity(_ position: Int) -> Int {
        softestVelocity + (max(0, min(127, position)) * (127 - softestVelocity) + 63) / 127
    }

    /// A gesture source fired (strength > 0): a note, a toggle or the wah switch.
    @usableFromInline
    mutating func trigger(_ i: Int, _ m: Mapping, strength x: Double, time t: Double, emit: (MappedEvent) -> Void) {
        guard x > 0, x.isFinite else { return }
        states[i].probeRaw = x
        states[i].fires &+= 1
        switch m.target {
        case .note(_, _, let length):
            if !states[i].noteOffDue.isNaN { endNote(i, m, at: t, emit: emit) }  // retrigger: the old note ends first
            let velocity = Self.noteVelocity(Self.normalise(x, m))
            states[i].noteOffDue = t + length
            states[i].lastSent = velocity
            states[i].lastSentTime = t
            stats.messages &+= 1
            emit(Self.event(m.target, value: velocity, time: t))
        default:
            states[i].toggled.toggle()
            let v = states[i].toggled ? m.target.maxValue : 0
            states[i].lastSent = v
            states[i].lastSentTime = t
            stats.messages &+= 1
            emit(Self.event(m.target, value: v, time: t))
        }
    }

    @usableFromInline
    mutating func endDueNote(_ i: Int, _ m: Mapping, now: Double, emit: (MappedEvent) -> Void) {
        if states[i].noteOffDue <= now { endNote(i, m, emit: emit) }
    }

    @usableFromInline
    mutating func endNote(_ i: Int, _ m: Mapping, at time: Double? = nil, emit: (MappedEvent) -> Void) {
        let due = states[i].noteOffDue
        guard !due.isNaN else { return }
        states[i].noteOffDue = .nan
        states[i].lastSent = 0
        stats.messages &+= 1
        emit(Self.event(m.target, value: 0, time: time ?? due))
    }

    /// Maps a clamped input value to 0...maxValue with the mapping's shaping.
    public static func normalise(_ x: Double, _ m: Mapping) -> Int {
        let maxV = m.target.maxValue
        let v = min(max(x, m.inputMin), m.inputMax)
        if m.bipolar {
            // signed position -1...1 around the centre, each half scaled on its own
            var s: Double
            if v >= m.centre {
                s = m.inputMax > m.centre ? (v - m.centre) / (m.inputMax - m.centre) : 0
            } else {
                s = m.centre > m.inputMin ? -(m.centre - v) / (m.centre - m.inputMin) : 0
            }
            if m.invert { s = -s }
            var mag = abs(s)
            if m.deadZone > 0 { mag = mag <= m.deadZone ? 0 : (mag - m.deadZone) / (1 - m.deadZone) }
            mag = min(max(m.curve.apply(mag), 0), 1)
            let half = (maxV + 1) / 2  // 64 or 8192: the exact rest
            let span = Double(s >= 0 ? maxV - half : half)
            let r = Int((mag * span).rounded())
            return s >= 0 ? half + r : half - r
        } else {
            var u = (v - m.inputMin) / (m.inputMax - m.inputMin)
            if m.invert { u = 1 - u }
            if m.deadZone > 0 { u = u <= m.deadZone ? 0 : (u - m.deadZone) / (1 - m.deadZone) }
            u = min(max(m.curve.apply(u), 0), 1)
            return Int((u * Double(maxV)).rounded())
        }
    }

    @inline(__always)
    mutating func send(_ i: Int, _ m: Mapping, value: Int, time t: Double, emit: (MappedEvent) -> Void) {
        if value == states[i].lastSent { states[i].pending = -1; return }
        if m.rateLimit > 0 && t - states[i].lastSentTime < 1 / m.rateLimit {
            if states[i].pending < 0 { stats.rateLimited &+= 1 }
            states[i].pending = value
            return
        }
        states[i].pending = -1
        states[i].lastSent = value
        states[i].lastSentTime = t
        stats.messages &+= 1
        emit(Self.event(m.target, value: value, time: t))
    }

    @inline(__always)
    mutating func flushPending(_ i: Int, _ m: Mapping, now t: Double, emit: (MappedEvent) -> Void) {
        let p = states[i].pending
        guard p >= 0, t - states[i].lastSentTime >= 1 / m.rateLimit else { return }
        states[i].pending = -1
        let at = states[i].lastSentTime + 1 / m.rateLimit
        states[i].lastSent = p
        states[i].lastSentTime = at
        stats.messages &+= 1
        emit(Self.event(m.target, value: p, time: at))
    }

    /// Sends every change still held back by a rate limit (end of a stream).
    public mutating func flush(emit: (MappedEvent) -> Void) {
        for i in 0..<mappings.count where states[i].pending >= 0 {
            let m = mappings[i]
            let at = states[i].lastSentTime + 1 / m.rateLimit
            let p = states[i].pending
            states[i].pending = -1
            states[i].lastSent = p
            states[i].lastSentTime = at
            stats.messages &+= 1
            emit(Self.event(m.target, value: p, time: at))
        }
    }

    /// Sends each mapping's rest value where the last value sent differs (exit, silent sender).
    /// With a `sender`, mappings restricted to another sender are left alone, and mappings that
    /// take any sender are rested only if `includeUnrestricted`.
    ///
    /// `glideClock` (monotonic seconds, live input only): mappings with `glide=` start gliding
    /// to rest instead of jumping (move them with `advanceGlides`). Without it, rest is at once.
    public mutating func rest(
        at time: Double, sender: String? = nil, includeUnrestricted: Bool = true,
        glideClock: Double? = nil, emit: (MappedEvent) -> Void
    ) {
        for i in 0..<mappings.count {
            let m = mappings[i]
            if let s = sender {
                if let wanted = m.sender {
                    if !Mapping.sender(s, matches: wanted) { continue }
                } else if !includeUnrestricted {
                    continue
                }
            }
            states[i].pending = -1
            states[i].filter.reset()
            states[i].lastAccepted = .nan
            states[i].candidate = .nan
            states[i].candidateRun = 0
            if m.target.staysWhereSwitched { continue }  // a stomp switch stays where it was put
            if case .note = m.target {
                // a hanging note ends now (not later than its length)
                let due = states[i].noteOffDue
                if !due.isNaN { endNote(i, m, at: min(due, max(time, states[i].lastSentTime)), emit: emit) }
                continue
            }
            states[i].toggled = false
            states[i].held = false
            states[i].offset = 0
            states[i].lastInput = .nan
            states[i].rebase = false
            let r = m.rest
            states[i].glideFrom = -1
            states[i].resumeFrom = -1
            if glideClock != nil, m.glide > 0, !m.target.isTrigger, states[i].lastSent == r || states[i].lastSent < 0 {
                states[i].resumeFrom = r  // already at rest: come back smoothly
                states[i].resumeStart = .nan
            }
            if states[i].lastSent == r { continue }
            if let clock = glideClock, m.glide > 0, states[i].lastSent >= 0, !m.target.isTrigger {
                states[i].glideFrom = states[i].lastSent
                states[i].glideStartClock = clock
                states[i].glideStartTime = time
                continue
            }
            states[i].lastSent = r
            states[i].lastSentTime = time
            stats.messages &+= 1
            emit(Self.event(m.target, value: r, time: time))
        }
    }

    /// Hands over to another set of mappings (a reloaded configuration, another scene): every
    /// controller this mapper drove that `next` does not drive is sent its rest value, so
    /// nothing is left stuck. Controllers both drive continue from where they are.
    public mutating func handOver(to next: [Mapping], at time: Double, emit: (MappedEvent) -> Void) {
        for i in 0..<mappings.count {
            let m = mappings[i]
            if next.contains(where: { $0.target == m.target }) { continue }
            states[i].pending = -1
            states[i].glideFrom = -1
            if m.target.staysWhereSwitched { continue }
            switch m.target {
            case .note:
                // a sounding note ends now
                let due = states[i].noteOffDue
                if !due.isNaN { endNote(i, m, at: min(due, max(time, states[i].lastSentTime)), emit: emit) }
                continue
            default: break
            }
            guard states[i].lastSent >= 0 else { continue }
            let r = m.rest
            if states[i].lastSent == r { continue }
            states[i].lastSent = r
            stats.messages &+= 1
            emit(Self.event(m.target, value: r, time: time))
        }
    }

    /// A mapper for `mappings` that continues `previous`: its counts and its clock.
    public init(mappings: [Mapping], continuing previous: Mapper) {
        self.init(mappings: mappings)
        stats = previous.stats
        _latest = previous._latest
    }

    @inline(__always)
    static func event(_ target: Target, value: Int, time: Double) -> MappedEvent {
        MappedEvent(target: target, value: value, time: time)
    }
}

extension MappedEvent {
    /// What sets `target` to `value` (0-127, or 0-16383 for 14-bit CC and pitch bend; a step of
    /// an effect target): a MIDI message for a MIDI target, effect control for the wah's switch
    /// and `fx=`.
    @inlinable
    public init(target: Target, value: Int, time: Double) {
        switch target {
        case .controlChange(let ch, let cc):
            self = .midi(MIDIEvent(time: time, kind: .controlChange, channel: ch, controller: cc, value: UInt16(value)))
        case .controlChange14(let ch, let cc):
            self = .midi(
                MIDIEvent(time: time, kind: .controlChange14, channel: ch, controller: cc, value: UInt16(value)))
        case .pitchBend(let ch):
            self = .midi(MIDIEvent(time: time, kind: .pitchBend, channel: ch, value: UInt16(value)))
        case .note(let ch, let n, _):
            self = .midi(
                MIDIEvent(
                    time: time, kind: value > 0 ? .noteOn : .noteOff, channel: ch, controller: n, value: UInt16(value)))
        case .toggle(let ch, let cc):
            self = .midi(MIDIEvent(time: time, kind: .controlChange, channel: ch, controller: cc, value: UInt16(value)))
        case .wahSwitch:
            self = .effect(EffectControl(time: time, .wahSwitch(engaged: value != 0)))
        case .effect(let t):
            self = .effect(
                EffectControl(time: time, .parameter(slot: t.slot, position: t.position(of: t.value(forStep: value)))))
        }
    }
}

extension Mapping {
    /// Whether a sender named `app@host/device` (or a plain address, for older names) is the
    /// one `wanted` selects: the whole name, the host, the app, `app@host`, or the device id.
    /// Allocation-free: it runs for every frame.
    public static func sender(_ name: String?, matches wanted: String) -> Bool {
        guard let name else { return false }
        if name == wanted { return true }
        let n = name.utf8, w = wanted.utf8
        guard let at = n.firstIndex(of: UInt8(ascii: "@")) else { return false }
        let afterAt = n.index(after: at)
        let slash = n[afterAt...].firstIndex(of: UInt8(ascii: "/")) ?? n.endIndex
        if n[n.startIndex..<at].elementsEqual(w) { return true }  // app
        if n[afterAt..<slash].elementsEqual(w) { return true }  // host
        if n[n.startIndex..<slash].elementsEqual(w) { return true }  // app@host
        if slash != n.endIndex && n[n.index(after: slash)...].elementsEqual(w) { return true }  // device
        return false
    }
}
