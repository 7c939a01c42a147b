#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Gestures taught by example: a model of named classes, each a few example feature sequences,
// and a streaming recogniser (open-begin subsequence DTW) that finds them in a live stream.
// Everything runs at a fixed internal rate, so a model taught from an 800 Hz take recognises a
// 30 Hz stream; the features are compressed (log) so that a harder or softer stroke still
// matches; the warping path may run 0.6-1.7 times the example's length (speed within ±30 %
// and more).

/// The fixed-rate feature stream both teaching and recognition read: the accelerometer (G,
/// gravity included: the arm's orientation belongs to the movement) and the rotation rate
/// (rad/s) when the stream has one, each low-passed and sampled at `GestureFeatures.rate`.
public struct GestureFeatures: Sendable {
    /// Internal frames per second.
    public static let rate = 50.0
    public static let step = 1 / rate
    /// Values per frame: accelerometer x y z, the accelerometer's magnitude, rotation rate x y
    /// z. The first `accelDims` come from the accelerometer alone.
    public static let dims = 7, accelDims = 4
    /// Low-pass time constant before resampling (anti-aliasing; an 800 Hz impact spike is spread).
    public static let timeConstant = 0.08

    /// Compression of a reading: sign(x)·ln(1 + |x|/s) (a stroke twice as hard is not twice as far).
    @inlinable public static func compress(_ x: Double, scale s: Double) -> Double {
        x >= 0 ? log1p(x / s) : -log1p(-x / s)
    }
    public static let accelScale = 1.0, gyroScale = 2.0
    /// Weight of the magnitude feature (|a| - 1 G): the same whichever way the device is held
    /// or turned, so a punch reads the same however far the wrist rolls with it. It is the one
    /// feature not saturated (`knee`): how hard a movement is (log-compressed) is what tells a
    /// punch from a table-tennis stroke when the directions vary. How the weight and the
    /// saturation choice score is measured by the simulator's score test
    /// (`LearnedGestureTests.testSimulatedStrokeClasses`) and on real takes by `tools/teach-score`
    /// (docs/gestures.md): a weight from 1.3 to 2 scores alike; past 2 the score falls.
    public static let magnitudeWeight = 1.6
    /// Weight of the rotation-rate features against the accelerometer's: chosen with
    /// `tools/teach-score --validate` on other people's labelled takes (docs/gestures.md), where
    /// 0.8 tells the classes apart best (per-class F1 on the air gestures 0.92; 0.82-0.84 at
    /// 0.4, 0.6, 1.0 and 1.2).
    public static let gyroWeight = 0.8

    @usableFromInline var filtered: InlineArray<7, Double> = .init(repeating: 0)
    @usableFromInline var previous: InlineArray<7, Double> = .init(repeating: 0)
    /// The accelerometer's slow average (gravity and the held orientation), taken off the
    /// accelerometer features so that the same movement made with the device held a little
    /// differently still matches, and a device held still reads zero.
    @usableFromInline var slow: InlineArray<3, Double> = .init(repeating: 0)
    public static let gravityTimeConstant = 0.6
    @usableFromInline var lastTime = Double.nan
    @usableFromInline var lastAccelTime = Double.nan
    @usableFromInline var lastGyroTime = Double.nan
    /// Time of the next internal frame.
    public private(set) var nextTick = Double.nan
    /// True once a rotation rate has been seen.
    public private(set) var hasGyro = false
    /// Frames ready: `count` of them in `out` (at most 64 per input sample; a gap longer than
    /// that restarts the stream).
    public private(set) var out: InlineArray<448, Double> = .init(repeating: 0)
    public private(set) var outTimes: InlineArray<64, Double> = .init(repeating: 0)
    public private(set) var count = 0

    public init() {}

    public mutating func reset() { self = GestureFeatures() }

