#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small scanner for flat JSON objects on one line: `{"key":"value","n":1.5,...}`. It hands
/// out byte ranges, never strings; nested objects and arrays are skipped.
enum JSONScan {
    /// Calls `body(key, keyLength, value, valueLength, valueIsString)` for each member of the
    /// object at `p` (which starts at `{`); `body` returns false to stop. Returns false when
    /// the text is not a well-formed object.
    static func members(
        _ p: UnsafePointer<UInt8>, _ n: Int,
        _ body: (UnsafePointer<UInt8>, Int, UnsafePointer<UInt8>, Int, Bool) -> Bool
    ) -> Bool {
        var i = 0
        @inline(__always) func skipSpace() {
            while i < n && (p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0D || p[i] == 0x0A) { i &+= 1 }
        }
        /// From an opening quote to just past the closing one; the content range.
        func string() -> (Int, Int)? {
            guard i < n && p[i] == 0x22 else { return nil }
            i &+= 1
            let start = i
            while i < n && p[i] != 0x22 { if p[i] == 0x5C { i &+= 1 }; i &+= 1 }
            guard i < n else { return nil }
            let end = i
            i &+= 1
            return (start, end)
        }
        skipSpace()
        guard i < n && p[i] == 0x7B else { return false }
        i &+= 1
        skipSpace()
        if i < n && p[i] == 0x7D { return true }
        while true {
            skipSpace()
            guard let (ks, ke) = string() else { return false }
            skipSpace()
            guard i < n && p[i] == 0x3A else { return false }
            i &+= 1
            skipSpace()
            guard i < n else { return false }
            var vs = i, ve = i, isString = false
            let c = p[i]
            if c == 0x22 {
                guard let (s, e) = string() else { return false }
                vs = s; ve = e; isString = true
            } else if c == 0x7B || c == 0x5B {
                // nested: skip to the matching bracket, minding strings
                var depth = 0
                while i < n {
                    let b = p[i]
                    if b == 0x22 { guard string() != nil else { return false }; continue }
                    if b == 0x7B || b == 0x5B { depth &+= 1 } else if b == 0x7D || b == 0x5D { depth &-= 1 }
                    i &+= 1
                    if depth == 0 { break }
                }
                if depth != 0 { return false }
                vs = i; ve = i
            } else {
                while i < n && p[i] != 0x2C && p[i] != 0x7D && p[i] != 0x20 && p[i] != 0x09 { i &+= 1 }
                ve = i
            }
            if !body(p + ks, ke &- ks, p + vs, ve &- vs, isString) { return true }
            skipSpace()
            guard i < n else { return false }
            if p[i] == 0x2C { i &+= 1; continue }
            if p[i] == 0x7D { return true }
            return false
        }
    }
}

/// SensorLog's JSON keys (the CSV names without units) that feed a frame.
enum SensorLogJSONKeys {
    struct Key: Sendable {
        let bytes: [UInt8]
        let role: ColumnRole?  // nil: loggingTime
    }

    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for i in 0..<n { h = (h ^ UInt64(p[i])) &* 0x0000_0100_0000_01B3 }
        return h
    }

    static let table: [UInt64: Key] = {
        var t: [UInt64: Key] = [:]
        for name in SensorLogColumns.motionColumnNames + ["loggingTime"] {
            let bytes = Array(name.utf8)
            let h = bytes.withUnsafeBufferPointer { hash($0.baseAddress!, $0.count) }
            precondition(t[h] == nil, "hash collision in SensorLog JSON keys")
            t[h] = Key(bytes: bytes, role: name == "loggingTime" ? nil : SensorLogColumns.role(of: Substring(name)))
        }
        return t
    }()

    /// The key's entry, or nil for keys a motion bridge ignores. No allocation.
    static func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> Key? {
        guard n > 0, let k = table[hash(p, n)], k.bytes.count == n else { return nil }
        let same = k.bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, p, n) == 0 }
        return same ? k : nil
    }
}

