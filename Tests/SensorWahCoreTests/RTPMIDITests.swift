import XCTest
@testable import SensorWahCore

/// RTP-MIDI payloads written by hand from RFC 6295's figures (header, command section, delta
/// times, running status, the journal's chapters C, W and N), the session protocol's state
/// machine, and loss repaired from the journal by a decoder written here from the RFC.
final class RTPMIDITests: XCTestCase {
    private func packets(_ s: inout RTPMIDISender, checkpoint: UInt32?) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var buf: [UInt8] = []
        s.makePackets(checkpoint: checkpoint, into: &buf) { out.append($0) }
        return out
    }

    func testDeltaTimesAreSevenBitGroupsMostSignificantFirst() {
        func d(_ v: UInt32) -> [UInt8] { var b: [UInt8] = []; RTPMIDI.appendDelta(v, to: &b); return b }
        XCTAssertEqual(d(0), [0x00])
        XCTAssertEqual(d(127), [0x7F])
        XCTAssertEqual(d(128), [0x81, 0x00])
        XCTAssertEqual(d(190), [0x81, 0x3E])
        XCTAssertEqual(d(16_383), [0xFF, 0x7F])
        XCTAssertEqual(d(16_384), [0x81, 0x80, 0x00])
        XCTAssertEqual(d(0x0FFF_FFFF), [0xFF, 0xFF, 0xFF, 0x7F])
    }

    func testExtendedSequenceNumbersAcrossTheWrap() {
        XCTAssertEqual(RTPMIDI.extend(0xFFFF, near: 0x1_0001), 0xFFFF)
        XCTAssertEqual(RTPMIDI.extend(2, near: 0xFFFF), 0x1_0002)
        XCTAssertEqual(RTPMIDI.extend(5, near: 9), 5)
    }

    /// Worked by hand: one CC, a short command section (B = 0, J = 1, LEN 3) and the empty
    /// journal of a first packet (A = 0, checkpoint = this packet).
    func testFirstPacketOneControlChange() {
        var s = RTPMIDISender(ssrc: 0x0102_0304, firstSeq: 7)
        s.add(.cc(11, 64), tick: 100)
        let p = packets(&s, checkpoint: nil)
        XCTAssertEqual(
            p,
            [
                [
                    0x80, 0xE1, 0x00, 0x07, 0x00, 0x00, 0x00, 0x64, 0x01, 0x02, 0x03, 0x04,
                    0x43, 0xB0, 0x0B, 0x40,
                    0x00, 0x00, 0x07
                ]
            ])
    }

    /// Worked by hand: a second packet with a delta time of 190 ticks (two octets), running
    /// status for the second CC, a pitch bend after a zero delta; its journal (checkpoint 7)
    /// holds chapter C for the first packet's CC 11 = 64.
    func testRunningStatusDeltaTimesAndChapterC() {
        var s = RTPMIDISender(ssrc: 0x0102_0304, firstSeq: 7)
        s.add(.cc(11, 64), tick: 100)
        _ = packets(&s, checkpoint: nil)
        s.add(.cc(11, 70), tick: 110)
        s.add(.cc(1, 5), tick: 300)
        s.add(MIDIEvent(time: 0, kind: .pitchBend, channel: 0, value: 8292), tick: 300)
        let p = packets(&s, checkpoint: 7)
        XCTAssertEqual(
            p,
            [
                [
                    0x80, 0xE1, 0x00, 0x08, 0x00, 0x00, 0x00, 0x6E, 0x01, 0x02, 0x03, 0x04,
                    0x4B, 0xB0, 0x0B, 0x46, 0x81, 0x3E, 0x01, 0x05, 0x00, 0xE0, 0x64, 0x40,
                    0x20, 0x00, 0x07,  // A = 1, one channel, checkpoint 7
                    0x00, 0x06, 0x40,  // channel 1, length 6, chapter C
                    0x00, 0x0B, 0x40
                ]
            ])  // one log: controller 11 = 64
        // the third packet's journal since 7: CC 1, CC 11 (its latest value) and W
        s.add(.cc(11, 71), tick: 400)
        let q = packets(&s, checkpoint: 7)[0]
        XCTAssertEqual(
            Array(q[16...]),
            [
                0x20, 0x00, 0x07,
                0x00, 0x0A, 0x50,  // length 10, chapters C and W
                0x01, 0x01, 0x05, 0x0B, 0x46,
                0x64, 0x40
            ])
    }

    /// A 14-bit CC is MSB then LSB under one status (running status), both in chapter C.
    func testFourteenBitControlChange() {
        var s = RTPMIDISender(ssrc: 1)
        s.add(MIDIEvent(time: 0, kind: .controlChange14, channel: 2, controller: 1, value: 0x2001), tick: 0)
        let p = packets(&s, checkpoint: nil)[0]
        XCTAssertEqual(Array(p[12...]), [0x46, 0xB2, 0x01, 0x40, 0x00, 0x21, 0x01, 0x00, 0x00, 0x00])
    }

    /// Worked by hand: note 60 on then off, note 64 on: chapter N has one note log (64,
    /// velocity 100, Y = 1) and the note-off bitfield with LOW = HIGH = 7, bit 4 (note 60).
    func testChapterN() {
        var s = RTPMIDISender(ssrc: 1)
        s.add(MIDIEvent(time: 0, kind: .noteOn, channel: 0, controller: 60, value: 100), tick: 0)
        _ = packets(&s, checkpoint: nil)
        s.add(MIDIEvent(time: 0, kind: .noteOff, channel: 0, controller: 60, value: 0), tick: 10)
        s.add(MIDIEvent(time: 0, kind: .noteOn, channel: 0, controller: 64, value: 100), tick: 10)
        _ = packets(&s, checkpoint: 0)
        s.add(.cc(7, 1, channel: 3), tick: 20)
        let p = packets(&s, checkpoint: 0)[0]
        XCTAssertEqual(
            Array(p[16...]),
            [
                0x20, 0x00, 0x00,
                0x00, 0x08, 0x08,  // channel 1, length 8, chapter N
                0x01, 0x77, 0x40, 0xE4, 0x08
            ])
    }

    func testFeedbackTrimsTheJournal() {
        var s = RTPMIDISender(ssrc: 1)
        for k in 0..<5 { s.add(.cc(UInt8(k), 1), tick: UInt32(k)); _ = packets(&s, checkpoint: 0) }
        s.add(.cc(100, 1), tick: 9)
        let full = packets(&s, checkpoint: 0)[0]
        s.add(.cc(100, 2), tick: 10)
        let trimmed = packets(&s, checkpoint: 4)[0]  // RS said packet 3 arrived: history from 4
        let a = RTPReceiverModel.decode(full)!, b = RTPReceiverModel.decode(trimmed)!
        XCTAssertEqual(a.journalControllers.map(\.number), [0, 1, 2, 3, 4])
        XCTAssertEqual(b.journalControllers.map(\.number), [4, 100])
        XCTAssertLessThan(trimmed.count, full.count)
    }

    /// A random stream through a link losing packets: after every packet that arrives, the
    /// receiver (this file's decoder, repairing from the journal after a gap) holds exactly the
    /// sender's controllers, wheel and notes.
    func testLossIsRepairedFromTheJournal() {
        var rng = SystemRandomNumberGenerator()
        var s = RTPMIDISender(ssrc: 9)
        var sender = RTPReceiverModel.State()
        var receiver = RTPReceiverModel.State()
        var lastSeq: UInt16?
        var lost = 0
        for k in 0..<3000 {
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let ch = UInt8.random(in: 0...1, using: &rng)
                let e: MIDIEvent
                switch Int.random(in: 0..<4, using: &rng) {
                case 0:
                    e = .cc(UInt8.random(in: 1...4, using: &rng), UInt16.random(in: 0...127, using: &rng), channel: ch)
                case 1:
                    e = MIDIEvent(
                        time: 0, kind: .pitchBend, channel: ch, value: UInt16.random(in: 0...16383, using: &rng))
                case 2:
                    e = MIDIEvent(
                        time: 0, kind: .noteOn, channel: ch, controller: UInt8.random(in: 58...70, using: &rng),
                        value: UInt16.random(in: 1...127, using: &rng))
                default:
                    e = MIDIEvent(
                        time: 0, kind: .noteOff, channel: ch, controller: UInt8.random(in: 58...70, using: &rng),
                        value: 0)
                }
                s.add(e, tick: UInt32(k))
                var b: (UInt64, UInt64) = (0, 0)
                let n = withUnsafeMutableBytes(of: &b) {
                    e.encode(into: $0.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
                withUnsafeBytes(of: &b) {
                    for i in stride(from: 0, to: n, by: 3) { sender.apply($0[i], $0[i + 1], $0[i + 2]) }
                }
            }
            // the checkpoint trails by up to 20 packets, as feedback would
            let cp = s.nextSeq >= 20 ? s.nextSeq - 20 : 0
            for p in packets(&s, checkpoint: cp) {
                if Int.random(in: 0..<5, using: &rng) == 0 { lost += 1; continue }
                let d = RTPReceiverModel.decode(p)!
                if d.seq != lastSeq.map({ $0 &+ 1 }) ?? 0 { receiver.repair(from: d) }
                for m in d.messages { receiver.apply(m.0, m.1, m.2) }
                lastSeq = d.seq
                if receiver != sender { return XCTFail("the receiver differs from the sender after packet \(d.seq)") }
            }
        }
        XCTAssertGreaterThan(lost, 300)
    }

    // MARK: the session protocol

    private func sends(_ a: [AppleMIDISession.Action]) -> [(AppleMIDICommand, RTPEndpoint, AppleMIDISession.Socket)] {
        a.compactMap {
            if case .send(let b, let to, let via) = $0 {
                return (AppleMIDICommand.decode(b)!, to, via)
            } else {
                return nil
            }
        }
    }

    func testCommandsRoundTrip() {
        let cmds: [AppleMIDICommand] = [
            .invitation(token: 0xAABBCCDD, ssrc: 7, name: "wah"), .accepted(token: 1, ssrc: 2, name: "Mac"),
            .rejected(token: 1, ssrc: 2), .bye(token: 0, ssrc: 3),
            .sync(ssrc: 4, count: 2, t1: 1, t2: 0x1_0000_0002, t3: 3), .feedback(ssrc: 5, seq: 0xBEEF)
        ]
        for c in cmds { XCTAssertEqual(AppleMIDICommand.decode(c.encoded()), c) }
        XCTAssertEqual(
            AppleMIDICommand.invitation(token: 1, ssrc: 2, name: "A").encoded(),
            [0xFF, 0xFF, 0x49, 0x4E, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0x41, 0])
        XCTAssertEqual(
            AppleMIDICommand.feedback(ssrc: 1, seq: 0x1234).encoded(),
            [0xFF, 0xFF, 0x52, 0x53, 0, 0, 0, 1, 0x12, 0x34, 0, 0])
        XCTAssertNil(AppleMIDICommand.decode([0xFF, 0xFF, 0x49, 0x4E, 0, 0, 0]))  // short: not read
        XCTAssertNil(AppleMIDICommand.decode([0x80, 0x61, 0, 0]))
    }

    func testResponderHandshakeSyncFeedbackAndGoodbye() {
        var s = AppleMIDISession(settings: .init(name: "SensorWah", ssrc: 0x55))
        let ctl = RTPEndpoint(host: "10.0.0.2", port: 5004)
        var a = s.receive(
            AppleMIDICommand.invitation(token: 9, ssrc: 0x77, name: "Mac").encoded(), from: ctl, via: .control, now: 1)
        XCTAssertEqual(sends(a).map(\.0), [.accepted(token: 9, ssrc: 0x55, name: "SensorWah")])
        XCTAssertTrue(s.participants.isEmpty)
        a = s.receive(
            AppleMIDICommand.invitation(token: 9, ssrc: 0x77, name: "Mac").encoded(), from: ctl.dataPort, via: .data,
            now: 1.1)
        XCTAssertEqual(sends(a).map(\.1), [ctl.dataPort])
        XCTAssertEqual(s.participants.map(\.name), ["Mac"])
        XCTAssertTrue(
            a.contains { if case .joined(let p) = $0 { return p.data == ctl.dataPort } else { return false } })
        a = s.receive(
            AppleMIDICommand.sync(ssrc: 0x77, count: 0, t1: 1234, t2: 0, t3: 0).encoded(), from: ctl.dataPort,
            via: .data, now: 2)
        XCTAssertEqual(sends(a).map(\.0), [.sync(ssrc: 0x55, count: 1, t1: 1234, t2: 20_000, t3: 0)])
        a = s.receive(AppleMIDICommand.feedback(ssrc: 0x77, seq: 42).encoded(), from: ctl, via: .control, now: 3)
        XCTAssertEqual(a, [.confirmed(ssrc: 0x77, seq: 42)])
        XCTAssertTrue(s.tick(now: 50).isEmpty)
        a = s.receive(AppleMIDICommand.bye(token: 0, ssrc: 0x77).encoded(), from: ctl, via: .control, now: 51)
        XCTAssertTrue(a.contains { if case .left = $0 { return true } else { return false } })
        XCTAssertTrue(s.participants.isEmpty)
    }

    func testSilentResponderParticipantIsDropped() {
        var st = AppleMIDISession.Settings(name: "w", ssrc: 1)
        st.timeout = 60
        var s = AppleMIDISession(settings: st)
        let ctl = RTPEndpoint(host: "::1", port: 6000)
        _ = s.receive(
            AppleMIDICommand.invitation(token: 1, ssrc: 2, name: "iPad").encoded(), from: ctl, via: .control, now: 0)
        _ = s.receive(
            AppleMIDICommand.invitation(token: 1, ssrc: 2, name: "iPad").encoded(), from: ctl.dataPort, via: .data,
            now: 0)
        XCTAssertTrue(s.tick(now: 59).isEmpty)
        let a = s.tick(now: 61)
        XCTAssertTrue(a.contains { if case .left(_, let r) = $0 { return r.contains("silent") } else { return false } })
        XCTAssertTrue(s.participants.isEmpty)
    }

    func testInitiatorInvitesRetriesSyncsAndReinvitesAVanishedPeer() {
        var st = AppleMIDISession.Settings(name: "SensorWah", ssrc: 0x55)
        st.retryAfter = 5
        var s = AppleMIDISession(settings: st)
        let peer = RTPEndpoint(host: "127.0.0.1", port: 5051)
        s.connect(peer, now: 0)
        var a = sends(s.tick(now: 0))
        XCTAssertEqual(a.count, 1)
        guard case .invitation(let token, 0x55, "SensorWah") = a[0].0 else { return XCTFail("\(a)") }
        XCTAssertEqual(a[0].1, peer); XCTAssertEqual(a[0].2, .control)
        XCTAssertTrue(s.tick(now: 1).isEmpty)
        XCTAssertEqual(sends(s.tick(now: 1.6)).map(\.1), [peer])  // retried
        a = sends(
            s.receive(
                AppleMIDICommand.accepted(token: token, ssrc: 0x99, name: "py").encoded(), from: peer, via: .control,
                now: 2))
        XCTAssertEqual(a.map(\.1), [peer.dataPort]); XCTAssertEqual(a.map(\.2), [.data])
        let j = s.receive(
            AppleMIDICommand.accepted(token: token, ssrc: 0x99, name: "py").encoded(), from: peer.dataPort, via: .data,
            now: 2.1)
        XCTAssertEqual(s.participants.map(\.ssrc), [0x99])
        XCTAssertEqual(sends(j).map(\.0), [.sync(ssrc: 0x55, count: 0, t1: 21_000, t2: 0, t3: 0)])
        a = sends(
            s.receive(
                AppleMIDICommand.sync(ssrc: 0x99, count: 1, t1: 21_000, t2: 777, t3: 0).encoded(), from: peer.dataPort,
                via: .data, now: 2.2))
        XCTAssertEqual(a.map(\.0), [.sync(ssrc: 0x55, count: 2, t1: 21_000, t2: 777, t3: 22_000)])
        XCTAssertEqual(s.participants[0].roundTrip!, 0.1, accuracy: 1e-9)
        // fast start: one a second; the peer vanishes: three unanswered, dropped, invited again
        var left = false
        var t = 2.2
        while t < 10 && !left {
            t += 0.5
            left = s.tick(now: t).contains {
                if case .left(_, let r) = $0 { return r.contains("clock sync") } else { return false }
            }
        }
        XCTAssertTrue(left)
        XCTAssertTrue(s.participants.isEmpty)
        XCTAssertTrue(sends(s.tick(now: t + 4)).isEmpty)
        a = sends(s.tick(now: t + 5.1))
        guard case .invitation = a.first?.0 else { return XCTFail("not invited again: \(a)") }
    }

    func testRefusalWaitsBeforeInvitingAgain() {
        var s = AppleMIDISession(settings: .init(name: "w", ssrc: 1))
        let peer = RTPEndpoint(host: "127.0.0.1", port: 5004)
        s.connect(peer, now: 0)
        guard case .invitation(let token, _, _) = sends(s.tick(now: 0))[0].0 else { return XCTFail() }
        let a = s.receive(
            AppleMIDICommand.rejected(token: token, ssrc: 2).encoded(), from: peer, via: .control, now: 0.1)
        XCTAssertTrue(a.contains { if case .log(let m) = $0 { return m.contains("refused") } else { return false } })
        XCTAssertTrue(s.tick(now: 3).isEmpty)
        XCTAssertEqual(sends(s.tick(now: 5.2)).count, 1)
    }

    func testCloseSaysGoodbyeToEveryone() {
        var s = AppleMIDISession(settings: .init(name: "w", ssrc: 1))
        for (i, port) in [6000, 6010].enumerated() {
            let c = RTPEndpoint(host: "127.0.0.1", port: port)
            _ = s.receive(
                AppleMIDICommand.invitation(token: 1, ssrc: UInt32(10 + i), name: "p\(i)").encoded(), from: c,
                via: .control, now: 0)
            _ = s.receive(
                AppleMIDICommand.invitation(token: 1, ssrc: UInt32(10 + i), name: "p\(i)").encoded(), from: c.dataPort,
                via: .data, now: 0)
        }
        XCTAssertEqual(s.participants.count, 2)
        let a = sends(s.close())
        XCTAssertEqual(a.map(\.1.port), [6000, 6010])
        XCTAssertEqual(a.map(\.0), [.bye(token: 0, ssrc: 1), .bye(token: 0, ssrc: 1)])
    }
}