    /// Feeds one reading (either may be absent: NaN vector) at time `t`; afterwards `count`
    /// internal frames up to `t` are in `out`.
    public mutating func feed(accel a: Vector3, gyro w: Vector3, at t: Double) {
        count = 0
        guard t.isFinite else { return }
        let hasA = a.isFiniteVector, hasW = w.isFiniteVector
        guard hasA || hasW else { return }
        if hasW { hasGyro = true }
        if lastTime.isNaN || t - lastTime > 2 || t < lastTime {
            // start (or a gap): the filter starts at the reading
            if hasA {
                filtered[0] = Self.compress(a.x, scale: Self.accelScale);
                filtered[1] = Self.compress(a.y, scale: Self.accelScale);
                filtered[2] = Self.compress(a.z, scale: Self.accelScale)
                filtered[3] = Self.magnitude(a)
            }
            if hasW {
                filtered[4] = Self.gyroWeight * Self.compress(w.x, scale: Self.gyroScale);
                filtered[5] = Self.gyroWeight * Self.compress(w.y, scale: Self.gyroScale);
                filtered[6] = Self.gyroWeight * Self.compress(w.z, scale: Self.gyroScale)
            }
            previous = filtered
            for d in 0..<3 { slow[d] = filtered[d] }
            lastTime = t
            nextTick = (t / Self.step).rounded(.up) * Self.step
            if nextTick == t { emit(t); nextTick += Self.step }
            return
        }
        previous = filtered
        if hasA {
            let dt = lastAccelTime.isNaN ? Self.step : max(0, t - lastAccelTime)
            let k = 1 - exp(-dt / Self.timeConstant)
            filtered[0] += k * (Self.compress(a.x, scale: Self.accelScale) - filtered[0])
            filtered[1] += k * (Self.compress(a.y, scale: Self.accelScale) - filtered[1])
            filtered[2] += k * (Self.compress(a.z, scale: Self.accelScale) - filtered[2])
            filtered[3] += k * (Self.magnitude(a) - filtered[3])
            let ks = 1 - exp(-dt / Self.gravityTimeConstant)
            for d in 0..<3 { slow[d] += ks * (filtered[d] - slow[d]) }
            lastAccelTime = t
        }
        if hasW {
            let dt = lastGyroTime.isNaN ? Self.step : max(0, t - lastGyroTime)
            let k = 1 - exp(-dt / Self.timeConstant)
            filtered[4] += k * (Self.gyroWeight * Self.compress(w.x, scale: Self.gyroScale) - filtered[4])
            filtered[5] += k * (Self.gyroWeight * Self.compress(w.y, scale: Self.gyroScale) - filtered[5])
            filtered[6] += k * (Self.gyroWeight * Self.compress(w.z, scale: Self.gyroScale) - filtered[6])
            lastGyroTime = t
        }
        let t0 = lastTime
        lastTime = t
        // internal frames in (t0, t]: linear between the previous and this filtered reading
        while nextTick <= t && count < 64 {
            let u = t > t0 ? (nextTick - t0) / (t - t0) : 1
            for d in 0..<Self.dims {
                out[count * Self.dims + d] = previous[d] + u * (filtered[d] - previous[d]) - (d < 3 ? slow[d] : 0)
            }
            saturate(count)
            outTimes[count] = nextTick
            count += 1
            nextTick += Self.step
        }
        if nextTick <= t { nextTick = (t / Self.step).rounded(.up) * Self.step }
    }

    /// The length r of each 3-vector of a frame is made k·tanh(r/k), its direction kept, with
    /// k = `knee` for the accelerometer's and `gyroKnee` for the rotation rate's: past the knee,
    /// a movement twice as strong is hardly farther from stillness, so strokes of one shape and
    /// different force come close (the log compression alone left a class's examples as far
    /// apart as from a still device). The magnitude feature is left as it is (see
    /// `magnitudeWeight`).
    public static let knee = 0.4
    /// The rotation rate's knee: looser than the accelerometer's, so how far and how fast the
    /// wrist turns still tells gestures of one direction apart. Chosen with
    /// `tools/teach-score --validate --folds` on other people's labelled takes, a class taught
    /// with the others and taught alone (docs/gestures.md). Both knees at 0.8 scored as well
    /// there but missed punches in other takes (B1's test split), and so did the
    /// accelerometer's alone at 0.8.
    public static let gyroKnee = 1.2
    @inline(__always) mutating func saturate(_ k: Int) {
        saturate3(k * Self.dims, knee: Self.knee)
        saturate3(k * Self.dims + 4, knee: Self.gyroKnee)
    }

    /// The magnitude feature of an accelerometer reading: compressed |a| - 1 G, weighted.
    @inline(__always) static func magnitude(_ a: Vector3) -> Double {
        magnitudeWeight * compress(a.length - 1, scale: accelScale)
    }
    /// k·tanh(r/k): a length r past the knee k hardly grows.
    @inline(__always) static func squash(_ r: Double, knee: Double) -> Double { knee * tanh(r / knee) }
    @inline(__always) mutating func saturate3(_ o: Int, knee: Double) {
        let x = out[o], y = out[o + 1], z = out[o + 2]
        let r = (x * x + y * y + z * z).squareRoot()
        guard r > 1e-12 else { return }
        let g = Self.squash(r, knee: knee) / r
        out[o] = x * g; out[o + 1] = y * g; out[o + 2] = z * g
    }

    @inline(__always) mutating func emit(_ t: Double) {
        for d in 0..<Self.dims { out[count * Self.dims + d] = filtered[d] - (d < 3 ? slow[d] : 0) }
        saturate(count)
        outTimes[count] = t
        count += 1
    }

    /// The feature frames of a whole take (times and values), for teaching.
    public static func sequence(accel: [Vector3], gyro: [Vector3], times: [Double]) -> (
        times: [Double], values: [Double], hasGyro: Bool
    ) {
        var f = GestureFeatures()
        var ts: [Double] = [], vs: [Double] = []
        for i in times.indices {
            f.feed(
                accel: i < accel.count ? accel[i] : Vector3(.nan, .nan, .nan),
                gyro: i < gyro.count ? gyro[i] : Vector3(.nan, .nan, .nan), at: times[i])
            for k in 0..<f.count {
                ts.append(f.outTimes[k])
                for d in 0..<dims { vs.append(f.out[k * dims + d]) }
            }
        }
        return (ts, vs, f.hasGyro)
    }
}

