/// What the phone's own browser sends (`listen --web`: the page SensorWah serves reads the
/// `devicemotion` events and sends them in batches, over a WebSocket or as HTTP POSTs). A batch
/// is text, one line per item, fields separated by spaces:
///
///     SWW1 NAME
///     T AX AY AZ UX UY UZ RA RB RG
///     ...
///
/// The first line names the format and the sender (NAME percent-encoded UTF-8, `-` for none).
/// Each further line is one `devicemotion` event: T, the event's own timestamp in milliseconds
/// (the browser's monotonic clock: frames are timed by it, never by arrival);
/// `accelerationIncludingGravity` x y z and `acceleration` x y z in m/s²; `rotationRate` alpha
/// beta gamma in degrees per second (about the device's z, x and y axes). A value the browser
/// does not give is `-`.
///
/// The frames are in SensorLog's units and conventions (Core Motion's): G and rad/s, the same
/// device axes, gravity reading -1 G along the axis that points down. The W3C specification
/// reports the opposite sign (a phone lying face up reads z = +9.81); Safari on iOS has reported
/// both over the years. So each sender's sign is decided from gravity at rest: a person looking
/// at the screen holds it facing up or towards them, where the specification's y + z is
/// positive; until a reading near 1 G is seen the frames are held back (at most
/// `maxUndecided`, then decided on what was seen).
public struct BrowserMotion: Sendable {
    public static let standardGravity = 9.80665
    /// Samples held back while the sign is not known.
    public static let maxUndecided = 100
    /// Longest batch line read (a longer one is refused), and most lines in a batch (the page
    /// sends at most 400).
    public static let maxLine = 256
    public static let maxLines = 2000
    /// Readings near 1 G that vote on the sign before it is decided (about half a second).
    public static let signVotes = 25

    public enum Convention: Sendable, Equatable {
        /// The specification's: proper acceleration, face up reads z = +9.81 (Chrome, Firefox,
        /// recent Safari). Negated into Core Motion's.
        case specification
        /// Core Motion's already (older Safari on iOS).
        case inverted
    }

    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// One event as the page sent it.
    public struct Sample: Sendable, Equatable {
        public var time: Double  // ms
        public var gravityAccel: SIMD3<Double>  // m/s², NaN when absent
        public var userAccel: SIMD3<Double>  // m/s², NaN when absent
        public var rate: SIMD3<Double>  // alpha beta gamma, deg/s, NaN when absent
    }

    /// A decoded batch: the sender's name (nil for `-`) and its samples in order.
    public struct Batch: Sendable, Equatable {
        public var name: String?
        public var samples: [Sample]
    }

    public private(set) var convention: Convention?
    var origin: Double?
    /// Stream time of `origin` (moves on a restart, so time continues).
    var base = 0.0
    var lastTime = -Double.infinity
    var lastSample = -Double.infinity
    var held: [Sample] = []
    var votes = 0.0, voted = 0
    /// Times the page started its clock again (a reload, a second tab of the same name).
    public private(set) var restarts = 0
    /// Samples older than the last frame sent (a late or repeated batch): dropped.
    public private(set) var late = 0
    public private(set) var frames = 0

    public init() {}

    // MARK: reading a batch

