/// Teaching live (the live view's `t` key, the control page's Teach panel): one sender's
/// readings and fused gravity are collected while the performer shows a movement or holds a
/// pose, with the moments a key was pressed; `teach(into:)` turns them into examples or pose
/// points, as `sensorwah teach` does from a take's marks.
///
/// A press for a gesture means "that was one": the movement is looked for from 1.2 s before
/// the press to 0.2 s after it (a performer presses during or just after the movement, with
/// the other hand or a foot switch), and two presses on one movement teach it once. A press for
/// a pose takes the orientation held over the 0.6 s before it.
public struct TeachCapture: Sendable {
    public enum Kind: Sendable, Equatable {
        case gesture
        /// A pose, and the value the performer gives it.
        case pose(value: Double)
    }

    public let name: String
    public let kind: Kind
    public private(set) var times: [Double] = []
    public private(set) var accel: [Vector3] = []
    public private(set) var gyro: [Vector3] = []
    /// The fused gravity direction (device frame) and its time.
    public private(set) var gravity: [(t: Double, g: Vector3)] = []
    /// When each reading arrived (any monotonic clock in nanoseconds): a press, timed by the
    /// same clock, is put at the sensor time of the last reading before it.
    public private(set) var arrivals: [UInt64] = []
    /// The presses, in sensor time.
    public private(set) var presses: [Double] = []

    /// The longest capture (seconds of readings); later frames are not kept.
    public static let maxSeconds = 300.0
    public static let lookBefore = 1.2, lookAfter = 0.2, poseHeld = 0.6

    public init(name: String, kind: Kind) {
        self.name = name; self.kind = kind
    }

    public var isFull: Bool { times.count > 1 && times[times.count - 1] - times[0] >= Self.maxSeconds }

    /// Keeps a frame after the motion stage (its readings and fused gravity), arrived at
    /// `nanos`.
    public mutating func add(_ f: borrowing SensorFrame, arrived nanos: UInt64) {
        guard !isFull else { return }
        if let r = LearnedReading.of(f) {
            times.append(r.time); accel.append(r.accel); gyro.append(r.gyro); arrivals.append(nanos)
        }
        if f.has(.derived) {
            let g = Vector3(f[.tiltX], f[.tiltY], f[.tiltZ])
            if g.isFiniteVector { gravity.append((f.time(.derived), g)) }
        }
    }

    /// A press at `nanos` (the arrivals' clock): at the sensor time of the last reading that
    /// arrived before it, plus the time since that reading arrived (at most 1 s: a sender that
    /// sends its readings in batches, as HTTP push apps do, has the movement's readings still
    /// on the way). False when no reading has arrived yet.
    @discardableResult
    public mutating func press(at nanos: UInt64) -> Bool {
        var lo = 0, hi = arrivals.count
        while lo < hi { let mid = (lo + hi) / 2; if arrivals[mid] <= nanos { lo = mid + 1 } else { hi = mid } }
        guard lo > 0 else { return false }
        presses.append(times[lo - 1] + min(Double(nanos - arrivals[lo - 1]) * 1e-9, 1))
        return true
    }

    /// What teaching gave: how many examples or points were added, and a line per press.
    public struct Outcome: Sendable {
        public var taught = 0
        public var lines: [String] = []
    }

    /// Adds the presses' examples (a gesture) or points (a pose) to `model`; `origin` names the
    /// capture in the file (`live 2026-11-26 09:12`).
    public func teach(into model: inout LearnedModel, origin: String) -> Outcome {
        var out = Outcome()
        guard let t0 = times.first else {
            out.lines.append("no readings arrived: is the sender streaming?")
            return out
        }
        func s(_ v: Double) -> String { NumberText.trimmed(v, 2) }
        switch kind {
        case .gesture:
            var repeats = Set<Int>()
            let found = model.gestures.teach(
                times: times, accel: accel, gyro: gyro,
                marks: presses.map { ($0 - t0, name) }, origin: origin,
                before: Self.lookBefore, after: Self.lookAfter, reachOut: 0, repeated: { repeats.insert($0) })
            for (i, (p, f)) in zip(presses, found).enumerated() {
                if let f {
                    out.taught += 1
                    out.lines.append(
                        "press at \(s(p - t0)) s: example \(s(f.start))-\(s(f.end)) s (\(s(f.end - f.start)) s)")
                } else if repeats.contains(i) {
                    out.lines.append("press at \(s(p - t0)) s: the same movement as an earlier press, taught once")
                } else {
                    out.lines.append("press at \(s(p - t0)) s: no movement in the 1.2 s before it, not taught")
                }
            }
        case .pose(let value):
            for p in presses {
                let held = gravity.filter { $0.t >= p - Self.poseHeld && $0.t <= p }.map(\.g)
                guard
                    let spread = model.addPose(name, value: value, samples: held, origin: "\(origin) at \(s(p - t0)) s")
                else {
                    out.lines.append(
                        "press at \(s(p - t0)) s: no orientation (the pose needs the fused tilt), not taught")
                    continue
                }
                out.taught += 1
                let deg = spread * 180 / .pi
                out.lines.append(
                    "press at \(s(p - t0)) s: pose held within \(NumberText.trimmed(deg, 1))°\(deg > 20 ? " (the wrist moved: hold it still for a pose)" : "")"
                )
            }
        }
        return out
    }
}