/// A model of gestures taught by example: named classes, each with its examples and the match
/// distance under which a movement counts as it (learnt from the examples).
public struct GestureModel: Sendable, Equatable {
    public static let version = 5

    public struct Example: Sendable, Equatable {
        /// Feature frames (`GestureFeatures.dims` values each, at `GestureFeatures.rate`).
        public var values: [Double]
        /// Where it came from (take and seconds), for the reader.
        public var origin: String
        public var frames: Int { values.count / GestureFeatures.dims }
        public var duration: Double { Double(frames) / GestureFeatures.rate }
        public init(values: [Double], origin: String = "") { self.values = values; self.origin = origin }
    }

    public struct Class: Sendable, Equatable {
        public var name: String
        public var examples: [Example]
        /// Match distance at or under which a movement is this gesture.
        public var threshold: Double
        /// Leave-one-out distances (each example to its nearest sibling).
        public var spread: [Double]
        /// True when the examples carry a rotation rate.
        public var gyro: Bool
        /// The distance at which a device held still would match (the nearest of the examples).
        public var rest = Double.infinity
        /// The performer's own scale of the learned threshold (above 1: looser matches count;
        /// kept when examples are added).
        public var tune = 1.0
        /// The threshold the recogniser uses.
        public var effectiveThreshold: Double { threshold * tune }
        /// What set the learned threshold.
        public enum Bound: Sendable { case oneExample, examples, floor, cap }
        public var bound: Bound { GestureModel.learnedThreshold(farthest: spread.max(), rest: rest).bound }
        public init(
            name: String, examples: [Example] = [], threshold: Double = 0, spread: [Double] = [], gyro: Bool = false
        ) {
            self.name = name; self.examples = examples; self.threshold = threshold; self.spread = spread;
            self.gyro = gyro
        }
    }

    public var classes: [Class] = []
    public init(classes: [Class] = []) { self.classes = classes }

    /// The class of that name, whatever its letters' case (as mappings find it).
    public func index(of name: String) -> Int? { classes.firstIndex { $0.name.lowercased() == name.lowercased() } }

    /// Adds an example to the class `name` (made when new) and learns its threshold again.
    public mutating func add(_ example: Example, to name: String, gyro: Bool) {
        if let i = index(of: name) {
            classes[i].examples.append(example)
            classes[i].gyro = classes[i].gyro || gyro
        } else {
            classes.append(Class(name: name, examples: [example], gyro: gyro))
        }
        learnThresholds()
    }

    /// How much looser than the farthest leave-one-out distance the threshold is.
    public static let thresholdMargin = 1.3
    /// The threshold is at most this fraction of the distance of a still device to the examples.
    public static let restFraction = 0.95
    /// ... and at least this fraction of it: four examples that happen to be alike would
    /// otherwise leave no room for the next one, a little faster or softer.
    public static let restFloor = 0.75
    /// The threshold of a class with one example (nothing to compare it with), in feature units.
    public static let singleExampleThreshold = 0.12

    /// A name's threshold from its farthest leave-one-out distance (nil: one example) and the
    /// still device's distance, and which of the rules set it.
    static func learnedThreshold(farthest: Double?, rest: Double) -> (value: Double, bound: Class.Bound) {
        var t = farthest.map { max($0 * thresholdMargin, 0.02) } ?? singleExampleThreshold
        var b: Class.Bound = farthest == nil ? .oneExample : .examples
        guard rest.isFinite else { return (t, b) }
        if t < rest * restFloor {
            t = rest * restFloor; if farthest != nil { b = .floor }
        } else if t > rest * restFraction {
            t = rest * restFraction; if farthest != nil { b = .cap }
        }
        return (t, b)
    }

    /// Each class's threshold: `thresholdMargin` times the largest distance from an example to
    /// its nearest sibling (leave-one-out), so each example would have been recognised by the
    /// others with room to spare.
    public mutating func learnThresholds() {
        for c in classes.indices {
            let ex = classes[c].examples
            var spread: [Double] = []
            if ex.count >= 2 {
                for i in ex.indices {
                    var best = Double.infinity
                    for j in ex.indices where j != i {
                        best = min(best, GestureModel.distance(ex[i].values, ex[j].values, gyro: classes[c].gyro))
                    }
                    spread.append(best)
                }
            }
            // null rejection: under the distance at which a device held still (every feature
            // 0: no rotation, the accelerometer at its slow average and at 1 G) would match the
            // nearest example; and not so far under it that the examples' own likeness decides
            var rest = Double.infinity
            for e in ex where e.frames > 0 {
                let still = [Double](repeating: 0, count: e.values.count)
                rest = min(rest, GestureModel.distance(still, e.values, gyro: classes[c].gyro))
            }
            classes[c].threshold = Self.learnedThreshold(farthest: spread.max(), rest: rest).value
            classes[c].rest = rest
            classes[c].spread = spread
        }
    }