    /// Reads a batch; a text that is not one is refused with what was seen.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(Refusal) -> Batch {
        // the lines, as ranges of the buffer (no copy); at most maxLines
        var lines: [Range<Int>] = []
        var start = 0
        let n = bytes.count
        for i in 0...n where i == n || bytes[i] == 0x0A {
            var end = i
            if end > start && bytes[end - 1] == 0x0D { end -= 1 }
            if end > start {
                guard lines.count < maxLines else { throw Refusal(reason: "more than \(maxLines) lines in one batch") }
                lines.append(start..<end)
            }
            start = i + 1
        }
        func slice(_ r: Range<Int>) -> ArraySlice<UInt8> { ArraySlice(bytes[r]) }
        guard let headRange = lines.first else {
            throw Refusal(reason: "an empty batch (expected a first line SWW1 NAME)")
        }
        let head = slice(headRange.lowerBound..<min(headRange.upperBound, headRange.lowerBound + 300))
        let headWords = head.split(separator: 0x20)
        guard headWords.first.map({ Array($0) }) == Array("SWW1".utf8), headWords.count <= 2, headRange.count <= 300
        else {
            let seen = String(decoding: head.prefix(40), as: UTF8.self)
            throw Refusal(
                reason:
                    "not a SensorWah web batch: the first line is '\(seen)', expected 'SWW1 NAME' (the page listen --web serves sends it)"
            )
        }
        var name: String? = nil
        if headWords.count == 2, Array(headWords[1]) != [0x2D] {
            guard let n = percentDecoded(headWords[1]), !n.isEmpty, n.utf8.count <= 64 else {
                throw Refusal(reason: "the sender's name is not percent-encoded UTF-8 of at most 64 bytes")
            }
            name = n
        }
        var samples: [Sample] = []
        samples.reserveCapacity(lines.count - 1)
        for (k, range) in lines.dropFirst().enumerated() {
            guard range.count <= maxLine else { throw Refusal(reason: "line \(k + 2) is longer than \(maxLine) bytes") }
            let line = slice(range)
            let words = line.split(separator: 0x20)
            guard words.count == 10 else {
                throw Refusal(
                    reason: "line \(k + 2) has \(words.count) fields, expected 10: T AX AY AZ UX UY UZ RA RB RG")
            }
            var v = [Double](repeating: .nan, count: 10)
            for (j, w) in words.enumerated() {
                if w.count == 1 && w.first == 0x2D { continue }  // "-": not given
                let value = w.withUnsafeBufferPointer { parseField($0.baseAddress!, $0.count) }
                guard case .number(let x) = value, x.isFinite, abs(x) < 1e12 else {
                    throw Refusal(
                        reason:
                            "line \(k + 2), field \(j + 1): '\(String(decoding: w.prefix(20), as: UTF8.self))' is not a number"
                    )
                }
                v[j] = x
            }
            guard v[0].isFinite else { throw Refusal(reason: "line \(k + 2) has no time") }
            samples.append(
                Sample(
                    time: v[0], gravityAccel: SIMD3(v[1], v[2], v[3]), userAccel: SIMD3(v[4], v[5], v[6]),
                    rate: SIMD3(v[7], v[8], v[9])))
        }
        return Batch(name: name, samples: samples)
    }

    static func percentDecoded(_ s: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        var i = s.startIndex
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        while i < s.endIndex {
            if s[i] == 0x25 {
                guard i + 2 < s.endIndex, let h = hex(s[i + 1]), let l = hex(s[i + 2]) else { return nil }
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(s[i]); i += 1
            }
        }
        guard let str = String(validating: out, as: UTF8.self) else { return nil }
        // no control characters in a sender's name
        return str.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? nil : str
    }

    // MARK: frames

    /// What a reading near 1 G says of the sign: y + z in m/s², positive for the
    /// specification's (nil when the reading is not near 1 G, or lies on its edge).
    static func vote(_ s: Sample) -> Double? {
        let g = s.gravityAccel
        guard g.x.isFinite, g.y.isFinite, g.z.isFinite else { return nil }
        let m = (g.x * g.x + g.y * g.y + g.z * g.z).squareRoot()
        guard m > 0.75 * standardGravity, m < 1.25 * standardGravity, abs(g.y + g.z) > 0.3 * standardGravity else {
            return nil
        }
        return g.y + g.z
    }

    /// Adds a batch's samples; `emit` gets each frame in order, timed by the browser's clock
    /// (seconds since the sender's first sample). The sign is decided by the first
    /// `signVotes` readings near 1 G (or, after `maxUndecided` samples, by all of them); until
    /// then the frames are held back. Returns the convention when this batch decided it.
    @discardableResult
    public mutating func add(_ batch: Batch, emit: (borrowing SensorFrame) -> Void) -> Convention? {
        var decided: Convention? = nil
        for s in batch.samples {
            if convention == nil {
                held.append(s)
                if let v = Self.vote(s) { votes += v > 0 ? 1 : -1; voted += 1 }
                if voted < Self.signVotes && held.count < Self.maxUndecided { continue }
                if voted == 0 {
                    for h in held where h.gravityAccel.y.isFinite && h.gravityAccel.z.isFinite {
                        votes += h.gravityAccel.y + h.gravityAccel.z
                    }
                }
                convention = votes >= 0 ? .specification : .inverted
                decided = convention
                let first = held
                held = []
                for h in first { frame(h, emit) }
                continue
            }
            frame(s, emit)
        }
        return decided
    }

    mutating func frame(_ s: Sample, _ emit: (borrowing SensorFrame) -> Void) {
        // the page's clock went back by more than a second: it was loaded again (or another tab
        // of the same name): its time continues 10 ms after the last frame sent
        if s.time < lastSample - 1000 {
            origin = nil
            base = lastTime.isFinite ? lastTime + 0.01 : 0
            restarts += 1
        }
        if origin == nil { origin = s.time }
        let t = base + (s.time - origin!) / 1000
        guard t > lastTime else { late += 1; return }
        lastSample = s.time
        let sign = convention == .inverted ? 1.0 : -1.0
        var f = SensorFrame()
        let a = s.gravityAccel * (sign / Self.standardGravity)
        if a.x.isFinite && a.y.isFinite && a.z.isFinite {
            f[.accelX] = a.x; f[.accelY] = a.y; f[.accelZ] = a.z
            f.newGroups |= SensorGroup.accelerometer.bit
        }
        let r = s.rate * (Double.pi / 180)
        if r.x.isFinite && r.y.isFinite && r.z.isFinite {
            // alpha is about z, beta about x, gamma about y
            f[.gyroX] = r.y; f[.gyroY] = r.z; f[.gyroZ] = r.x
            f.newGroups |= SensorGroup.gyro.bit
        }
        let u = s.userAccel * (sign / Self.standardGravity)
        if u.x.isFinite && u.y.isFinite && u.z.isFinite {
            f[.userX] = u.x; f[.userY] = u.y; f[.userZ] = u.z
            f.newGroups |= SensorGroup.motion.bit
        }
        guard f.newGroups != 0 else { return }
        for g in 0..<SensorGroup.count where f.newGroups & (1 << UInt8(g)) != 0 { f.times[g] = t }
        lastTime = t
        frames += 1
        emit(f)
    }
}
