/// Merges the frames of several one-sensor files (Sensor Logger writes one CSV per sensor) into
/// one stream in time order. Pure: the caller reads the files and parses each with its own
/// `SensorParser` (with `ParserOptions.sensor` from the file name); the merger only orders.
///
/// Timing: each source's frames carry times relative to that source's first sample; the
/// source's `SensorParser.timeOrigin` says what clock reading that was. For Sensor Logger it
/// is the `time` column (epoch nanoseconds, as seconds), which is the same clock in every file
/// of a recording (and, with NTP on, across devices), whereas each file starts at a different
/// moment. Merged time 0 is the earliest origin of all sources: a file that starts later keeps
/// its offset. (`seconds_elapsed` would work within one recording too, but not across
/// recordings; `time` in a Double keeps about 0.25 µs of resolution, plenty for motion.)
///
/// Streaming k-way merge: a merged frame comes out only when every unfinished source has a
/// frame waiting, so memory stays at one frame per source.
///
///     var merger = FrameMerger(sourceCount: files.count)
///     while let i = merger.sourceNeedingFrame {
///         if let f = nextFrame(of: i) { merger.offer(f, origin: parsers[i].timeOrigin ?? 0, from: i) }
///         else { merger.finish(source: i) }
///         while let out = merger.next() { process(out) }
///     }
///
/// Each merged frame marks as new only the groups its source(s) sampled, with their values;
/// the values of everything else are held from earlier frames (sample-and-hold). Frames of
/// different sources whose times lie within `coalesceWindow` of each other and whose values do
/// not overlap come out as one frame (iOS stamps user acceleration, gravity and orientation
/// of one device-motion sample with the same time). Within one group the non-NaN values of
/// each source replace the held ones, so a file that feeds `gravity.*` leaves `user.*` (same
/// group, another file) at its last value.
public struct FrameMerger: Sendable {
    public let sourceCount: Int
    /// Frames of different sources closer than this (s) are emitted together.
    public var coalesceWindow: Double

    var pending: [SensorFrame?]
    var origins: [Double]
    var finished: [Bool]
    var current = SensorFrame()
    /// The shared time zero (the earliest source origin), fixed when the first frame comes out.
    public private(set) var zero: Double?
    var lastTimes: InlineArray<3, Double> = .init(repeating: -.infinity)

    public init(sourceCount: Int, coalesceWindow: Double = 0.0005) {
        precondition(sourceCount > 0)
        self.sourceCount = sourceCount
        self.coalesceWindow = coalesceWindow
        pending = .init(repeating: nil, count: sourceCount)
        origins = .init(repeating: .nan, count: sourceCount)
        finished = .init(repeating: false, count: sourceCount)
    }

    /// A source that must offer a frame (or finish) before the next merged frame; nil when
    /// the merger can go on (`next()`) or every source has finished.
    public var sourceNeedingFrame: Int? {
        for i in 0..<sourceCount where pending[i] == nil && !finished[i] { return i }
        return nil
    }

    /// True once every source has finished and every frame has come out.
    public var isFinished: Bool {
        for i in 0..<sourceCount where !finished[i] || pending[i] != nil { return false }
        return true
    }

    /// The next frame of `source`, with that source's `timeOrigin` (seconds on the shared clock
    /// of its time 0). A source offers one frame at a time.
    public mutating func offer(_ frame: SensorFrame, origin: Double, from source: Int) {
        precondition(pending[source] == nil, "source \(source) already has a frame waiting")
        precondition(!finished[source], "source \(source) has finished")
        pending[source] = frame
        origins[source] = origin
    }

    /// `source` has no more frames.
    public mutating func finish(source: Int) {
        finished[source] = true
    }

    func absoluteTime(_ i: Int) -> Double {
        guard let f = pending[i] else { return .infinity }
        return origins[i] + f.latestTime
    }

    /// The next merged frame, or nil while a source still has to offer one (or at the end).
    public mutating func next() -> SensorFrame? {
        if sourceNeedingFrame != nil { return nil }
        var first = -1
        var t = Double.infinity
        for i in 0..<sourceCount where pending[i] != nil {
            let a = absoluteTime(i)
            if first < 0 || a < t { first = i; t = a }
        }
        guard first >= 0 else { return nil }
        if zero == nil {
            var z = Double.infinity
            for i in 0..<sourceCount where pending[i] != nil { z = min(z, origins[i]) }
            zero = z
        }
        var out = current
        out.newGroups = 0
        var taken: UInt64 = 0  // quantities filled from this merged frame's sources
        take(first, into: &out, taken: &taken)
        for i in 0..<sourceCount where i != first && pending[i] != nil {
            guard absoluteTime(i) - t <= coalesceWindow else { continue }
            var mask: UInt64 = 0
            let f = pending[i]!
            for q in 0..<Quantity.count where !f.values[q].isNaN && f.newGroups & Quantity(rawValue: q)!.group.bit != 0
            { mask |= 1 << UInt64(q) }
            if mask & taken != 0 { continue }
            take(i, into: &out, taken: &taken)
        }
        current = out
        return out
    }

