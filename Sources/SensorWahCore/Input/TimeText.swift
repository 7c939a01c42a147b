/// Time columns written as text, read without allocating.
enum TimeText {
    /// Reads `n` decimal digits at `p[i...]`; nil if any is not a digit.
    @inline(__always)
    static func digits(_ p: UnsafePointer<UInt8>, _ i: Int, _ count: Int, _ n: Int) -> Int? {
        guard i &+ count <= n else { return nil }
        var v = 0
        for k in 0..<count {
            let d = p[i &+ k] &- 0x30
            if d > 9 { return nil }
            v = v &* 10 &+ Int(d)
        }
        return v
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days-from-civil).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// ISO-8601 date and time as seconds since the Unix epoch:
    /// `2024-04-09T12:44:46.093+02:00`, also with a space for `T`, `Z`, `+0200`, `+02`, any
    /// number of fraction digits, or no offset (then read as UTC: consistent within one file,
    /// which is all the timing needs). Surrounding spaces and quotes are ignored.
    static func iso8601(_ base: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var s = 0, n = count
        while s < n && (base[s] == 0x20 || base[s] == 0x22 || base[s] == 0x09) { s &+= 1 }
        while n > s && (base[n &- 1] == 0x20 || base[n &- 1] == 0x22 || base[n &- 1] == 0x0D || base[n &- 1] == 0x09) {
            n &-= 1
        }
        let p = base + s
        n &-= s
        guard n >= 19,
            let year = digits(p, 0, 4, n), p[4] == 0x2D,
            let month = digits(p, 5, 2, n), p[7] == 0x2D,
            let day = digits(p, 8, 2, n), p[10] == 0x54 || p[10] == 0x20 || p[10] == 0x74,
            let hour = digits(p, 11, 2, n), p[13] == 0x3A,
            let minute = digits(p, 14, 2, n), p[16] == 0x3A,
            let second = digits(p, 17, 2, n),
            (1...12).contains(month), (1...31).contains(day), hour <= 24, minute <= 59, second <= 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < n && (p[i] == 0x2E || p[i] == 0x2C) {
            i &+= 1
            var scale = 0.1
            let start = i
            while i < n, p[i] &- 0x30 <= 9 {
                fraction += Double(p[i] &- 0x30) * scale
                scale *= 0.1
                i &+= 1
            }
            if i == start { return nil }
        }
        var offset = 0
        if i < n {
            let c = p[i]
            if c == 0x5A || c == 0x7A {  // Z
                i &+= 1
            } else if c == 0x2B || c == 0x2D {
                let sign = c == 0x2D ? -1 : 1
                i &+= 1
                guard let oh = digits(p, i, 2, n) else { return nil }
                i &+= 2
                var om = 0
                if i < n && p[i] == 0x3A { i &+= 1 }
                if i < n {
                    guard let m = digits(p, i, 2, n) else { return nil }
                    om = m
                    i &+= 2
                }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        if i != n { return nil }
        let days = daysFromCivil(year, month, day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Double(whole) + fraction
    }

    /// A clock time of day as seconds since midnight: `10:21:17:455` (Physics Toolbox: the
    /// last part is milliseconds), `10:21:17.455`, `10:21:17`, or `21:17.455` (minutes and
    /// seconds). Hours may have one or two digits.
    static func clock(_ base: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var s = 0, n = count
        while s < n && (base[s] == 0x20 || base[s] == 0x22 || base[s] == 0x09) { s &+= 1 }
        while n > s && (base[n &- 1] == 0x20 || base[n &- 1] == 0x22 || base[n &- 1] == 0x0D || base[n &- 1] == 0x09) {
            n &-= 1
        }
        // up to four integer parts separated by ':' and an optional '.' fraction on the seconds
        var parts: InlineArray<4, Int> = .init(repeating: 0)
        var partDigits: InlineArray<4, Int> = .init(repeating: 0)
        var count = 0
        var fraction = 0.0
        var i = s
        while true {
            guard count < 4 else { return nil }
            var v = 0, d = 0
            while i < n, base[i] &- 0x30 <= 9 {
                v = v &* 10 &+ Int(base[i] &- 0x30); d &+= 1; i &+= 1; if d > 9 { return nil }
            }
            if d == 0 { return nil }
            parts[count] = v; partDigits[count] = d
            count &+= 1
            if i == n { break }
            if base[i] == 0x3A { i &+= 1; continue }
            if base[i] == 0x2E || base[i] == 0x2C {
                i &+= 1
                var scale = 0.1
                let start = i
                while i < n, base[i] &- 0x30 <= 9 { fraction += Double(base[i] &- 0x30) * scale; scale *= 0.1; i &+= 1 }
                if i == start || i != n { return nil }
                break
            }
            return nil
        }
        switch count {
        case 2:  // MM:SS(.fff)
            guard parts[1] < 60 else { return nil }
            return Double(parts[0] * 60 + parts[1]) + fraction
        case 3:  // HH:MM:SS(.fff)
            guard parts[1] < 60, parts[2] <= 60 else { return nil }
            return Double(parts[0] * 3600 + parts[1] * 60 + parts[2]) + fraction
        case 4:  // HH:MM:SS:mmm
            guard fraction == 0, parts[1] < 60, parts[2] <= 60, partDigits[3] <= 3 else { return nil }
            return Double(parts[0] * 3600 + parts[1] * 60 + parts[2]) + Double(parts[3]) / 1000
        default:
            return nil
        }
    }
}
