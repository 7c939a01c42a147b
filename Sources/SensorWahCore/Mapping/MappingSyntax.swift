/// A mapping written as one line of words, e.g.
/// `accel.x cc=11 ch=1 range=-1..1 bipolar smooth=40ms curve=exp:2 deadzone=0.05`.
public struct MappingSyntaxError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { message }
}

extension Mapping {
    public static let syntaxHelp = """
    A mapping is a source followed by options, separated by spaces or commas:
      SOURCE   accel.x|y|z  gyro.x|y|z  rate.x|y|z  user.x|y|z  gravity.x|y|z
               pitch  roll  yaw   or a magnitude: accel.mag, gyro.mag, user.mag ...
      cc=N     7-bit Control Change N (0-127)          cc14=N  14-bit CC, MSB N (0-31), LSB N+32
      bend     pitch bend                              ch=N    MIDI channel 1-16 (default 1)
      range=MIN..MAX   input range (clamped)           bipolar | unipolar   centre=X
      invert   deadzone=F (0-0.9)   curve=linear|exp:K|log:K
      smooth=MS  smoothing time constant in ms (0 = off)   beta=B  one-euro speed coefficient
      reject=B   drop readings beyond ±B (none = off)      speed=S  plausible units/s (jump rejection)
      rate=HZ    at most HZ messages per second            rest=V   value sent at exit or silence
      sender=NAME  only this sender (listen)
    Example: "accel.x cc=11 ch=1 range=-1..1 bipolar smooth=40"
    """

    public init(parsing text: String) throws {
        let words = text.split { $0 == " " || $0 == "," || $0 == "\t" }.map(String.init)
        guard let first = words.first else { throw MappingSyntaxError(message: "empty mapping") }
        guard let source = Source(parsing: first) else {
            throw MappingSyntaxError(message: "unknown source '\(first)' (try accel.x, gyro.z, pitch, accel.mag)")
        }
        var channel: UInt8 = 0
        var kind = "cc"
        var number: UInt8 = 11
        var sawTarget = false
        var pending: [(String, String?)] = []
        for w in words.dropFirst() {
            let kv = w.split(separator: "=", maxSplits: 1).map(String.init)
            let key = kv[0].lowercased()
            let value = kv.count > 1 ? kv[1] : nil
            func int(_ lo: Int, _ hi: Int) throws -> Int {
                guard let v = value, let n = Int(v), n >= lo, n <= hi else {
                    throw MappingSyntaxError(message: "'\(w)': \(key) needs a whole number \(lo)-\(hi)")
                }
                return n
            }
            switch key {
            case "cc": number = UInt8(try int(0, 127)); kind = "cc"; sawTarget = true
            case "cc14": number = UInt8(try int(0, 31)); kind = "cc14"; sawTarget = true
            case "bend", "pitchbend": kind = "bend"; sawTarget = true
            case "ch", "channel": channel = UInt8(try int(1, 16) - 1)
            default: pending.append((key, value))
            }
        }
        _ = sawTarget
        let target: Target
        switch kind {
        case "cc14": target = .controlChange14(channel: channel, controller: number)
        case "bend": target = .pitchBend(channel: channel)
        default: target = .controlChange(channel: channel, controller: number)
        }
        self.init(source: source, target: target)
        var centreSet = false
        for (key, value) in pending {
            func num() throws -> Double {
                guard let v = value, let d = Double(v.replacingMS), d.isFinite else {
                    throw MappingSyntaxError(message: "'\(key)=\(value ?? "")': \(key) needs a number")
                }
                return d
            }
            switch key {
            case "range":
                guard let v = value else { throw MappingSyntaxError(message: "range needs MIN..MAX") }
                let parts = v.split(separator: ".", omittingEmptySubsequences: true)
                let bounds: [Double]
                if v.contains("..") {
                    let r = v.componentsSeparatedByDoubleDot
                    bounds = r.compactMap { Double($0) }
                } else {
                    bounds = parts.count == 2 ? parts.compactMap { Double($0) } : []
                }
                guard bounds.count == 2, bounds[0] < bounds[1] else {
                    throw MappingSyntaxError(message: "range '\(v)' must be MIN..MAX with MIN < MAX")
                }
                inputMin = bounds[0]; inputMax = bounds[1]
            case "bipolar": bipolar = true
            case "unipolar": bipolar = false
            case "centre", "center": centre = try num(); centreSet = true
            case "invert": invert = true
            case "deadzone":
                let d = try num()
                guard d >= 0, d <= 0.9 else { throw MappingSyntaxError(message: "deadzone must be 0-0.9") }
                deadZone = d
            case "curve":
                guard let v = value?.lowercased() else { throw MappingSyntaxError(message: "curve needs a value") }
                let p = v.split(separator: ":")
                let k = p.count > 1 ? Double(p[1]) : 3
                guard let amount = k, amount > 0, amount <= 20 else { throw MappingSyntaxError(message: "curve amount must be 0-20") }
                switch p[0] {
                case "linear", "lin": curve = .linear
                case "exp", "exponential": curve = .exponential(amount)
                case "log", "logarithmic": curve = .logarithmic(amount)
                default: throw MappingSyntaxError(message: "curve '\(v)': use linear, exp:K or log:K")
                }
            case "smooth", "smoothing":
                let ms = try num()
                guard ms >= 0, ms <= 10_000 else { throw MappingSyntaxError(message: "smooth must be 0-10000 ms") }
                smoothing = ms / 1000
            case "beta": beta = max(0, try num())
            case "reject":
                if value == "none" || value == "off" { rejectAbove = nil } else {
                    let b = try num()
                    guard b > 0 else { throw MappingSyntaxError(message: "reject must be > 0") }
                    rejectAbove = b
                }
            case "speed":
                if value == "none" || value == "off" { maxSpeed = .infinity } else { maxSpeed = max(0, try num()) }
            case "rate": rateLimit = max(0, try num())
            case "rest":
                guard let v = value, let r = Int(v), r >= 0, r <= target.maxValue else {
                    throw MappingSyntaxError(message: "rest must be 0-\(target.maxValue)")
                }
                restValue = r
            case "sender": sender = value
            default:
                throw MappingSyntaxError(message: "unknown option '\(key)'\n\(Mapping.syntaxHelp)")
            }
        }
        if !centreSet { centre = (inputMin + inputMax) / 2 }
        guard centre > inputMin || !bipolar, centre < inputMax || !bipolar else {
            throw MappingSyntaxError(message: "centre \(centre) must lie inside the range")
        }
    }
}

extension String {
    var replacingMS: String {
        var s = self.lowercased()
        if s.hasSuffix("ms") { s.removeLast(2) }
        return s
    }
    /// "-1..1" -> ["-1", "1"], "-2.5..-0.5" -> ["-2.5", "-0.5"]
    var componentsSeparatedByDoubleDot: [String] {
        var out: [String] = []
        var cur = ""
        var i = startIndex
        while i < endIndex {
            if self[i] == ".", index(after: i) < endIndex, self[index(after: i)] == "." {
                out.append(cur); cur = ""; i = index(i, offsetBy: 2); continue
            }
            cur.append(self[i]); i = index(after: i)
        }
        out.append(cur)
        return out
    }
}
