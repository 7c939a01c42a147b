/// RTP-MIDI (RFC 6295) as a sender writes it: the RTP header, the MIDI command section (delta
/// times, running status) and the recovery journal (chapters C, W and N per channel), which lets
/// a receiver that lost packets put every controller, the pitch wheel and every note back where
/// the sender left them. Pure: bytes in, bytes out; the sockets are in SensorWahIO.
public enum RTPMIDI {
    /// The payload type Apple's sessions use (dynamic, 97).
    public static let payloadType: UInt8 = 0x61
    /// RTP timestamps and the session protocol's clock count 100 µs ticks (10 kHz).
    public static let ticksPerSecond: UInt64 = 10_000
    /// Longest MIDI list one packet carries; more events go out in further packets.
    public static let maxListBytes = 900

    /// A delta time in 1-4 octets, 7 bits each, most significant first, the high bit set on
    /// every octet but the last (values above 2^28 - 1 are clamped).
    public static func appendDelta(_ value: UInt32, to out: inout [UInt8]) {
        let v = min(value, 0x0FFF_FFFF)
        if v >= 1 << 21 { out.append(UInt8(0x80 | (v >> 21) & 0x7F)) }
        if v >= 1 << 14 { out.append(UInt8(0x80 | (v >> 14) & 0x7F)) }
        if v >= 1 << 7 { out.append(UInt8(0x80 | (v >> 7) & 0x7F)) }
        out.append(UInt8(v & 0x7F))
    }

    /// The extended (32-bit) sequence number nearest `reference` whose low 16 bits are `seq`.
    public static func extend(_ seq: UInt16, near reference: UInt32) -> UInt32 {
        let diff = Int16(bitPattern: seq &- UInt16(truncatingIfNeeded: reference))
        return UInt32(bitPattern: Int32(bitPattern: reference) &+ Int32(diff))
    }
}

/// The sender's record of what each channel's controllers, pitch wheel and notes were last set
/// to, and in which packet (extended sequence number): the recovery journal is written from it,
/// holding what changed since the checkpoint packet. Bounded: 16 channels of fixed tables.
public struct RTPMIDIJournal: Sendable {
    struct Channel: Sendable {
        /// For each controller (and note): the packet (sequence + 1) that last changed it, 0 never.
        var ccValue = [UInt8](repeating: 0, count: 128)
        var ccSeq = [UInt32](repeating: 0, count: 128)
        var wheel: UInt16 = 0x2000
        var wheelSeq: UInt32 = 0
        /// Velocity of a sounding note, 0 when it is off.
        var noteVelocity = [UInt8](repeating: 0, count: 128)
        var noteSeq = [UInt32](repeating: 0, count: 128)
        /// The latest change in this channel (sequence + 1).
        var lastSeq: UInt32 = 0
    }
    var channels: [Channel] = []

    public init() {}

    /// Records one channel message (status with its data bytes) sent in packet `seq`.
    public mutating func record(status: UInt8, _ d1: UInt8, _ d2: UInt8, seq: UInt32) {
        let ch = Int(status & 0x0F)
        if channels.isEmpty { channels = Array(repeating: Channel(), count: 16) }
        let s = seq &+ 1
        switch status & 0xF0 {
        case 0xB0:
            channels[ch].ccValue[Int(d1 & 0x7F)] = d2 & 0x7F
            channels[ch].ccSeq[Int(d1 & 0x7F)] = s
        case 0xE0:
            channels[ch].wheel = UInt16(d1 & 0x7F) | UInt16(d2 & 0x7F) << 7
            channels[ch].wheelSeq = s
        case 0x90 where d2 != 0:
            channels[ch].noteVelocity[Int(d1 & 0x7F)] = d2 & 0x7F
            channels[ch].noteSeq[Int(d1 & 0x7F)] = s
        case 0x80, 0x90:
            channels[ch].noteVelocity[Int(d1 & 0x7F)] = 0
            channels[ch].noteSeq[Int(d1 & 0x7F)] = s
        default:
            return
        }
        channels[ch].lastSeq = s
    }