    /// Whole-sequence DTW distance with the recogniser's steps and normalisation, but without
    /// its slope constraint (`GestureRecognizer.maxRun`): with it the still device's distance
    /// grows too, the thresholds loosen and the simulator's distractors fire (the score test,
    /// `LearnedGestureScoreTests`, shows it with the constraint put in here as well).
    public static func distance(_ a: [Double], _ b: [Double], gyro: Bool) -> Double {
        let D = GestureFeatures.dims, dims = gyro ? D : GestureFeatures.accelDims
        let n = a.count / D, m = b.count / D
        guard n > 0, m > 0 else { return .infinity }
        var prev = [Double](repeating: .infinity, count: m), cur = prev
        for i in 0..<n {
            for j in 0..<m {
                var d = 0.0
                for k in 0..<dims { d += abs(a[i * D + k] - b[j * D + k]) }
                if i == 0 && j == 0 { cur[j] = 2 * d; continue }
                var best = Double.infinity
                if i > 0 && j > 0 { best = prev[j - 1] + 2 * d }
                if i > 0 { best = min(best, prev[j] + d) }
                if j > 0 { best = min(best, cur[j - 1] + d) }
                cur[j] = best
            }
            swap(&prev, &cur)
        }
        return prev[m - 1] / Double(n + m)
    }

    // MARK: teaching from a take

    /// The extent (first and last feature frame) of the movement around `mark` (seconds, same
    /// clock as `times`): the movement energy (how fast the features change) is found at its peak within ±0.4 s of the mark (or
    /// at a peak `preparationRatio` times higher up to `reachOut` s after that: the mark was in
    /// that movement's preparation), and the extent grows on each
    /// side while the energy stays over `edgeFraction` of the peak (the movement's core: a lower
    /// fraction takes in the follow-through, and the note waits for it) (dips shorter than 0.1 s
    /// bridged, at most 0.8 s each side), plus 0.06 s.
    public static let edgeFraction = 0.35
    /// Change energy (per second) at or under which the device is taken as at rest.
    public static let stillEnergy = 0.5
    /// A mark's movement is a bigger one that follows when it is this many times the one
    /// nearest the mark, within `reachOut` s after the search window (not live: a press comes
    /// after its movement, never in its preparation).
    public static let preparationRatio = 2.5, reachOut = 0.5
    public static func extent(
        times: [Double], values: [Double], mark: Double, before: Double = 0.4, after: Double = 0.4,
        reachOut: Double = GestureModel.reachOut, reachUntil: Double = .infinity
    ) -> ClosedRange<Int>? {
        let D = GestureFeatures.dims, n = times.count
        guard n > 2 else { return nil }
        // energy: how fast the features change (per second), averaged over ±0.04 s; zero when
        // the device is held still in any orientation. `which` is looked for with the
        // magnitude and the rotation rate (already saturated at `gyroKnee`) saturated again at
        // the accelerometer's knee, so that of two movements near the mark (live: a press late
        // after one stroke, at the next one's peak) the harder or faster one does not win by
        // its force alone; the extent then grows on the features as they are.
        func changeEnergy(saturated: Bool) -> [Double] {
            var level = values
            if saturated {
                let knee = GestureFeatures.knee
                for o in stride(from: 0, to: n * D, by: D) {
                    level[o + 3] = GestureFeatures.squash(level[o + 3] / GestureFeatures.magnitudeWeight, knee: knee)
                    let x = level[o + 4], y = level[o + 5], z = level[o + 6]
                    let r = (x * x + y * y + z * z).squareRoot()
                    guard r > 1e-12 else { continue }
                    let g = GestureFeatures.squash(r, knee: knee) / r
                    level[o + 4] = x * g; level[o + 5] = y * g; level[o + 6] = z * g
                }
            }
            var rate = [Double](repeating: 0, count: n)
            for i in 1..<n {
                var e = 0.0
                for d in 0..<D { e += abs(level[i * D + d] - level[(i - 1) * D + d]) }
                rate[i] = e * GestureFeatures.rate
            }
            let w = 2
            var out = [Double](repeating: 0, count: n)
            for i in 0..<n {
                var e = 0.0, c = 0.0
                for k in max(0, i - w)...min(n - 1, i + w) { e += rate[k]; c += 1 }
                out[i] = e / c
            }
            return out
        }
        let which = changeEnergy(saturated: true), energy = changeEnergy(saturated: false)
        guard let lo = times.firstIndex(where: { $0 >= mark - before }) else { return nil }
        guard let hi = times.lastIndex(where: { $0 <= mark + after }), lo <= hi else { return nil }
        var near = lo
        for i in lo...hi where which[i] > which[near] { near = i }
        // no movement: judged on the saturated features (`which`), so a gentle movement that
        // the unsaturated magnitude would lift over the bar teaches nothing
        guard which[near] > Self.stillEnergy else { return nil }
        // a mark in the preparation of a bigger movement (a tennis backswing, 0.5-0.9 s before
        // the swing and, about the vertical, nearly invisible to an accelerometer) means that
        // movement: a peak `preparationRatio` times the one nearest the mark, up to `reachOut` s
        // after the search window (and before `reachUntil`: halfway to the next mark), is taken
        // instead. Only forward: a preparation comes before its movement. (No rest is required
        // between the two: the backswing often reads as rest.)
        var big = near
        if reachOut > 0, hi + 1 < n {
            let last = min(n - 1, hi + Int(reachOut * GestureFeatures.rate))
            for i in (hi + 1)...last where times[i] < reachUntil && which[i] > which[big] { big = i }
        }
        let moved = which[big] > which[near] * Self.preparationRatio
        if moved { near = big }
        // the same peak on the features as they are (within 60 ms; inside the window unless
        // the preparation rule moved it out)
        var peak = near
        let nudge = moved ? max(0, near - 3)...min(n - 1, near + 3) : max(lo, near - 3)...min(hi, near + 3)
        for i in nudge where energy[i] > energy[peak] { peak = i }
        let floor = energy[peak] * edgeFraction
        let bridge = Int(0.1 * GestureFeatures.rate), reach = Int(0.8 * GestureFeatures.rate),
            pad = Int((0.06 * GestureFeatures.rate).rounded())
        var a = peak, quiet = 0
        while a > 0 && peak - a < reach {
            if energy[a - 1] < floor { quiet += 1; if quiet > bridge { break } } else { quiet = 0 }
            a -= 1
        }
        a += quiet
        var b = peak; quiet = 0
        while b < n - 1 && b - peak < reach {
            if energy[b + 1] < floor { quiet += 1; if quiet > bridge { break } } else { quiet = 0 }
            b += 1
        }
        b -= quiet
        return max(0, a - pad)...min(n - 1, b + pad)
    }

