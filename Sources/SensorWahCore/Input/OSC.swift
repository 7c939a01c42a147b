/// Open Sound Control 1.0: a decoder for packets (messages and nested bundles) and a SLIP
/// decoder for OSC over TCP. Pure and allocation-free: the decoder walks the packet in place
/// and hands each message to a closure as a view into the packet's bytes.
///
/// Strict about structure, lenient about content: a packet that is not a multiple of 4 bytes,
/// a string without its terminator, a count that runs past the end, a type tag whose size is
/// unknown, or bundles nested deeper than `OSC.maxDepth` make the whole packet refused (no
/// message of it is delivered). Messages without a type tag string (pre-1.0 senders) are read
/// as having no arguments. Every 1.0 type tag and the common extensions are read:
/// `i f s b` and `h d t T F N I S c r m [ ]`.

/// Why a packet was refused.
public enum OSCError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case misaligned  // size not a multiple of 4
    case truncated  // a string, blob, number or bundle element runs past the end
    case badAddress  // a message address not starting with '/'
    case badTypeTags  // the type tag string does not start with ','
    case unknownType(UInt8)  // a type tag whose size is unknown: the rest cannot be read
    case badBundle  // a bundle element that is neither a message nor a bundle, or of size 0
    case tooDeep  // bundles nested deeper than `OSC.maxDepth`
    case trailingBytes  // bytes left after a message's last argument
    case badJSON  // a ZIG SIM JSON datagram that is not one

    public var description: String {
        switch self {
        case .empty: return "empty packet"
        case .misaligned: return "size not a multiple of 4 bytes"
        case .truncated: return "truncated (a field runs past the end)"
        case .badAddress: return "address does not start with '/'"
        case .badTypeTags: return "type tags do not start with ','"
        case .unknownType(let t):
            let printable = t >= 0x21 && t < 0x7F
            return "unknown type tag \(printable ? "'\(Character(Unicode.Scalar(t)))'" : "0x\(String(t, radix: 16))")"
        case .badBundle: return "bad bundle element"
        case .tooDeep: return "bundles nested too deep"
        case .trailingBytes: return "bytes after the last argument"
        case .badJSON: return "JSON that is not a ZIG SIM message ({\"device\":{\"uuid\":...},\"sensordata\":{...}})"
        }
    }
}

/// One decoded message: views into the packet (valid only inside the decoder's closure) and
/// the numeric reading of its first `OSCMessage.storedArguments` arguments.
public struct OSCMessage {
    public static let storedArguments = 16
    /// The address, without its NUL padding.
    public var address: UnsafeRawBufferPointer
    /// The type tags after the ',' (empty for a message without a type tag string).
    public var typeTags: UnsafeRawBufferPointer
    /// The enclosing bundle's timetag (NTP format), or 1 ("immediately") for a bare message.
    public var timetag: UInt64
    /// Arguments (array markers `[` `]` do not count).
    public var argumentCount: Int
    /// Numbers as Double: `i h f d` as they are, `T` 1, `F` 0; strings, blobs, `N`, `I`, `t`,
    /// `c`, `r`, `m` are NaN (no number).
    public var values: InlineArray<16, Double>

    init(address: UnsafeRawBufferPointer, typeTags: UnsafeRawBufferPointer, timetag: UInt64) {
        self.address = address
        self.typeTags = typeTags
        self.timetag = timetag
        self.argumentCount = 0
        self.values = .init(repeating: .nan)
    }

    /// Argument `i` as a number (NaN when absent or not a number).
    @inlinable public func value(_ i: Int) -> Double {
        i >= 0 && i < Self.storedArguments && i < argumentCount ? values[i] : .nan
    }

    /// The address as text (allocates: for logs and `--detect`, not for the data path).
    public var addressString: String { String(decoding: address, as: UTF8.self) }
    /// The type tags as text, e.g. "fff".
    public var typeTagString: String { String(decoding: typeTags, as: UTF8.self) }
}

public enum OSC {
    /// Deepest nesting of bundles accepted.
    public static let maxDepth = 8
    /// The timetag meaning "immediately".
    public static let immediately: UInt64 = 1