    /// Appends the recovery journal for the history from packet `checkpoint` (extended
    /// sequence number, inclusive) to the last packet recorded: a 3-octet header, then one
    /// channel journal per channel that changed, each with chapter C (controllers, value
    /// tool), W (pitch wheel) and N (notes: sounding ones as note logs, ended ones in the
    /// note-off bitfield) as needed. All S bits are 0 (no structure is skippable), H is 0.
    public func append(checkpoint: UInt32, to out: inout [UInt8]) {
        let headerAt = out.count
        out.append(0); out.append(UInt8(truncatingIfNeeded: checkpoint >> 8));
        out.append(UInt8(truncatingIfNeeded: checkpoint))
        var count = 0
        let since = checkpoint &+ 1  // stored values are sequence + 1
        @inline(__always) func changed(_ s: UInt32) -> Bool { s != 0 && Int32(bitPattern: s &- since) >= 0 }
        for ch in channels.indices where changed(channels[ch].lastSeq) {
            let c = channels[ch]
            let start = out.count
            out.append(0); out.append(0); out.append(0)  // channel journal header, filled below
            var toc: UInt8 = 0
            // Chapter C: one 2-octet log per controller changed since the checkpoint
            let ccs = (0..<128).filter { changed(c.ccSeq[$0]) }
            if !ccs.isEmpty {
                toc |= 0x40
                out.append(UInt8(ccs.count - 1))  // S = 0, LEN = logs - 1
                for n in ccs { out.append(UInt8(n)); out.append(c.ccValue[n]) }  // S = 0, A = 0: the value
            }
            // Chapter W: the last pitch wheel message's two data bytes
            if changed(c.wheelSeq) {
                toc |= 0x10
                out.append(UInt8(c.wheel & 0x7F)); out.append(UInt8(c.wheel >> 7))
            }
            // Chapter N: note logs for notes sounding, bits for notes ended, since the checkpoint
            let on = (0..<128).filter { changed(c.noteSeq[$0]) && c.noteVelocity[$0] != 0 }.prefix(127)
            let off = (0..<128).filter { changed(c.noteSeq[$0]) && c.noteVelocity[$0] == 0 }
            if !on.isEmpty || !off.isEmpty {
                toc |= 0x08
                out.append(UInt8(on.count))  // B = 0, LEN
                if let lo = off.first, let hi = off.last {
                    out.append(UInt8(lo / 8) << 4 | UInt8(hi / 8))
                } else {
                    out.append(on.count == 127 ? 0xF1 : 0xF0)  // LOW > HIGH: no bitfield
                }
                for n in on { out.append(UInt8(n)); out.append(0x80 | c.noteVelocity[n]) }  // Y = 1: play it
                if let lo = off.first, let hi = off.last {
                    for octet in (lo / 8)...(hi / 8) {
                        var bits: UInt8 = 0
                        for k in 0..<8 where off.contains(octet * 8 + k) { bits |= 0x80 >> UInt8(k) }
                        out.append(bits)
                    }
                }
            }
            let length = out.count - start
            out[start] = UInt8(ch) << 3 | UInt8(length >> 8 & 0x03)  // S = 0, CHAN, H = 0, LENGTH (10 bits)
            out[start + 1] = UInt8(truncatingIfNeeded: length)
            out[start + 2] = toc
            count += 1
        }
        if count > 0 { out[headerAt] = 0x20 | UInt8(count - 1) }  // S = 0, Y = 0, A = 1, H = 0, TOTCHAN
    }
}

/// Builds RTP-MIDI packets from mapped events: one stream (one SSRC, one sequence) sent to
/// every participant, each packet carrying the recovery journal since the checkpoint the caller
/// gives (the oldest packet some participant has not confirmed with RS feedback).
public struct RTPMIDISender: Sendable {
    public let ssrc: UInt32
    /// The next packet's extended sequence number (the low 16 bits go on the wire).
    public private(set) var nextSeq: UInt32
    public private(set) var journal = RTPMIDIJournal()
    /// Whether packets carry the journal (J bit).
    public var journalling = true
    private var messages: [UInt8] = []  // 3 octets a message: status, data, data
    private var times: [UInt32] = []  // each message's tick
    public private(set) var packetsSent = 0

