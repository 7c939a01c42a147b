/// What the mapper emits, in the order it emits it: a MIDI message for the MIDI outputs, or
/// effect control for the built-in effect chain. An output takes each kind through its own
/// `send` (`EventOutput`), so a MIDI output never sees effect control.
public enum MappedEvent: Sendable, Equatable {
    case midi(MIDIEvent)
    case effect(EffectControl)

    /// Seconds of sensor time since the first sample.
    @inlinable public var time: Double {
        switch self {
        case .midi(let e): return e.time
        case .effect(let c): return c.time
        }
    }
    @inlinable public var midi: MIDIEvent? { if case .midi(let e) = self { return e } else { return nil } }
    @inlinable public var effect: EffectControl? { if case .effect(let c) = self { return c } else { return nil } }
}

/// Not MIDI: what the mapper tells the built-in effect chain (the JACK engine's wah and chain,
/// `render`'s), stamped with its sensor time.
public struct EffectControl: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// The wah's engage switch (`--wah-switch`).
        case wahSwitch(engaged: Bool)
        /// A parameter of the effect chain (`fx=`): its slot in the chain, and its position
        /// 0...65535 in the parameter's whole range (`EffectTarget.value(position:...)`).
        case parameter(slot: Int, position: UInt16)
        /// A scene switched the effect chain: the scene's index.
        case scene(Int)
    }
    /// Seconds of sensor time since the first sample.
    public var time: Double
    public var action: Action

    public init(time: Double, _ action: Action) {
        self.time = time
        self.action = action
    }
}

/// One MIDI message produced by the mapper, stamped with its sensor time.
public struct MIDIEvent: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case controlChange = 0, controlChange14 = 1, pitchBend = 2
        /// `controller` is the note number, `value` the velocity (1-127).
        case noteOn = 3, noteOff = 4
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
        }
    }
}

/// Writes events as JSON lines: `{"t":1.234,"type":"cc","ch":1,"cc":11,"value":64}`, and
/// effect control as `{"t":1.234,"type":"fx","slot":9,"position":26115}`,
/// `{"t":1.234,"type":"wah_switch","engaged":true}`, `{"t":1.234,"type":"fx_chain","scene":1}`.
/// `t` has millisecond resolution. Builds the text byte by byte into a caller buffer.
public enum JSONLine {
    /// Longest line this writer can produce, newline included.
    public static let maxLength = 96

    @inlinable
    public static func write(_ e: MIDIEvent, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var w = Writer(out)
        w.time(e.time)
        switch e.kind {
        case .controlChange: w.put(",\"type\":\"cc\",\"ch\":")
        case .controlChange14: w.put(",\"type\":\"cc14\",\"ch\":")
        case .pitchBend: w.put(",\"type\":\"pitchbend\",\"ch\":")
        case .noteOn: w.put(",\"type\":\"note_on\",\"ch\":")
        case .noteOff: w.put(",\"type\":\"note_off\",\"ch\":")
        }
        w.putInt(Int(e.channel) &+ 1)
        switch e.kind {
        case .noteOn, .noteOff:
            w.put(",\"note\":")
            w.putInt(Int(e.controller))
            w.put(",\"velocity\":")
            w.putInt(e.kind == .noteOn ? Int(e.value) : 0)
        case .controlChange, .controlChange14, .pitchBend:
            if e.kind != .pitchBend {
                w.put(",\"cc\":")
                w.putInt(Int(e.controller))
            }
            w.put(",\"value\":")
            w.putInt(Int(e.value))
        }
        w.put("}\n")
        return w.n
    }

    @inlinable
    public static func write(_ c: EffectControl, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var w = Writer(out)
        w.time(c.time)
        switch c.action {
        case .wahSwitch(let engaged):
            w.put(",\"type\":\"wah_switch\",\"engaged\":")
            w.put(engaged ? "true" : "false")
        case .parameter(let slot, let position):
            w.put(",\"type\":\"fx\",\"slot\":")
            w.putInt(slot)
            w.put(",\"position\":")
            w.putInt(Int(position))
        case .scene(let index):
            w.put(",\"type\":\"fx_chain\",\"scene\":")
            w.putInt(index)
        }
        w.put("}\n")
        return w.n
    }

    @inlinable
    public static func write(_ e: MappedEvent, into out: UnsafeMutablePointer<UInt8>) -> Int {
        switch e {
        case .midi(let m): return write(m, into: out)
        case .effect(let c): return write(c, into: out)
        }
    }

    /// A line's bytes as they are written (no allocation: the caller's buffer).
    @usableFromInline
    struct Writer {
        @usableFromInline let out: UnsafeMutablePointer<UInt8>
        @usableFromInline var n = 0

        @inlinable init(_ out: UnsafeMutablePointer<UInt8>) { self.out = out }

        @inlinable @inline(__always)
        mutating func put(_ s: StaticString) {
            let p = s.utf8Start
            for k in 0..<s.utf8CodeUnitCount { out[n &+ k] = p[k] }
            n &+= s.utf8CodeUnitCount
        }

        @inlinable @inline(__always)
        mutating func putInt(_ v: Int) {
            var x = v
            if x < 0 { out[n] = 0x2D; n &+= 1; x = -x }
            var tmp:
                (
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
                ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var len = 0
            let o = out, at = n
            withUnsafeMutableBytes(of: &tmp) { b in
                repeat { b[len] = UInt8(truncatingIfNeeded: 0x30 &+ x % 10); x /= 10; len &+= 1 } while x > 0
                for k in 0..<len { o[at &+ k] = b[len &- 1 &- k] }
            }
            n &+= len
        }

        /// `{"t":` and the seconds with three decimals.
        @inlinable @inline(__always)
        mutating func time(_ t: Double) {
            put("{\"t\":")
            var ms = (t * 1000).rounded()
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
        }
    }

    public static func string(_ e: MIDIEvent) -> String { string { write(e, into: $0) } }
    public static func string(_ c: EffectControl) -> String { string { write(c, into: $0) } }
    public static func string(_ e: MappedEvent) -> String { string { write(e, into: $0) } }

    static func string(_ writing: (UnsafeMutablePointer<UInt8>) -> Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { buf in
            let n = writing(buf.baseAddress!)
            return String(decoding: UnsafeBufferPointer(start: buf.baseAddress!, count: n - 1), as: UTF8.self)
        }
    }
}
