/// Frame timing statistics: is the time column read in the right unit?
extension ParserStats {
    /// Bucket of an interval between frames: two per octave from about 1 µs (bucket 1) to
    /// about 45 minutes (bucket 63); bucket 0 holds intervals of zero.
    static func intervalBucket(_ dt: Double) -> Int {
        guard dt > 0 else { return 0 }
        guard dt.isFinite else { return 63 }
        let half = dt.significand >= 1.4142135623730951 ? 1 : 0
        return min(63, max(1, 2 * (Int(dt.exponent) + 20) + half + 1))
    }

    /// The lower edge of a bucket, in seconds.
    static func bucketSeconds(_ b: Int) -> Double {
        guard b > 0 else { return 0 }
        let k = b - 1
        let octave = k / 2 - 20
        return Double(sign: .plus, exponent: octave, significand: k % 2 == 1 ? 1.4142135623730951 : 1)
    }

    /// Records the time of a frame (stream seconds).
    mutating func noteFrameTime(_ t: Double) {
        guard t.isFinite else { return }
        if firstTime.isNaN { firstTime = t } else { intervalBuckets[Self.intervalBucket(t - lastTime)] &+= 1 }
        lastTime = t
    }

    /// The median interval between frames (s), to within a factor of about 1.2; nil with
    /// fewer than two frames.
    public var medianFrameInterval: Double? {
        var total = 0
        for i in 0..<64 { total &+= intervalBuckets[i] }
        guard total > 0 else { return nil }
        var seen = 0
        for b in 0..<64 {
            seen &+= intervalBuckets[b]
            if seen * 2 >= total {
                // the geometric middle of the bucket
                return b == 0 ? 0 : Self.bucketSeconds(b) * 1.189207115002721
            }
        }
        return nil
    }

    /// A warning when the timestamps imply a rate no phone or watch logs at: a median rate
    /// above `maxRate` (seconds read as milliseconds: a 10-minute log lasting half a second)
    /// or below `minRate` (milliseconds read as seconds), or a time that never advances.
    /// Nil when the rate is plausible or there are fewer than `minFrames` frames.
    public func implausibleRateWarning(minRate: Double = 0.5, maxRate: Double = 2000, minFrames: Int = 10) -> String? {
        guard frames >= minFrames, let median = medianFrameInterval else { return nil }
        let span = lastTime - firstTime
        let spanText = "\(frames) frames over \(Self.roundedText(span)) s"
        if span <= 0 || median == 0 {
            return
                "timestamps do not advance (\(spanText)): the time column is probably not a time, or is read in the wrong unit"
        }
        let rate = 1 / median
        if rate > maxRate {
            return
                "timestamps imply about \(Self.roundedText(rate)) Hz (\(spanText)), faster than any phone or watch logs: a time column in seconds read as milliseconds (or finer)? Check --format and the time column."
        }
        if rate < minRate {
            return
                "timestamps imply about \(Self.roundedText(rate)) Hz, one frame every \(Self.roundedText(median)) s (\(spanText)): a time column in milliseconds read as seconds? Check --format and the time column."
        }
        return nil
    }

    static func roundedText(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let a = abs(x)
        return NumberText.rounded(x, a >= 100 ? 0 : (a >= 1 ? 2 : (a >= 0.001 ? 5 : 9)))
    }
}
