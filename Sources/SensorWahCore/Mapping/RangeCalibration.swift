/// "Trace the range in the air": from a few seconds of a performer's movement, the input
/// range of a mapping (and its rest point). The first `restSeconds` are the rest pose: its
/// median becomes the centre. The rest of the take is the comfortable range: its 2nd and 98th
/// percentiles (so one stray jolt does not widen it), with a small margin, become `range=`.
public struct RangeCalibration: Sendable {
    public var restSeconds: Double
    /// Fraction of the traced span added at each end.
    public var margin: Double
    var start = Double.nan
    var rest: [Double] = []
    var moving: [Double] = []

    public init(restSeconds: Double = 1.5, margin: Double = 0.05) {
        self.restSeconds = restSeconds
        self.margin = margin
    }

    /// One reading of the mapping's source at sensor time `t` (non-finite readings are ignored).
    public mutating func add(_ value: Double, at t: Double) {
        guard value.isFinite, t.isFinite else { return }
        if start.isNaN { start = t }
        if t - start < restSeconds { rest.append(value) } else { moving.append(value) }
    }

    public var samples: Int { rest.count + moving.count }

    public struct Result: Sendable, Equatable {
        public var min: Double
        public var max: Double
        public var centre: Double
    }

    public enum Failure: Error, CustomStringConvertible, Equatable {
        case tooFewReadings(Int)
        case noMovement(Double)
        public var description: String {
            switch self {
            case .tooFewReadings(let n):
                return
                    "only \(n) readings of the source: move for a few seconds while calibrating (is the sender streaming this source?)"
            case .noMovement(let span):
                return
                    "the traced range is only \(span) wide: move through your whole comfortable range while calibrating"
            }
        }
    }

    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        let pos = q * Double(sorted.count - 1)
        let lo = Int(pos.rounded(.down)), hi = Swift.min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - Double(lo))
    }

    /// The range and rest point, rounded to 3 significant decimals for the file.
    public func result() throws -> Result {
        let all = (moving.count >= 10 ? moving : rest + moving).sorted()
        guard all.count >= 10, rest.count + moving.count >= 10 else { throw Failure.tooFewReadings(samples) }
        var lo = Self.percentile(all, 0.02), hi = Self.percentile(all, 0.98)
        let span = hi - lo
        guard span > 1e-6 else { throw Failure.noMovement(span) }
        lo -= span * margin
        hi += span * margin
        let restSorted = (rest.isEmpty ? all : rest).sorted()
        var centre = Self.percentile(restSorted, 0.5)
        // the rest point must lie inside the range it is the centre of
        centre = Swift.min(Swift.max(centre, lo + span * 0.01), hi - span * 0.01)
        return Result(min: Self.round3(lo), max: Self.round3(hi), centre: Self.round3(centre))
    }

    static func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
}