    mutating func take(_ i: Int, into out: inout SensorFrame, taken: inout UInt64) {
        let f = pending[i]!
        pending[i] = nil
        let shift = origins[i] - (zero ?? origins[i])
        for g in 0..<3 where f.newGroups & (1 << UInt8(g)) != 0 {
            // monotonic per group, whatever rounding did
            let time = max(f.times[g] + shift, lastTimes[g])
            lastTimes[g] = time
            out.times[g] = out.newGroups & (1 << UInt8(g)) != 0 ? max(out.times[g], time) : time
            out.newGroups |= 1 << UInt8(g)
        }
        for q in 0..<Quantity.count {
            let v = f.values[q]
            if v.isNaN || f.newGroups & Quantity(rawValue: q)!.group.bit == 0 { continue }
            out.values[q] = v
            taken |= 1 << UInt64(q)
        }
    }

    /// Merges whole sources at once (tests, small files).
    public static func merge(_ sources: [(frames: [SensorFrame], origin: Double)], coalesceWindow: Double = 0.0005)
        -> [SensorFrame]
    {
        guard !sources.isEmpty else { return [] }
        var m = FrameMerger(sourceCount: sources.count, coalesceWindow: coalesceWindow)
        var index = [Int](repeating: 0, count: sources.count)
        var out: [SensorFrame] = []
        while !m.isFinished {
            while let i = m.sourceNeedingFrame {
                if index[i] < sources[i].frames.count {
                    m.offer(sources[i].frames[index[i]], origin: sources[i].origin, from: i)
                    index[i] += 1
                } else {
                    m.finish(source: i)
                }
            }
            while let f = m.next() { out.append(f) }
        }
        return out
    }

    /// Sources of one recording are merged on their shared clock (Sensor Logger's one file per
    /// sensor); sources whose times do not overlap (two takes) are played one after another
    /// instead. Returns the indices of each take's sources, takes in the order of their first
    /// source: a take holds the sources that overlap in time (within a second) on the shared
    /// clock.
    public static func takes(_ sources: [(frames: [SensorFrame], origin: Double)]) -> [[Int]] {
        struct Span { var index: Int; var start: Double; var end: Double }
        var spans: [Span] = []
        for (i, s) in sources.enumerated() {
            guard let first = s.frames.first, let last = s.frames.last else { continue }
            spans.append(Span(index: i, start: s.origin + first.latestTime, end: s.origin + last.latestTime))
        }
        spans.sort { $0.start != $1.start ? $0.start < $1.start : $0.index < $1.index }
        var takes: [(members: [Int], start: Double, end: Double)] = []
        for sp in spans {
            if let k = takes.indices.last, sp.start <= takes[k].end + 1, sp.end >= takes[k].start - 1 {
                takes[k].members.append(sp.index)
                takes[k].end = max(takes[k].end, sp.end)
            } else {
                takes.append(([sp.index], sp.start, sp.end))
            }
        }
        // in the order the sources were given (a folder's files by name)
        return takes.map { $0.members.sorted() }.sorted { $0[0] < $1[0] }
    }

    /// `takes(sources)`, each merged, one after another on one timeline: a take starts half a
    /// second after the one before it ends.
    public static func mergeTakes(_ sources: [(frames: [SensorFrame], origin: Double)], coalesceWindow: Double = 0.0005)
        -> (frames: [SensorFrame], takes: [[Int]])
    {
        let groups = takes(sources)
        guard groups.count > 1 else { return (merge(sources, coalesceWindow: coalesceWindow), groups) }
        var out: [SensorFrame] = []
        var end = 0.0
        for (k, members) in groups.enumerated() {
            let frames = merge(members.map { sources[$0] }, coalesceWindow: coalesceWindow)
            guard let first = frames.first else { continue }
            let offset = k == 0 ? 0 : end + 0.5 - first.latestTime
            for var f in frames {
                if offset != 0 { for g in 0..<3 { f.times[g] += offset } }
                end = max(end, f.latestTime)
                out.append(f)
            }
        }
        return (out, groups)
    }
}