/// A receiver written from RFC 6295 for the tests, independent of the sender's code: reads a
/// packet (header, command section with delta times and running status, journal chapters C, W,
/// N) and keeps the channel state a receiver would.
enum RTPReceiverModel {
    struct Decoded {
        var seq: UInt16
        var timestamp: UInt32
        var messages: [(UInt8, UInt8, UInt8)] = []
        var deltas: [UInt32] = []
        var checkpoint: UInt16?
        var journalControllers: [(channel: Int, number: Int, value: UInt8)] = []
        var journalWheel: [(channel: Int, value: UInt16)] = []
        var journalNotesOn: [(channel: Int, note: Int, velocity: UInt8)] = []
        var journalNotesOff: [(channel: Int, note: Int)] = []
    }

    struct State: Equatable {
        var cc = [[UInt8]](repeating: [UInt8](repeating: 255, count: 128), count: 16)
        var wheel = [UInt16](repeating: 0x2000, count: 16)
        var notes = [[UInt8]](repeating: [UInt8](repeating: 0, count: 128), count: 16)
        mutating func apply(_ s: UInt8, _ a: UInt8, _ b: UInt8) {
            let ch = Int(s & 15)
            switch s & 0xF0 {
            case 0xB0: cc[ch][Int(a)] = b
            case 0xE0: wheel[ch] = UInt16(a) | UInt16(b) << 7
            case 0x90: notes[ch][Int(a)] = b
            case 0x80: notes[ch][Int(a)] = 0
            default: break
            }
        }
        mutating func repair(from d: Decoded) {
            for c in d.journalControllers { cc[c.channel][c.number] = c.value }
            for w in d.journalWheel { wheel[w.channel] = w.value }
            for n in d.journalNotesOff { notes[n.channel][n.note] = 0 }
            for n in d.journalNotesOn { notes[n.channel][n.note] = n.velocity }
        }
    }