    public init(ssrc: UInt32, firstSeq: UInt16 = 0) {
        self.ssrc = ssrc
        nextSeq = UInt32(firstSeq)
        messages.reserveCapacity(3 * 256)
        times.reserveCapacity(256)
    }

    public var hasPending: Bool { !times.isEmpty }

    /// Queues an event's MIDI messages (a 14-bit CC is two) at `tick` (100 µs units).
    public mutating func add(_ e: MIDIEvent, tick: UInt32) {
        var buf: (UInt64, UInt64) = (0, 0)
        let n = withUnsafeMutableBytes(of: &buf) { e.encode(into: $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        withUnsafeBytes(of: &buf) { b in
            var i = 0
            while i + 3 <= n {
                messages.append(b[i]); messages.append(b[i + 1]); messages.append(b[i + 2])
                times.append(tick)
                i += 3
            }
        }
    }

    /// Drops what is queued without sending (nobody to send to).
    public mutating func discardPending() {
        messages.removeAll(keepingCapacity: true)
        times.removeAll(keepingCapacity: true)
    }

    /// Writes the queued messages as one or more packets (each handed to `emit` before the next
    /// is built), journal from `checkpoint` (nil: from this first packet, as for a stream
    /// nobody has heard yet). Each packet's journal covers the packets before it, so the
    /// messages are recorded after their packet is written.
    public mutating func makePackets(checkpoint: UInt32?, into packet: inout [UInt8], _ emit: ([UInt8]) -> Void) {
        var first = 0
        let count = times.count
        while first < count {
            packet.removeAll(keepingCapacity: true)
            let seq = nextSeq
            let stamp = times[first]
            packet.append(0x80)  // V = 2, P = X = 0, CC = 0
            packet.append(0x80 | RTPMIDI.payloadType)  // M = 1: the MIDI list is not empty
            packet.append(UInt8(truncatingIfNeeded: seq >> 8)); packet.append(UInt8(truncatingIfNeeded: seq))
            for s in [24, 16, 8, 0] as [UInt32] { packet.append(UInt8(truncatingIfNeeded: stamp >> s)) }
            for s in [24, 16, 8, 0] as [UInt32] { packet.append(UInt8(truncatingIfNeeded: ssrc >> s)) }
            let headerAt = packet.count
            packet.append(0); packet.append(0)  // command section header, long form (B = 1) until the length is known
            var last = first
            var running: UInt8 = 0
            var previous = stamp
            while last < count {
                let m = last * 3
                let status = messages[m]
                let before = packet.count
                if last > first { RTPMIDI.appendDelta(times[last] &- previous, to: &packet) }
                if status != running { packet.append(status); running = status }
                packet.append(messages[m + 1]); packet.append(messages[m + 2])
                if packet.count - headerAt - 2 > RTPMIDI.maxListBytes && last > first {
                    packet.removeSubrange(before...)  // the next packet takes it
                    break
                }
                previous = times[last]
                last += 1
            }
            let listLength = packet.count - headerAt - 2
            let j: UInt8 = journalling ? 0x40 : 0
            if listLength <= 15 {
                packet[headerAt] = j | UInt8(listLength)  // B = 0, Z = 0, P = 0
                packet.remove(at: headerAt + 1)
            } else {
                packet[headerAt] = 0x80 | j | UInt8(listLength >> 8)
                packet[headerAt + 1] = UInt8(truncatingIfNeeded: listLength)
            }
            if journalling { journal.append(checkpoint: checkpoint ?? seq, to: &packet) }
            for k in first..<last {
                journal.record(status: messages[k * 3], messages[k * 3 + 1], messages[k * 3 + 2], seq: seq)
            }
            nextSeq = seq &+ 1
            packetsSent += 1
            emit(packet)
            first = last
        }
        discardPending()
    }
}
