#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The result of reading one field as a number.
public enum FieldValue: Equatable, Sendable {
    case number(Double)
    case missing  // empty, `null`, `nan`: "no value", never zero
    case invalid  // text that is not a number
}

/// 1e0...1e22, every one exact in a Double. Written out as literals so the table is static data
/// (a global built by a closure is initialised lazily, checked with `swift_once` on every field).
@usableFromInline let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
]

/// Decimal number reader for sensor fields. Plain decimals with up to 19 digits use an exact
/// fast path (mantissa below 2^53 and a power of ten below 1e23 give a correctly rounded
/// result); anything longer goes through `strtod` on a stack copy. Accepts a leading sign,
/// a fraction and an exponent (`1.015325254E0`). `null`, `nan` and empty fields are
/// `.missing`; infinities and other text are `.invalid`.
@inlinable
public func parseField(_ base: UnsafePointer<UInt8>, _ count: Int) -> FieldValue {
    parseField(base, count, decimalComma: false)
}

/// As `parseField(_:_:)`; with `decimalComma` a `,` is read as the decimal point too
/// (`1,015325254E0`), for files whose fields are separated by `;` or a tab.
@inlinable
public func parseField(_ base: UnsafePointer<UInt8>, _ count: Int, decimalComma: Bool) -> FieldValue {
    var i = 0
    var n = count
    // trim spaces and a closing CR
    while i < n && (base[i] == 0x20 || base[i] == 0x09) { i &+= 1 }
    while n > i && (base[n &- 1] == 0x20 || base[n &- 1] == 0x0D || base[n &- 1] == 0x09) { n &-= 1 }
    if i == n { return .missing }
    var negative = false
    let c0 = base[i]
    if c0 == 0x2D { negative = true; i &+= 1 } else if c0 == 0x2B { i &+= 1 }
    var mantissa: UInt64 = 0
    var digits = 0
    var fracDigits = 0
    var sawDigit = false
    let start = i
    while i < n {
        let d = base[i] &- 0x30
        if d > 9 { break }
        sawDigit = true
        if mantissa == 0 && d == 0 { i &+= 1; continue }  // leading zeros cost no precision
        mantissa = mantissa &* 10 &+ UInt64(d)
        digits &+= 1
        i &+= 1
    }
    if i < n && (base[i] == 0x2E || (decimalComma && base[i] == 0x2C)) {
        i &+= 1
        while i < n {
            let d = base[i] &- 0x30
            if d > 9 { break }
            sawDigit = true
            if !(mantissa == 0 && d == 0) {
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits &+= 1
            }
            fracDigits &+= 1
            i &+= 1
        }
    }
    if !sawDigit {
        return wordValue(base + start, n &- start)
    }
    var exponent = 0
    if i < n && (base[i] == 0x65 || base[i] == 0x45) {  // e E
        i &+= 1
        var expNeg = false
        if i < n && (base[i] == 0x2D || base[i] == 0x2B) { expNeg = base[i] == 0x2D; i &+= 1 }
        var e = 0
        var expDigits = 0
        while i < n {
            let d = base[i] &- 0x30
            if d > 9 { break }
            if e < 100_000 { e = e &* 10 &+ Int(d) }
            expDigits &+= 1
            i &+= 1
        }
        if expDigits == 0 { return .invalid }
        exponent = expNeg ? -e : e
    }
    if i != n { return .invalid }
    if mantissa == 0 { return .number(negative ? -0.0 : 0.0) }
    let scale = exponent &- fracDigits
    if digits <= 19 && mantissa <= (1 << 53) && scale >= -22 && scale <= 22 {
        var v = Double(mantissa)
        if scale < 0 { v /= exactPowersOfTen[-scale] } else { v *= exactPowersOfTen[scale] }
        return .number(negative ? -v : v)
    }
    return slowParse(base, count, decimalComma: decimalComma)
}

@usableFromInline
func wordValue(_ p: UnsafePointer<UInt8>, _ n: Int) -> FieldValue {
    // case-insensitive match of null / nan
    func eq(_ word: StaticString) -> Bool {
        guard word.utf8CodeUnitCount == n else { return false }
        let w = word.utf8Start
        for k in 0..<n where (p[k] | 0x20) != w[k] { return false }
        return true
    }
    if eq("null") || eq("nan") || eq("none") || eq("-") { return .missing }
    return .invalid
}

@usableFromInline
func slowParse(_ base: UnsafePointer<UInt8>, _ count: Int, decimalComma: Bool = false) -> FieldValue {
    if count > 95 { return .invalid }
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 96) { buf in
        for k in 0..<count { buf[k] = CChar(bitPattern: decimalComma && base[k] == 0x2C ? 0x2E : base[k]) }
        buf[count] = 0
        var end: UnsafeMutablePointer<CChar>? = nil
        let v = strtod(buf.baseAddress!, &end)
        guard let e = end else { return .invalid }
        var rest = e
        while rest.pointee == 0x20 || rest.pointee == 0x0D || rest.pointee == 0x09 { rest += 1 }
        if rest.pointee != 0 || e == buf.baseAddress! { return .invalid }
        if v.isNaN { return .missing }
        if !v.isFinite { return .invalid }  // overflow such as 1e400
        return .number(v)
    }
}
