#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Numbers written as text for people and files: the few styles SensorWah writes, in one place.
///
/// - `fixed`: exactly `digits` decimals, zeros kept, half away from zero on the scaled value,
///   never "-0.0" (live view, JACK status).
/// - `printf`: C's `%.Nf` (the exact binary value rounded, ties to even), optionally with
///   "-0.000" written "0.000" (the gestures file, teach's report).
/// - `trimmed`: at most `digits` decimals, trailing zeros dropped, "0" for zero ("0.25", "-1",
///   "12.5"; the export CSV).
/// - `rounded`: Swift's shortest text of `v` rounded to `digits` decimals ("0.5", "1.0", "-0.0"),
///   optionally padded with zeros to `digits` decimals (`render`'s summary).
/// - `whole`: whole numbers without ".0", anything else as Swift writes it or, given
///   `significant`, as C's `%.Ng` (teach's report).
public enum NumberText {
    /// What NaN and the infinities are written as.
    public enum NonFinite: Sendable, Equatable {
        /// Swift's own text: "nan", "inf", "-inf".
        case swift
        /// This text for NaN, Swift's text for the infinities.
        case nan(String)
        /// This text for all three.
        case all(String)

        func text(_ v: Double) -> String {
            switch self {
            case .swift: return String(v)
            case .nan(let t): return v.isNaN ? t : String(v)
            case .all(let t): return t
            }
        }
    }

    static func scale(_ digits: Int) -> Double {
        var scale = 1.0
        for _ in 0..<max(digits, 0) { scale *= 10 }
        return scale
    }

    /// Exactly `digits` decimals, zeros kept: 12.345 -> "12.3" (1), -0.04 -> "0.0", 0.25 -> "0.3".
    /// Beyond what an Int holds, Swift's text.
    public static func fixed(_ v: Double, _ digits: Int, nonFinite: NonFinite = .swift) -> String {
        guard v.isFinite else { return nonFinite.text(v) }
        let scale = scale(digits)
        guard abs(v) * scale < 9e18 else { return String(v) }
        let n = Int((abs(v) * scale).rounded())
        let whole = n / Int(scale)
        var frac = String(n % Int(scale))
        while frac.count < digits { frac = "0" + frac }
        return (v < 0 && n != 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + frac : "")
    }

    /// C's `%.Nf`: 0.125 -> "0.12" (2), -0.0001 -> "-0.000" (3); with `minusZero: false`, a
    /// negative that rounds to zero is written without its sign ("0.000").
    public static func printf(_ v: Double, _ digits: Int, minusZero: Bool = true) -> String {
        let s = cFormat(v, "%.\(max(digits, 0))f")
        guard !minusZero else { return s }
        let zeros = digits > 0 ? "0." + String(repeating: "0", count: digits) : "0"
        return s == "-" + zeros ? zeros : s
    }

    /// `v` through C's formatting (no Foundation in SensorWahCore).
    static func cFormat(_ v: Double, _ format: String) -> String {
        var size = 64
        while true {
            var buf = [CChar](repeating: 0, count: size)
            let n = buf.withUnsafeMutableBufferPointer { p in
                withVaList([v]) { vsnprintf(p.baseAddress, size, format, $0) }
            }
            guard n >= 0 else { return String(v) }
            if Int(n) < size { return String(decoding: buf[..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            size = Int(n) + 1
        }
    }

    /// At most `digits` decimals, trailing zeros dropped: "0.25", "-1", "12.5", "0" (never "-0").
    /// Scaled values of 9e15 and more: Swift's text.
    public static func trimmed(_ v: Double, _ digits: Int, nonFinite: NonFinite = .all("")) -> String {
        guard v.isFinite else { return nonFinite.text(v) }
        let scale = scale(digits)
        guard abs(v) * scale < 9e15 else { return "\(v)" }
        let n = Int((abs(v) * scale).rounded())
        if n == 0 { return "0" }
        let whole = n / Int(scale), frac = n % Int(scale)
        var s = v < 0 ? "-" : ""
        s += String(whole)
        if frac != 0 {
            var f = String(frac)
            f = String(repeating: "0", count: digits - f.count) + f
            while f.last == "0" { f.removeLast() }
            s += "." + f
        }
        return s
    }

    /// Swift's text of `v` rounded to `digits` decimals: 0.12345 -> "0.123" (3), 2 -> "2.0",
    /// -0.0001 -> "-0.0", NaN -> "nan". `padded`: zeros added up to `digits` decimals ("2.00"),
    /// and with no decimals a whole number ("2"); non-finite values as Swift writes them.
    public static func rounded(_ v: Double, _ digits: Int, padded: Bool = false) -> String {
        let scale = scale(digits)
        let r = (v * scale).rounded() / scale
        guard padded else { return String(r) }
        guard v.isFinite else { return String(v) }
        if digits == 0 { return String(Int(r)) }
        var s = String(r)
        if let dot = s.firstIndex(of: ".") {
            let have = s.distance(from: dot, to: s.endIndex) - 1
            if have < digits { s += String(repeating: "0", count: digits - have) }
        }
        return s
    }

    /// Whole numbers (below `limit` in size) without ".0": 3 -> "3", -0.0 -> "0", 2.5 -> "2.5",
    /// 1e20 -> "1e+20". With `significant`, anything else as C's `%.Ng`: 0.1234567 -> "0.123457",
    /// 1e9 -> "1e+09" (6).
    public static func whole(_ v: Double, limit: Double = 1e15, significant: Int? = nil) -> String {
        if v == v.rounded(), abs(v) < limit { return String(Int(v)) }
        guard let n = significant else { return String(v) }
        return cFormat(v, "%.\(max(n, 1))g")
    }
}