    /// Whether two extents are one movement: they share more than half of the shorter.
    static func same(_ a: ClosedRange<Int>, _ b: ClosedRange<Int>) -> Bool {
        let shared = min(a.upperBound, b.upperBound) - max(a.lowerBound, b.lowerBound) + 1
        return shared * 2 > min(a.count, b.count)
    }

    /// Teaches from a take: each mark (seconds from the take's first reading, name) becomes an
    /// example of that name; with `spans`, a mark that has one (a labelled stretch, seconds from
    /// the first reading) has its movement's peak looked for inside exactly that stretch, with no
    /// preparation reach (the extent still grows from the peak as usual). The movement is looked for from `before` s before the mark to
    /// `after` s after it (a key pressed live just after the movement looks back further). Returns, per mark, the extent found (seconds from the first
    /// reading) or nil when there was no movement at the mark, or when the movement found is
    /// one an earlier mark already taught (two marks on one movement teach it once).
    @discardableResult
    public mutating func teach(
        times: [Double], accel: [Vector3], gyro: [Vector3], marks: [(seconds: Double, name: String)],
        origin: String = "",
        before: Double = 0.4, after: Double = 0.4, reachOut: Double = GestureModel.reachOut,
        spans: [ClosedRange<Double>?]? = nil,
        repeated: ((Int) -> Void)? = nil
    ) -> [(start: Double, end: Double)?] {
        guard let t0 = times.first else { return marks.map { _ in nil } }
        let seq = GestureFeatures.sequence(accel: accel, gyro: gyro, times: times)
        var found: [(start: Double, end: Double)?] = []
        var taken: [ClosedRange<Int>] = []
        let D = GestureFeatures.dims
        func spanOf(_ i: Int) -> ClosedRange<Double>? { spans.flatMap { i < $0.count ? $0[i] : nil } }
        for (i, m) in marks.enumerated() {
            // the preparation rule stops halfway to the next mark, or where its stretch starts:
            // that movement is its own
            var until = Double.infinity
            for j in marks.indices where marks[j].seconds > m.seconds {
                until = min(until, t0 + (m.seconds + marks[j].seconds) / 2, t0 + (spanOf(j)?.lowerBound ?? .infinity))
            }
            // a span given with the mark (a labelled stretch): the movement is looked for inside it
            let span = spanOf(i)
            guard
                let r = Self.extent(
                    times: seq.times, values: seq.values, mark: t0 + m.seconds,
                    before: span.map { m.seconds - $0.lowerBound } ?? before,
                    after: span.map { $0.upperBound - m.seconds } ?? after,
                    reachOut: span == nil ? reachOut : 0, reachUntil: until)
            else { found.append(nil); continue }
            guard !taken.contains(where: { Self.same($0, r) }) else { repeated?(i); found.append(nil); continue }
            taken.append(r)
            let v = Array(seq.values[(r.lowerBound * D)..<((r.upperBound + 1) * D)])
            let at =
                span.map { NumberText.trimmed($0.lowerBound, 3) + "-" + NumberText.trimmed($0.upperBound, 3) + " s" }
                ?? NumberText.trimmed(m.seconds, 3) + " s"
            let o = origin.isEmpty ? at : "\(origin) \(span == nil ? "at " : "")\(at)"
            add(Example(values: v, origin: o), to: m.name, gyro: seq.hasGyro)
            found.append((seq.times[r.lowerBound] - t0, seq.times[r.upperBound] - t0))
        }
        return found
    }
}

