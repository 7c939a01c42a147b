/// Separator scanning eight bytes at a time (SWAR: a 64-bit word as eight byte lanes), for the
/// columnar parser: a SensorLog row is about 1,200 bytes of which only the first few hundred
/// hold motion columns, and the rest is only scanned for its separators (the field count).
/// Reads never go past `end`; the last few bytes are looked at one by one.
@usableFromInline let laneOnes: UInt64 = 0x0101_0101_0101_0101
@usableFromInline let laneLow7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

/// The high bit of every byte lane of `word` that equals the byte `pattern` repeats; exact
/// (no carry crosses a lane).
@inlinable @inline(__always)
func matchingLanes(_ word: UInt64, _ pattern: UInt64) -> UInt64 {
    let x = word ^ pattern
    return ~(((x & laneLow7) &+ laneLow7) | x | laneLow7)
}

/// The index of the first `byte` in `p[from..<end]`, or `end`.
@inlinable @inline(__always)
func nextByte(_ byte: UInt8, _ p: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
    var j = from
    let pattern = UInt64(byte) &* laneOnes
    while j &+ 8 <= end {
        let w = UInt64(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
        let m = matchingLanes(w, pattern)
        if m != 0 { return j &+ (m.trailingZeroBitCount &>> 3) }
        j &+= 8
    }
    while j < end && p[j] != byte { j &+= 1 }
    return j
}

/// How many times `byte` occurs in `p[from..<end]`.
@inlinable @inline(__always)
func countByte(_ byte: UInt8, _ p: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
    var j = from
    var count = 0
    let pattern = UInt64(byte) &* laneOnes
    while j &+ 8 <= end {
        let w = UInt64(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
        count &+= matchingLanes(w, pattern).nonzeroBitCount
        j &+= 8
    }
    while j < end { if p[j] == byte { count &+= 1 }; j &+= 1 }
    return count
}