    /// Validates the whole packet, then calls `visit` for each message in order. Returns the
    /// number of messages, or why the packet was refused (then `visit` was never called).
    @discardableResult
    public static func decode(_ packet: UnsafeRawBufferPointer, _ visit: (OSCMessage) -> Void) -> Result<Int, OSCError>
    {
        var count = 0
        if let e = walk(packet, depth: 0, timetag: immediately, emit: false, visit, count: &count) {
            return .failure(e)
        }
        count = 0
        _ = walk(packet, depth: 0, timetag: immediately, emit: true, visit, count: &count)
        return .success(count)
    }

    /// True when the packet starts like a bundle.
    @inlinable public static func isBundle(_ p: UnsafeRawBufferPointer) -> Bool {
        p.count >= 8 && p[0] == 0x23 && p[1] == 0x62 && p[2] == 0x75 && p[3] == 0x6E
            && p[4] == 0x64 && p[5] == 0x6C && p[6] == 0x65 && p[7] == 0
    }

    /// The NTP timetag as seconds (since 1900; only differences matter here).
    @inlinable public static func seconds(_ timetag: UInt64) -> Double {
        Double(timetag >> 32) + Double(timetag & 0xFFFF_FFFF) / 4_294_967_296.0
    }

    static func walk(
        _ p: UnsafeRawBufferPointer, depth: Int, timetag: UInt64,
        emit: Bool, _ visit: (OSCMessage) -> Void, count: inout Int
    ) -> OSCError? {
        if p.isEmpty { return .empty }
        if p.count & 3 != 0 { return .misaligned }
        if p[0] == 0x23 {  // '#'
            guard isBundle(p) else { return .badBundle }
            guard depth < maxDepth else { return .tooDeep }
            guard p.count >= 16 else { return .truncated }
            let tt = readU64(p, 8)
            var off = 16
            while off < p.count {
                guard off + 4 <= p.count else { return .truncated }
                let size = Int(Int32(bitPattern: readU32(p, off)))
                off += 4
                guard size > 0 else { return size == 0 ? .badBundle : .truncated }
                guard size <= p.count - off else { return .truncated }
                let element = UnsafeRawBufferPointer(rebasing: p[off..<(off + size)])
                if element[0] != 0x23 && element[0] != 0x2F { return .badBundle }
                if let e = walk(element, depth: depth + 1, timetag: tt, emit: emit, visit, count: &count) { return e }
                off += size
            }
            return nil
        }
        return message(p, timetag: timetag, emit: emit, visit, count: &count)
    }

    static func message(
        _ p: UnsafeRawBufferPointer, timetag: UInt64,
        emit: Bool, _ visit: (OSCMessage) -> Void, count: inout Int
    ) -> OSCError? {
        guard p[0] == 0x2F else { return .badAddress }
        guard let addrLen = stringLength(p, 0) else { return .truncated }
        var off = padded(addrLen + 1)
        let address = UnsafeRawBufferPointer(rebasing: p[0..<addrLen])
        var tags = UnsafeRawBufferPointer(rebasing: p[0..<0])
        if off < p.count {
            guard p[off] == 0x2C else { return .badTypeTags }
            guard let tagLen = stringLength(p, off) else { return .truncated }
            tags = UnsafeRawBufferPointer(rebasing: p[(off + 1)..<(off + tagLen)])
            off += padded(tagLen + 1)
        }
        var m = OSCMessage(address: address, typeTags: tags, timetag: timetag)
        var n = 0
        for t in tags {
            var v = Double.nan
            var size = 0
            switch t {
            case 0x69: size = 4; if off + 4 <= p.count { v = Double(Int32(bitPattern: readU32(p, off))) }  // i
            case 0x66: size = 4; if off + 4 <= p.count { v = Double(Float(bitPattern: readU32(p, off))) }  // f
            case 0x68: size = 8; if off + 8 <= p.count { v = Double(Int64(bitPattern: readU64(p, off))) }  // h
            case 0x64: size = 8; if off + 8 <= p.count { v = Double(bitPattern: readU64(p, off)) }  // d
            case 0x74: size = 8  // t
            case 0x63, 0x72, 0x6D: size = 4  // c r m
            case 0x54: v = 1  // T
            case 0x46: v = 0  // F
            case 0x4E, 0x49: break  // N I
            case 0x5B, 0x5D: continue  // [ ]
            case 0x73, 0x53:  // s S
                guard off < p.count, let len = stringLength(p, off) else { return .truncated }
                size = padded(len + 1)
            case 0x62:  // b
                guard off + 4 <= p.count else { return .truncated }
                let len = Int(Int32(bitPattern: readU32(p, off)))
                guard len >= 0, len <= p.count - off - 4 else { return .truncated }
                size = 4 + padded(len)
            default:
                return .unknownType(t)
            }
            guard size <= p.count - off else { return .truncated }
            off += size
            if n < OSCMessage.storedArguments { m.values[n] = v }
            n += 1
        }
        guard off == p.count else { return .trailingBytes }
        m.argumentCount = n
        count += 1
        if emit { visit(m) }
        return nil
    }

