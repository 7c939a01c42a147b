import SensorWahCore
import SensorWahEngine

/// What `sensorwah plot` draws, gathered while a log plays through the real pipeline: per
/// mapping, the raw reading, the smoothed value and the readings dropped as outliers (from the
/// mapper's probe after each frame), the values actually sent (this is one of the pipeline's
/// outputs), and the gestures the motion stage recognised. Nothing here maps anything itself.
public final class PlotTrace: EventOutput {
    /// Points in time order.
    public struct Series: Sendable {
        public var t: [Double] = []
        public var v: [Double] = []
        public var count: Int { t.count }
        mutating func add(_ time: Double, _ value: Double) { t.append(time); v.append(value) }
    }

    public struct Lane: Sendable {
        public let mapping: Mapping
        /// Source units.
        public var raw = Series(), smoothed = Series(), outliers = Series()
        /// What the pipeline sent for this mapping's controller (0...target.maxValue).
        public var sent = Series()
        /// The smallest and largest reading kept (not dropped as an outlier), NaN: none yet.
        public var keptMin = Double.nan, keptMax = Double.nan
        var rejected = 0, fires = 0
        /// The event that stands for this target (channel, number and kind of message; the
        /// effect parameter's slot).
        let key: MappedEvent
    }

    public private(set) var lanes: [Lane]
    /// Gestures as they fired (the motion stage's flick, shake, tap), in time order.
    public private(set) var gestures: [(time: Double, gesture: Gesture)] = []
    /// The time span seen (frames and events); empty while start > end.
    public private(set) var start = Double.infinity, end = -Double.infinity
    public private(set) var frames = 0

    public init(mappings: [Mapping]) {
        lanes = mappings.map { Lane(mapping: $0, key: MappedEvent(target: $0.target, value: 1, time: 0)) }
    }

    /// After the pipeline mapped `frame`: what each mapping read, kept and dropped.
    public func note(_ frame: borrowing SensorFrame, mapper: borrowing Mapper) {
        frames += 1
        for i in lanes.indices where i < mapper.mappings.count {
            let m = lanes[i].mapping
            let g = m.source.group
            guard frame.has(g) else { continue }
            let t = frame.time(g)
            extend(t)
            let p = mapper.probe(i)
            let x = m.source.read(frame)
            if m.target.isTrigger {
                // a gesture mapping reads its gesture's strength on the frame it fires
                if p.fires != lanes[i].fires, !x.isNaN {
                    lanes[i].raw.add(t, x)
                    keep(i, x)
                }
                lanes[i].fires = p.fires
                continue
            }
            guard !x.isNaN else { continue }
            lanes[i].raw.add(t, x)
            if p.rejected != lanes[i].rejected {
                lanes[i].outliers.add(t, x)
                lanes[i].rejected = p.rejected
            } else if x.isFinite {
                keep(i, x)
            }
            if !p.smoothed.isNaN, p.raw == x { lanes[i].smoothed.add(t, p.smoothed) }
        }
        if frame.has(.derived) {
            let t = frame.time(.derived)
            for g in Gesture.allCases where frame[g.quantity] > 0 { gestures.append((t, g)) }
        }
    }

    private func keep(_ i: Int, _ x: Double) {
        if !(lanes[i].keptMin <= x) { lanes[i].keptMin = x }
        if !(lanes[i].keptMax >= x) { lanes[i].keptMax = x }
    }

    private func extend(_ t: Double) {
        guard t.isFinite else { return }
        if t < start { start = t }
        if t > end { end = t }
    }

    // MARK: EventOutput: the values sent, as every other output receives them

    public var name: String { "plot" }

    public func send(_ e: MIDIEvent) { record(.midi(e)) }
    public func send(_ c: EffectControl) { record(.effect(c)) }

    private func record(_ e: MappedEvent) {
        if let v = Self.sentValue(e) {
            for i in lanes.indices where Self.sameController(lanes[i].key, e) { lanes[i].sent.add(e.time, v) }
        }
        extend(e.time)
    }

    public func flush() {}
    public func close() {}

    /// The value an event sends: a MIDI value, the switch's 1 or 0, a parameter's position
    /// (nil for a scene change).
    static func sentValue(_ e: MappedEvent) -> Double? {
        switch e {
        case .midi(let m): return Double(m.value)
        case .effect(let c):
            switch c.action {
            case .wahSwitch(let engaged): return engaged ? 1 : 0
            case .parameter(_, let position): return Double(position)
            case .scene: return nil
            }
        }
    }

    static func sameController(_ a: MappedEvent, _ b: MappedEvent) -> Bool {
        switch (a, b) {
        case (.midi(let a), .midi(let b)):
            func family(_ k: MIDIEvent.Kind) -> MIDIEvent.Kind { k == .noteOff ? .noteOn : k }
            return family(a.kind) == family(b.kind) && a.channel == b.channel && a.controller == b.controller
        case (.effect(let a), .effect(let b)):
            switch (a.action, b.action) {
            case (.wahSwitch, .wahSwitch): return true
            case (.parameter(let s, _), .parameter(let r, _)): return s == r
            default: return false
            }
        default: return false
        }
    }
}