/// Finds a model's gestures in a live stream: for every example an open-begin subsequence DTW
/// column updated once per internal frame (a movement may start at any frame; no
/// segmentation), whose end gives the match distance of the best-aligned recent stretch. A
/// class becomes a candidate when its distance falls under its threshold and fires once, when
/// the distance has stopped falling for `holdFrames` frames (or rose over the threshold), with
/// strength = match quality; then every column restarts so the same movement cannot fire again.
/// A class ready to fire waits while another class's match is still growing (a longer movement
/// whose start it matched), a candidate's included. The warping path takes at most `maxRun`
/// steps in a row along one sequence alone, so no part of an example is squeezed onto a frame
/// or two of the stream (an unconstrained path did that, and then failed the length check of
/// the whole match).
/// Progress: how far into the best example the stream has matched within the threshold (0-1).
/// Allocation-free after `init`.
public struct GestureRecognizer: Sendable {
    public let model: GestureModel
    public private(set) var features = GestureFeatures()
    /// Per class: strength (0.5-1, 1 = a perfect match) of the gesture fired on the last feed, else 0.
    public private(set) var fired: [Double]
    /// Per class: 0-1 while a movement like it unfolds.
    public private(set) var progress: [Double]
    /// Per class: how many times it fired, and the time and distance/threshold of the last firing.
    public private(set) var counts: [Int]
    public private(set) var lastRatio: [Double]
    /// Per class: the smallest distance/threshold seen that did not fire (the nearest miss), and when.
    public private(set) var nearestMiss: [Double]
    public private(set) var nearestMissTime: [Double]

    /// Frames the distance must stop falling before the class fires (60 ms).
    public static let holdFrames = 3
    /// After a firing, no other for at least this long (s) ...
    public static let refractory = 0.25
    /// ... nor until this many times the longest example (of all names: a shorter name may
    /// have taken the start of a longer movement) has passed since the matched movement began
    /// (where the firing match's path starts): the rest of the movement, its follow-through or
    /// return, plays no second note, and the next movement is not held back by the time the
    /// first took to be recognised (punches every 1.9 s, the forehand take's shots 1.84 s
    /// apart). Chosen with `tools/teach-score --validate` (the teach split alone).
    public static let holdBack = 1.3
    /// A warping path may be this much shorter or longer than its example.
    public static let minStretch = 0.6, maxStretch = 1.7
    /// Progress falls back to 0 only after this many internal frames with no match (300 ms):
    /// a few frames where the alignment wavers do not restart it
    /// (`LearnedGestureTests.testSimulatedStrokeClasses` counts the recognised strokes whose
    /// progress restarts in the half second before their firing).
    public static let progressHold = 15
    /// Progress under this is reported as 0 (the still start of an example matches any rest).
    public static let progressFloor = 0.25

    @usableFromInline let templates: [Double]
    @usableFromInline let exOffset: [Int]
    @usableFromInline let exLength: [Int]
    @usableFromInline let exClass: [Int]
    @usableFromInline let thresholds: [Double]
    @usableFromInline let classGyro: [Bool]
    @usableFromInline var cost: [Double]
    @usableFromInline var start: [Int]
    /// Per cell: how many steps in a row its path took along one sequence alone (+: the
    /// stream's, -: the example's); at most `maxRun`, so no stretch of either is squeezed onto
    /// one frame of the other (a slope constraint: the path keeps a shape's timing within 3x).
    /// A step along the other sequence alone needs a diagonal step first. Each cell keeps its
    /// cheapest path's count only: the best constrained path, approximately.
    @usableFromInline var run: [Int8]
    public static let maxRun: Int8 = 2
    @usableFromInline var classScore: [Double]
    @usableFromInline var classProgress: [Double]
    @usableFromInline var candidate: [Bool]
    @usableFromInline var bestRatio: [Double]
    @usableFromInline var bestTick: [Int]
    /// Per class: the frame where the path of its best match so far began; of the current
    /// frame's best whole match and its best early match.
    @usableFromInline var bestStart: [Int]
    @usableFromInline var classStart: [Int]
    @usableFromInline var earlyStart: [Int]
    @usableFromInline var zeroRun: [Int]
    /// Per class: the last frame its matched depth grew, and that depth: a longer movement
    /// still unfolding, which a shorter class ready to fire waits for.
    @usableFromInline var grewTick: [Int]
    @usableFromInline var lastDepth: [Double]
    /// The frame a class first stood ready to fire since the last firing (`Int.min`: none).
    @usableFromInline var readySince = Int.min
    /// A match counts as still growing when its depth grew within this many frames.
    public static let growingFrames = 2
    @usableFromInline var tick = 0
    @usableFromInline var refractoryUntil = Int.min
    /// Early firing: once `earlyDepth` of an example is matched with a distance under
    /// `earlyRatio` of the threshold, the class fires without waiting for the movement's end.
    public static let earlyDepth = 0.8, earlyRatio = 0.9
    @usableFromInline let early: [Int]
    @usableFromInline var classEarly: [Double]
    /// Per class: its longest example, in internal frames.
    @usableFromInline let classLength: [Int]
    /// The longest a ready class waits for another still unfolding: the longest example (frames).
    @usableFromInline let maxWait: Int
    @usableFromInline var lastTickTime = 0.0