    /// Length of the NUL-terminated string at `start` (without the NUL), when the NUL and its
    /// padding lie inside the packet.
    @inline(__always)
    static func stringLength(_ p: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        var i = start
        while i < p.count && p[i] != 0 { i += 1 }
        guard i < p.count else { return nil }
        let len = i - start
        guard start + padded(len + 1) <= p.count else { return nil }
        return len
    }

    @inline(__always) static func padded(_ n: Int) -> Int { (n + 3) & ~3 }

    @inline(__always) static func readU32(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(p[o]) << 24 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 8 | UInt32(p[o + 3])
    }

    @inline(__always) static func readU64(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt64 {
        UInt64(readU32(p, o)) << 32 | UInt64(readU32(p, o + 4))
    }
}

/// SLIP (RFC 1055) framing, as OSC 1.1 uses over TCP: packets end with END (0xC0); END and
/// ESC inside a packet are escaped. Empty packets (a leading END) are ignored. A packet longer
/// than `maxPacket` is dropped and counted; so is one with an invalid escape.
public struct SLIPDecoder: Sendable {
    public static let end: UInt8 = 0xC0, esc: UInt8 = 0xDB, escEnd: UInt8 = 0xDC, escEsc: UInt8 = 0xDD
    public let maxPacket: Int
    var buffer: [UInt8] = []
    var escaping = false
    var discarding = false
    var badEscape = false
    public private(set) var tooLong = 0
    public private(set) var malformed = 0

    public init(maxPacket: Int = 65_536) {
        self.maxPacket = maxPacket
        buffer.reserveCapacity(min(maxPacket, 65_536))
    }

    /// Bytes buffered of a packet not yet ended.
    public var pending: Int { buffer.count }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ packet: (UnsafeRawBufferPointer) -> Void) {
        for b in bytes {
            if b == Self.end {
                if discarding || badEscape || escaping {
                    if badEscape || escaping { malformed += 1 }
                } else if !buffer.isEmpty {
                    buffer.withUnsafeBytes { packet($0) }
                }
                buffer.removeAll(keepingCapacity: true)
                escaping = false; discarding = false; badEscape = false
                continue
            }
            if discarding || badEscape { continue }
            var c = b
            if escaping {
                escaping = false
                if b == Self.escEnd {
                    c = Self.end
                } else if b == Self.escEsc {
                    c = Self.esc
                } else {
                    badEscape = true; continue
                }
            } else if b == Self.esc {
                escaping = true
                continue
            }
            if buffer.count >= maxPacket {
                tooLong += 1
                discarding = true
                buffer.removeAll(keepingCapacity: true)
                continue
            }
            buffer.append(c)
        }
    }

    /// Drops a packet left unfinished (the connection closed); returns its size so far.
    public mutating func discardPartial() -> Int {
        let n = buffer.count
        buffer.removeAll(keepingCapacity: true)
        escaping = false; discarding = false; badEscape = false
        return n
    }
}
