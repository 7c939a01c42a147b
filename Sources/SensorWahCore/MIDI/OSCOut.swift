/// OSC 1.0 packets for OSC out: each mapped event as a message under `/sensorwah/`, several
/// events due together as one bundle with a time tag, and SLIP framing for OSC over TCP.
public enum OSCOut {
    /// What a MIDI message becomes, appended to `out`.
    /// Controllers: `/sensorwah/cc/CH/N` (`cc14` for 14-bit), pitch bend: `/sensorwah/bend/CH`,
    /// notes: `/sensorwah/note/CH/N` with the velocity (0 for note off). CH is 1-16. Values are
    /// floats 0-1 (bend -1...1, centre 0), or with `raw` the MIDI integers.
    public static func message(for e: MIDIEvent, raw: Bool, into out: inout [UInt8]) {
        let ch = Int(e.channel) + 1
        let address: String
        let value: Float
        switch e.kind {
        case .controlChange:
            address = "/sensorwah/cc/\(ch)/\(e.controller)"
            value = Float(min(e.value, 127)) / 127
        case .controlChange14:
            address = "/sensorwah/cc14/\(ch)/\(e.controller)"
            value = Float(min(e.value, 16383)) / 16383
        case .pitchBend:
            address = "/sensorwah/bend/\(ch)"
            value = max(-1, (Float(min(e.value, 16383)) - 8192) / 8191)
        case .noteOn:
            address = "/sensorwah/note/\(ch)/\(e.controller)"
            value = Float(min(e.value, 127)) / 127
        case .noteOff:
            address = "/sensorwah/note/\(ch)/\(e.controller)"
            value = 0
        }
        if raw {
            let v: Int32 = e.kind == .noteOff ? 0 : Int32(e.value)
            appendMessage(address, int: v, into: &out)
        } else {
            appendMessage(address, float: value, into: &out)
        }
    }

    public static func appendString(_ s: String, into out: inout [UInt8]) {
        out += s.utf8
        out.append(0)
        while out.count % 4 != 0 { out.append(0) }
    }

    static func appendBE(_ v: UInt32, into out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v >> 24)); out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 8)); out.append(UInt8(truncatingIfNeeded: v))
    }

    public static func appendMessage(_ address: String, float: Float, into out: inout [UInt8]) {
        appendString(address, into: &out)
        appendString(",f", into: &out)
        appendBE(float.bitPattern, into: &out)
    }

    public static func appendMessage(_ address: String, int: Int32, into out: inout [UInt8]) {
        appendString(address, into: &out)
        appendString(",i", into: &out)
        appendBE(UInt32(bitPattern: int), into: &out)
    }

    /// A bundle of the given messages (each already a complete OSC message) at `timetag`
    /// (NTP format: seconds since 1900 in the high 32 bits, the fraction in the low 32).
    public static func bundle(_ messages: [[UInt8]], timetag: UInt64, into out: inout [UInt8]) {
        appendString("#bundle", into: &out)
        appendBE(UInt32(truncatingIfNeeded: timetag >> 32), into: &out)
        appendBE(UInt32(truncatingIfNeeded: timetag), into: &out)
        for m in messages {
            appendBE(UInt32(m.count), into: &out)
            out += m
        }
    }

    /// NTP time tag for a wall-clock time in seconds since 1970.
    public static func timetag(unixSeconds: Double) -> UInt64 {
        let s = unixSeconds + 2_208_988_800
        let whole = s.rounded(.down)
        return UInt64(whole) << 32 | UInt64(((s - whole) * 4_294_967_296).rounded(.down))
    }

    /// SLIP framing (RFC 1055, double-END as OSC 1.1 sends it): END, the escaped packet, END.
    public static func slip(_ packet: [UInt8], into out: inout [UInt8]) {
        out.append(SLIPDecoder.end)
        for b in packet {
            switch b {
            case SLIPDecoder.end: out.append(SLIPDecoder.esc); out.append(SLIPDecoder.escEnd)
            case SLIPDecoder.esc: out.append(SLIPDecoder.esc); out.append(SLIPDecoder.escEsc)
            default: out.append(b)
            }
        }
        out.append(SLIPDecoder.end)
    }
}
