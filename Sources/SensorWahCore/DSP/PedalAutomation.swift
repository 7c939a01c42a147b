/// A pedal change at a sample position: from this frame on, the wah's pedal target is `pedal`.
public struct PedalBreakpoint: Sendable, Equatable, CustomStringConvertible {
    public var frame: Int
    public var pedal: Float
    public init(frame: Int, pedal: Float) {
        self.frame = frame
        self.pedal = pedal
    }
    public var description: String { "(\(frame), \(pedal))" }
}

/// The pedal path of an offline render: which mapping's messages drive the wah, and the
/// breakpoints they give at a sample rate.
///
/// - A message drives the pedal when its target is the chosen mapping's target (same kind,
///   channel and controller; pitch bend: same channel). Value / 127 for 7-bit CC, value / 16383
///   for 14-bit CC and pitch bend.
/// - A message at sensor time `t` (seconds since the first sample, as the mapper stamps it) takes
///   effect at frame `round(t * sampleRate)`; negative or non-finite times are not used.
/// - Breakpoints are kept in frame order: a message stamped earlier than the previous one (a
///   clock restart in the log) takes effect at the previous one's frame; a second message at the
///   same frame replaces the first.
/// - Before the first breakpoint the pedal sits at `initialPedal` (the mapping's rest value unless
///   given).
/// - The wah's engage switch (`--wah-switch`: `EffectControl`'s `wahSwitch`) is
///   kept the same way in `switches`, frame by frame; before the first one the wah is bypassed
///   when `initialBypassed` (a switched wah starts off, like the pedal).
/// The smoothing and the switch's crossfade happen in the wah itself (`WahProcessor`), exactly
/// as in real time.
public struct PedalAutomation: Sendable, Equatable {
    public let target: Target
    public let sampleRate: Double
    public var initialPedal: Float
    public private(set) var breakpoints: [PedalBreakpoint] = []
    /// Engage-switch changes: from `frame` on the wah is engaged (`pedal` 1) or bypassed (0).
    public private(set) var switches: [PedalBreakpoint] = []
    /// Whether the wah starts bypassed (a `--wah-switch` render).
    public var initialBypassed = false
    /// Messages for other targets, effect control other than the switch, and events with
    /// unusable times.
    public private(set) var ignored = 0

    public init(target: Target, sampleRate: Double, initialPedal: Float = 0) {
        self.target = target
        self.sampleRate = sampleRate
        self.initialPedal = min(max(initialPedal.isNaN ? 0 : initialPedal, 0), 1)
    }

    /// Follows `mapping`'s target; before the first message the pedal is at the mapping's rest value.
    public init(mapping: Mapping, sampleRate: Double) {
        self.init(
            target: mapping.target, sampleRate: sampleRate,
            initialPedal: Self.pedal(value: mapping.rest, of: mapping.target))
    }

    /// A pedal held still.
    public static func constant(_ pedal: Float, sampleRate: Double) -> PedalAutomation {
        PedalAutomation(target: .controlChange(channel: 0, controller: 0), sampleRate: sampleRate, initialPedal: pedal)
    }

    /// 0...1 for a value of `target`'s resolution (7 or 14 bits).
    public static func pedal(value: Int, of target: Target) -> Float {
        WahProcessor.pedal(fromMIDI: value, bits: target.maxValue == 127 ? 7 : 14)
    }

    /// The pedal an event sets, or nil if it is not addressed to `target`.
    public static func pedal(of e: MIDIEvent, for target: Target) -> Float? {
        switch (target, e.kind) {
        case (.controlChange(let ch, let cc), .controlChange) where e.channel == ch && e.controller == cc:
            return pedal(value: Int(e.value), of: target)
        case (.controlChange14(let ch, let cc), .controlChange14) where e.channel == ch && e.controller == cc:
            return pedal(value: Int(e.value), of: target)
        case (.pitchBend(let ch), .pitchBend) where e.channel == ch:
            return pedal(value: Int(e.value), of: target)
        default:
            return nil
        }
    }

    /// The frame at which a message at `time` seconds takes effect (nil if unusable).
    public static func frame(at time: Double, sampleRate: Double) -> Int? {
        let f = (time * sampleRate).rounded()
        guard f.isFinite, f >= 0, f < 9.0e15 else { return nil }
        return Int(f)
    }

    /// The wah's engage switch; other effect control is not the pedal's (counted in `ignored`).
    public mutating func add(_ c: EffectControl) {
        guard case .wahSwitch(let engaged) = c.action, let f = Self.frame(at: c.time, sampleRate: sampleRate) else {
            ignored += 1
            return
        }
        Self.append(PedalBreakpoint(frame: f, pedal: engaged ? 1 : 0), to: &switches)
    }

    public mutating func add(_ e: MappedEvent) {
        switch e {
        case .midi(let m): add(m)
        case .effect(let c): add(c)
        }
    }

    public mutating func add(_ e: MIDIEvent) {
        guard let p = Self.pedal(of: e, for: target), let f = Self.frame(at: e.time, sampleRate: sampleRate) else {
            ignored += 1
            return
        }
        Self.append(PedalBreakpoint(frame: f, pedal: p), to: &breakpoints)
    }

    /// In frame order: an earlier frame takes the last one's, a second change at a frame replaces the first.
    static func append(_ b: PedalBreakpoint, to list: inout [PedalBreakpoint]) {
        var b = b
        if let last = list.last {
            if b.frame < last.frame { b.frame = last.frame }
            if b.frame == last.frame {
                list[list.count - 1].pedal = b.pedal
                return
            }
        }
        list.append(b)
    }

    /// Whether the wah is bypassed at `frame` (the switch in force there).
    public func bypassed(atFrame frame: Int) -> Bool {
        guard let last = switches.last(where: { $0.frame <= frame }) else { return initialBypassed }
        return last.pedal == 0
    }

    public mutating func add<S: Sequence>(contentsOf events: S) where S.Element == MappedEvent {
        for e in events { add(e) }
    }

    /// The pedal target in force at `frame`.
    public func pedal(atFrame frame: Int) -> Float {
        // binary search: last breakpoint with bp.frame <= frame
        var lo = 0, hi = breakpoints.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if breakpoints[mid].frame <= frame { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? initialPedal : breakpoints[lo - 1].pedal
    }

    /// Runs sensor lines (a whole log, in order) through `SensorParser`, the motion stage (when
    /// a mapping reads what it derives: `tilt.*`, `zero.*`, gestures) and `Mapper` with
    /// `mappings`, and follows mapping `index` (0-based). Includes what `Mapper.flush` sends at
    /// the end (rate-limited changes still held back), as a replay does.
    public static func fromSensorLog<S: Sequence>(
        lines: S, parserOptions: ParserOptions = .init(), mappings: [Mapping], index: Int, sampleRate: Double,
        motion: MotionSettings = .init()
    ) -> (automation: PedalAutomation, parser: ParserStats, mapper: MapperStats) where S.Element == String {
        precondition(mappings.indices.contains(index), "mapping index out of range")
        var automation = PedalAutomation(mapping: mappings[index], sampleRate: sampleRate)
        var parser = SensorParser(options: parserOptions)
        var mapper = Mapper(mappings: mappings)
        var stage = MotionStage(settings: motion)
        let motionOn = mapper.needsMotionStage
        var frame = SensorFrame()
        for line in lines {
            guard parser.parse(line, into: &frame) == .frame else { continue }
            if motionOn { stage.process(&frame) }
            mapper.process(frame) { automation.add($0) }
        }
        mapper.flush { automation.add($0) }
        return (automation, parser.stats, mapper.stats)
    }
}