    public init(model: GestureModel) {
        self.model = model
        var t: [Double] = [], off: [Int] = [], len: [Int] = [], cls: [Int] = []
        for (c, k) in model.classes.enumerated() {
            for e in k.examples where e.frames > 0 {
                off.append(t.count / GestureFeatures.dims); len.append(e.frames); cls.append(c)
                t += e.values
            }
        }
        templates = t; exOffset = off; exLength = len; exClass = cls
        classLength = model.classes.map { $0.examples.map(\.frames).max() ?? 0 }
        maxWait = classLength.max() ?? 0
        early = len.map { max(1, Int((Self.earlyDepth * Double($0)).rounded(.up))) }
        classEarly = .init(repeating: .infinity, count: model.classes.count)
        thresholds = model.classes.map(\.effectiveThreshold)
        classGyro = model.classes.map(\.gyro)
        let total = t.count / GestureFeatures.dims, n = model.classes.count
        cost = .init(repeating: .infinity, count: total)
        start = .init(repeating: 0, count: total)
        run = .init(repeating: 0, count: total)
        // each array its own buffer: one assigned from another would share it until its first
        // write, and that write would allocate while the stream runs
        fired = .init(repeating: 0, count: n); progress = .init(repeating: 0, count: n)
        classScore = .init(repeating: 0, count: n); classProgress = .init(repeating: 0, count: n)
        counts = .init(repeating: 0, count: n); lastRatio = .init(repeating: 0, count: n)
        nearestMiss = .init(repeating: .infinity, count: n); nearestMissTime = .init(repeating: .nan, count: n)
        candidate = .init(repeating: false, count: n); bestRatio = .init(repeating: 0, count: n)
        bestTick = .init(repeating: 0, count: n); zeroRun = .init(repeating: 0, count: n)
        bestStart = .init(repeating: 0, count: n); classStart = .init(repeating: 0, count: n)
        earlyStart = .init(repeating: 0, count: n)
        grewTick = .init(repeating: Int.min / 2, count: n); lastDepth = .init(repeating: 0, count: n)
    }

    public var classCount: Int { thresholds.count }

    /// Forgets the stream (a new take).
    public mutating func reset() {
        features.reset()
        for i in cost.indices { cost[i] = .infinity; start[i] = 0; run[i] = 0 }
        for c in 0..<classCount {
            fired[c] = 0; progress[c] = 0; candidate[c] = false; zeroRun[c] = 0; grewTick[c] = Int.min / 2;
            lastDepth[c] = 0
        }
        tick = 0; refractoryUntil = .min; readySince = .min
    }

    /// Feeds one reading (accelerometer and/or rotation rate; an absent one is a NaN vector).
    /// Afterwards `fired` and `progress` say what it brought.
    public mutating func feed(accel a: Vector3, gyro w: Vector3, at t: Double) {
        for c in 0..<classCount { fired[c] = 0 }
        features.feed(accel: a, gyro: w, at: t)
        let n = features.count
        for k in 0..<n { step(k, time: features.outTimes[k]) }
    }