extension SensorParser {
    /// One SensorLog JSON object (`{"loggingTime":"...","motionUserAccelerationX":"0.01",...}`):
    /// keys are the CSV names without units; values are strings or numbers. Timing uses the
    /// `*_sinceReboot` keys; an object stream without any uses `loggingTime` for every group
    /// (the choice is made on the first object and kept, so the two clocks never mix).
    mutating func parseJSONLine(_ p: UnsafePointer<UInt8>, _ n: Int, into frame: inout SensorFrame) -> LineResult {
        var ts: InlineArray<3, Double> = .init(repeating: .nan)
        var rate: InlineArray<3, Double> = .init(repeating: .nan)
        var lineTime = Double.nan
        var invalidGroups: UInt8 = 0
        var valueGroups: UInt8 = 0
        var sawKey = false, sawRawGyro = false, sawRate = false
        for q in 0..<Quantity.count { frame.values[q] = .nan }
        let ok = JSONScan.members(p, n) { k, kn, v, vn, _ in
            guard let key = SensorLogJSONKeys.lookup(k, kn) else { return true }
            sawKey = true
            guard let role = key.role else {
                if let t = TimeText.iso8601(v, vn) { lineTime = t }
                return true
            }
            var value = Double.nan
            var bad = false
            switch parseField(v, vn) {
            case .number(let x): value = x
            case .missing: break
            case .invalid: bad = true
            }
            switch role {
            case .value(let q):
                let g = q.group.bit
                if q.group == .gyro { sawRawGyro = true }
                if bad {
                    invalidGroups |= g
                } else if !value.isNaN {
                    frame.values[q.rawValue] = value; valueGroups |= g
                }
            case .timestamp(let g):
                if bad { invalidGroups |= g.bit } else { ts[g.rawValue] = value }
            case .motionRate(let axis):
                if bad {
                    invalidGroups |= 4
                } else if !value.isNaN {
                    rate[axis] = value; frame.values[Quantity.rateX.rawValue &+ axis] = value
                    valueGroups |= 4; sawRate = true
                }
            }
            return true
        }
        if !ok { return .skipped(Self.hasControlBytes(p, n) ? .binary : .malformed) }
        if !sawKey {
            if refusal == nil {
                let h = HeaderFields(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
                refusal = Self.refusalMessage(
                    h, reason: "This JSON object has no SensorLog key.", forced: options.format)
            }
            return .skipped(.noLayout)
        }
        if sawRate && !sawRawGyro {
            for a in 0..<3 { frame.values[Quantity.gyroX.rawValue &+ a] = rate[a] }
            valueGroups |= 2
            ts[1] = ts[2]
        }
        if invalidGroups != 0 && invalidGroups & valueGroups == valueGroups { return .skipped(.malformed) }
        var usable = valueGroups & ~invalidGroups
        if jsonClock == 0 {
            var any = false
            for g in 0..<3 where !ts[g].isNaN { any = true }
            jsonClock = any ? 1 : (lineTime.isNaN ? 0 : 2)
        }
        if jsonClock == 2 {
            if lineTime.isNaN { return .skipped(.noTimestamp) }
            ts = .init(repeating: lineTime)
        } else if jsonClock == 0 {
            return .skipped(.noTimestamp)
        }
        for g in 0..<3 where ts[g].isNaN { usable &= ~(1 << UInt8(g)) }
        if usable == 0 { return .skipped(valueGroups == 0 ? .malformed : .noTimestamp) }
        if format == .auto { format = .sensorlog }
        timeline.unitScale = 1
        if !timeline.started {
            var first = Double.infinity
            for g in 0..<3 where usable & (1 << UInt8(g)) != 0 { first = min(first, ts[g]) }
            timeline.start(at: first)
        }
        return admit(usable, ts, into: &frame) ?? .frame
    }
}