    static func decode(_ p: [UInt8]) -> Decoded? {
        guard p.count >= 13, p[0] >> 6 == 2, p[1] & 0x7F == 0x61 else { return nil }
        var d = Decoded(seq: UInt16(p[2]) << 8 | UInt16(p[3]), timestamp: p[4..<8].reduce(0) { $0 << 8 | UInt32($1) })
        var i = 12
        let b = p[i] & 0x80 != 0, j = p[i] & 0x40 != 0, z = p[i] & 0x20 != 0
        var len = Int(p[i] & 0x0F)
        i += 1
        if b { len = len << 8 | Int(p[i]); i += 1 }
        let end = i + len
        var running: UInt8 = 0
        var first = true
        while i < end {
            if !first || z {
                var v: UInt32 = 0
                repeat { v = v << 7 | UInt32(p[i] & 0x7F); i += 1 } while p[i - 1] & 0x80 != 0
                d.deltas.append(v)
            }
            first = false
            if p[i] & 0x80 != 0 { running = p[i]; i += 1 }
            d.messages.append((running, p[i], p[i + 1]))
            i += 2
        }
        guard i == end else { return nil }
        guard j else { return d }
        let a = p[i] & 0x20 != 0
        let channels = Int(p[i] & 0x0F) + 1
        d.checkpoint = UInt16(p[i + 1]) << 8 | UInt16(p[i + 2])
        i += 3
        guard a else { return d }
        for _ in 0..<channels {
            let ch = Int(p[i] >> 3 & 0x0F)
            let length = Int(p[i] & 0x03) << 8 | Int(p[i + 1])
            let toc = p[i + 2]
            let stop = i + length
            i += 3
            if toc & 0x80 != 0 { i += 1 }  // P (not sent)
            if toc & 0x40 != 0 {
                let n = Int(p[i] & 0x7F) + 1
                i += 1
                for _ in 0..<n { d.journalControllers.append((ch, Int(p[i] & 0x7F), p[i + 1] & 0x7F)); i += 2 }
            }
            if toc & 0x20 != 0 { return nil }  // M (not sent)
            if toc & 0x10 != 0 {
                d.journalWheel.append((ch, UInt16(p[i] & 0x7F) | UInt16(p[i + 1] & 0x7F) << 7)); i += 2
            }
            if toc & 0x08 != 0 {
                var n = Int(p[i] & 0x7F)
                let low = Int(p[i + 1] >> 4), high = Int(p[i + 1] & 0x0F)
                if n == 127 && low == 15 && high == 0 { n = 128 }
                i += 2
                for _ in 0..<n { d.journalNotesOn.append((ch, Int(p[i] & 0x7F), p[i + 1] & 0x7F)); i += 2 }
                if low <= high {
                    for octet in low...high {
                        for k in 0..<8 where p[i] & (0x80 >> UInt8(k)) != 0 {
                            d.journalNotesOff.append((ch, octet * 8 + k))
                        }
                        i += 1
                    }
                }
            }
            guard i == stop else { return nil }
        }
        return i == p.count ? d : nil
    }
}