    @usableFromInline mutating func step(_ k: Int, time: Double) {
        tick += 1
        lastTickTime = time
        let D = GestureFeatures.dims
        let nc = classCount
        let useGyro = features.hasGyro
        for c in 0..<nc { classScore[c] = .infinity; classProgress[c] = 0; classEarly[c] = .infinity }
        let now = tick
        // the frame's features, in registers
        let fb = k * D
        let x0 = features.out[fb], x1 = features.out[fb + 1], x2 = features.out[fb + 2]
        let x3 = features.out[fb + 3], x4 = features.out[fb + 4], x5 = features.out[fb + 5], x6 = features.out[fb + 6]
        templates.withUnsafeBufferPointer { T in
            cost.withUnsafeMutableBufferPointer { C in
                start.withUnsafeMutableBufferPointer { S in
                    run.withUnsafeMutableBufferPointer { R in
                        for e in 0..<exOffset.count {
                            let c = exClass[e], m = exLength[e], o = exOffset[e]
                            let six = useGyro && classGyro[c]
                            let thr = thresholds[c]
                            var diagCost = 0.0, diagStart = now  // D_old[j-1] (open begin before j = 0)
                            var leftCost = Double.infinity, leftStart = now, leftRun: Int8 = 0
                            var deepest = -1
                            for j in 0..<m {
                                let b = (o + j) * D
                                var d = abs(x0 - T[b]) + abs(x1 - T[b + 1]) + abs(x2 - T[b + 2]) + abs(x3 - T[b + 3])
                                if six { d += abs(x4 - T[b + 4]); d += abs(x5 - T[b + 5]); d += abs(x6 - T[b + 6]) }
                                let upCost = C[o + j], upStart = S[o + j], upRun = R[o + j]
                                var best = diagCost + 2 * d, bs = diagStart, br: Int8 = 0
                                if upRun >= 0 && upRun < Self.maxRun && upCost + d < best {
                                    best = upCost + d; bs = upStart; br = upRun + 1
                                }
                                if leftRun <= 0 && leftRun > -Self.maxRun && leftCost + d < best {
                                    best = leftCost + d; bs = leftStart; br = leftRun - 1
                                }
                                diagCost = upCost; diagStart = upStart
                                C[o + j] = best; S[o + j] = bs; R[o + j] = br
                                leftCost = best; leftStart = bs; leftRun = br
                                // within the threshold so far, on a path not too stretched (no division)
                                let len = Double(now - bs + 1), jj = Double(j + 1)
                                if len <= Self.maxStretch * jj + 2, best <= thr * (len + jj) {
                                    deepest = j
                                    // early: most of the example matched already, and well
                                    if j + 1 >= early[e], len >= Self.minStretch * jj,
                                        best <= Self.earlyRatio * thr * (len + jj)
                                    {
                                        let r = best / (thr * (len + jj))
                                        if r < classEarly[c] { classEarly[c] = r; earlyStart[c] = bs }
                                    }
                                }
                            }
                            let len = now - S[o + m - 1] + 1
                            let dm = Double(m)
                            if Double(len) >= Self.minStretch * dm, Double(len) <= Self.maxStretch * dm {
                                let s = C[o + m - 1] / Double(len + m)
                                if s < classScore[c] { classScore[c] = s; classStart[c] = S[o + m - 1] }
                            }
                            let p = Double(deepest + 1) / dm
                            if p > classProgress[c] { classProgress[c] = p }
                        }
                    }
                }
            }
        }
        // progress: held up while the movement goes on, 0 once nothing matches
        for c in 0..<nc {
            let p = classProgress[c] >= Self.progressFloor ? classProgress[c] : 0
            if p > 0 {
                zeroRun[c] = 0; progress[c] = max(progress[c], p)
            } else {
                zeroRun[c] += 1; if zeroRun[c] >= Self.progressHold { progress[c] = 0 }
            }
        }
        // candidates and firing
        var ready = -1
        for c in 0..<nc {
            if classProgress[c] > lastDepth[c] { grewTick[c] = now }
            lastDepth[c] = classProgress[c]
            let r = classScore[c] / thresholds[c]
            if r <= 1 {
                if !candidate[c] || r < bestRatio[c] {
                    candidate[c] = true; bestRatio[c] = r; bestTick[c] = now; bestStart[c] = classStart[c]
                }
            } else if !candidate[c], r < nearestMiss[c], r < 3 {
                nearestMiss[c] = r; nearestMissTime[c] = time
            }
            if candidate[c] && (r > 1 || now - bestTick[c] >= Self.holdFrames) { ready = c }
            if classEarly[c] <= Self.earlyRatio {
                // an early match fires now, at its own quality
                if !candidate[c] || classEarly[c] < bestRatio[c] {
                    bestRatio[c] = classEarly[c]; bestStart[c] = earlyStart[c]
                }
                candidate[c] = true; bestTick[c] = now; ready = c
            }
        }
        guard ready >= 0 else { return }
        // a shorter class often matches the start of a longer movement: while another class's
        // match still grows (and at most `maxWait` frames), wait; then the nearest candidate of
        // all takes the movement (so a tennis swing is not taken by the table-tennis class
        // that matches its first half). That class may be a candidate already, from an early
        // match of most of its example: its whole match decides against the shorter one's (a
        // B2 p-shape's first stroke is a swipe up)
        if readySince == Int.min { readySince = now }
        if now >= refractoryUntil && now - readySince < maxWait {
            for c in 0..<nc
            where c != ready && classProgress[c] >= Self.progressFloor && classProgress[c] < 1
                && now - grewTick[c] <= Self.growingFrames
            { return }
        }
        readySince = Int.min
        // the nearest candidate of all takes the movement: the smallest match distance among
        // the classes within their own thresholds (by distance/threshold instead, a class
        // whose examples vary widely would take the strokes of one whose examples are alike;
        // `LearnedGestureScoreTests` counts the strokes fired as another class).
        // A distance sums the features a class uses (4 from the accelerometer, 7 with a gyro):
        // when the candidates differ in that, distance over threshold decides instead.
        var sixSeen = false, fourSeen = false
        for c in 0..<nc where candidate[c] { if useGyro && classGyro[c] { sixSeen = true } else { fourSeen = true } }
        let byRatio = sixSeen && fourSeen
        var win = ready
        var winKey = byRatio ? bestRatio[win] : bestRatio[win] * thresholds[win]
        for c in 0..<nc where candidate[c] {
            let key = byRatio ? bestRatio[c] : bestRatio[c] * thresholds[c]
            if key < winKey { win = c; winKey = key }
        }
        if now >= refractoryUntil {
            fired[win] = max(fired[win], 1 - 0.5 * bestRatio[win])
            counts[win] += 1
            lastRatio[win] = bestRatio[win]
            progress[win] = 1
            // one firing per movement: nothing more until `holdBack` times the longest example
            // of all names after the matched movement began (an early firing comes before the
            // movement's end, and the rest of it, or the second half of a movement of two like
            // halves, must not fire again; a shorter name may have taken the start of a longer
            // movement), and for `refractory` at least
            refractoryUntil = max(
                now + Int(Self.refractory * GestureFeatures.rate),
                bestStart[win] + Int(Self.holdBack * Double(maxWait)))
        }
        for c in 0..<nc { candidate[c] = false }
        for i in cost.indices { cost[i] = .infinity; run[i] = 0 }
    }
}
