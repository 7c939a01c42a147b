/// One MIDI message produced by the mapper, stamped with its sensor time.
public struct MIDIEvent: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case controlChange = 0, controlChange14 = 1, pitchBend = 2
        /// `controller` is the note number, `value` the velocity (1-127).
        case noteOn = 3, noteOff = 4
        /// Not MIDI: the wah's engage switch (`value` 1 engaged, 0 bypassed), for `--wah-switch`.
        case wahSwitch = 5
        /// Not MIDI: a parameter of the effect chain (`fx=`): `controller` is the parameter's
        /// slot in the chain, `value` its position 0...65535 in the parameter's whole range.
        case effect = 6
        /// Not MIDI: a scene switched the effect chain; `value` is the scene's index.
        case effectChain = 7
    }
    /// Seconds of sensor time since the first sample.
    public var time: Double
    public var kind: Kind
    /// 0-15 (shown to people as 1-16).
    public var channel: UInt8
    /// Controller number (MSB controller for 14-bit; the LSB controller is this + 32); the note for notes.
    public var controller: UInt8
    /// 0-127, or 0-16383 for 14-bit CC and pitch bend.
    public var value: UInt16

    public init(time: Double, kind: Kind, channel: UInt8, controller: UInt8 = 0, value: UInt16) {
        self.time = time; self.kind = kind; self.channel = channel; self.controller = controller; self.value = value
    }

    public static func cc(_ controller: UInt8, _ value: UInt16, channel: UInt8 = 0, at time: Double = 0) -> MIDIEvent {
        MIDIEvent(time: time, kind: .controlChange, channel: channel, controller: controller, value: value)
    }

    /// Wire bytes: 3 for CC and pitch bend, 6 for a 14-bit CC (MSB then LSB, as MIDI 1.0 orders them).
    /// Returns the number of bytes written into `out` (capacity 6 or more).
    @inlinable
    public func encode(into out: UnsafeMutablePointer<UInt8>) -> Int {
        let status = channel & 0x0F
        switch kind {
        case .controlChange:
            out[0] = 0xB0 | status; out[1] = controller & 0x7F; out[2] = UInt8(truncatingIfNeeded: value) & 0x7F
            return 3
        case .controlChange14:
            let v = value & 0x3FFF
            out[0] = 0xB0 | status; out[1] = controller & 0x1F; out[2] = UInt8(truncatingIfNeeded: v >> 7)
            out[3] = 0xB0 | status; out[4] = (controller & 0x1F) &+ 32; out[5] = UInt8(truncatingIfNeeded: v & 0x7F)
            return 6
        case .pitchBend:
            let v = value & 0x3FFF
            out[0] = 0xE0 | status; out[1] = UInt8(truncatingIfNeeded: v & 0x7F);
            out[2] = UInt8(truncatingIfNeeded: v >> 7)
            return 3
        case .noteOn:
            out[0] = 0x90 | status; out[1] = controller & 0x7F; out[2] = UInt8(truncatingIfNeeded: value) & 0x7F
            return 3
        case .noteOff:
            out[0] = 0x80 | status; out[1] = controller & 0x7F; out[2] = 0
            return 3
        case .wahSwitch, .effect, .effectChain:
            return 0
        }
    }
}

/// Writes events as JSON lines: `{"t":1.234,"type":"cc","ch":1,"cc":11,"value":64}`.
/// `t` has millisecond resolution. Builds the text byte by byte into a caller buffer.
public enum JSONLine {
    /// Longest line this writer can produce, newline included.
    public static let maxLength = 96

    @inlinable
    public static func write(_ e: MIDIEvent, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        @inline(__always) func put(_ s: StaticString) {
            let p = s.utf8Start
            for k in 0..<s.utf8CodeUnitCount { out[n &+ k] = p[k] }
            n &+= s.utf8CodeUnitCount
        }
        @inline(__always) func putInt(_ v: Int) {
            var x = v
            if x < 0 { out[n] = 0x2D; n &+= 1; x = -x }
            var tmp:
                (
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
                ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var len = 0
            withUnsafeMutableBytes(of: &tmp) { b in
                repeat { b[len] = UInt8(truncatingIfNeeded: 0x30 &+ x % 10); x /= 10; len &+= 1 } while x > 0
                for k in 0..<len { out[n &+ k] = b[len &- 1 &- k] }
            }
            n &+= len
        }
        put("{\"t\":")
        var ms = (e.time * 1000).rounded()
        if !ms.isFinite || abs(ms) > 9e15 { ms = 0 }
        let msi = Int(ms)
        if msi < 0 { out[n] = 0x2D; n &+= 1 }
        let a = abs(msi)
        putInt(a / 1000)
        out[n] = 0x2E; n &+= 1
        let frac = a % 1000
        out[n] = UInt8(0x30 &+ frac / 100); out[n &+ 1] = UInt8(0x30 &+ (frac / 10) % 10);
        out[n &+ 2] = UInt8(0x30 &+ frac % 10)
        n &+= 3
        switch e.kind {
        case .controlChange: put(",\"type\":\"cc\",\"ch\":")
        case .controlChange14: put(",\"type\":\"cc14\",\"ch\":")
        case .pitchBend: put(",\"type\":\"pitchbend\",\"ch\":")
        case .noteOn: put(",\"type\":\"note_on\",\"ch\":")
        case .noteOff: put(",\"type\":\"note_off\",\"ch\":")
        case .wahSwitch: put(",\"type\":\"wah_switch\",\"engaged\":")
        case .effect: put(",\"type\":\"fx\",\"slot\":")
        case .effectChain: put(",\"type\":\"fx_chain\",\"scene\":")
        }
        switch e.kind {
        case .wahSwitch:
            put(e.value != 0 ? "true" : "false")
        case .effect:
            putInt(Int(e.controller))
            put(",\"position\":")
            putInt(Int(e.value))
        case .effectChain:
            putInt(Int(e.value))
        case .noteOn, .noteOff:
            putInt(Int(e.channel) &+ 1)
            put(",\"note\":")
            putInt(Int(e.controller))
            put(",\"velocity\":")
            putInt(e.kind == .noteOn ? Int(e.value) : 0)
        default:
            putInt(Int(e.channel) &+ 1)
            if e.kind != .pitchBend {
                put(",\"cc\":")
                putInt(Int(e.controller))
            }
            put(",\"value\":")
            putInt(Int(e.value))
        }
        put("}\n")
        return n
    }

    public static func string(_ e: MIDIEvent) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { buf in
            let n = write(e, into: buf.baseAddress!)
            return String(decoding: UnsafeBufferPointer(start: buf.baseAddress!, count: n - 1), as: UTF8.self)
        }
    }
}
