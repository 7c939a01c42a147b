/// Apple's session protocol for RTP-MIDI (the one macOS's MIDI Network Setup and iOS speak):
/// the commands, and a session's state machine as a pure value (packets and the time in, packets
/// to send and participant changes out). The sockets, timers and mDNS are in the adapters.
public enum AppleMIDICommand: Equatable, Sendable {
    /// IN: an invitation, OK: accepted, NO: refused, BY: the session ends.
    case invitation(token: UInt32, ssrc: UInt32, name: String)
    case accepted(token: UInt32, ssrc: UInt32, name: String)
    case rejected(token: UInt32, ssrc: UInt32)
    case bye(token: UInt32, ssrc: UInt32)
    /// CK: clock synchronisation, count 0, 1 or 2 and three 64-bit timestamps (100 µs ticks).
    case sync(ssrc: UInt32, count: UInt8, t1: UInt64, t2: UInt64, t3: UInt64)
    /// RS: receiver feedback, the last RTP sequence number the receiver has.
    case feedback(ssrc: UInt32, seq: UInt16)
    /// RL and anything else well formed with the 0xFFFF signature.
    case other(code: String)

    /// Whether a datagram is a session command (0xFFFF and two letters) rather than RTP.
    public static func isCommand(_ b: [UInt8]) -> Bool { b.count >= 4 && b[0] == 0xFF && b[1] == 0xFF }

    /// The command in a datagram, or nil when it is not one or is too short for its kind.
    public static func decode(_ b: [UInt8]) -> AppleMIDICommand? {
        guard isCommand(b) else { return nil }
        func u32(_ i: Int) -> UInt32 {
            UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
        }
        func u64(_ i: Int) -> UInt64 { UInt64(u32(i)) << 32 | UInt64(u32(i + 4)) }
        let code = String(decoding: b[2..<4], as: UTF8.self)
        switch code {
        case "IN", "OK", "NO", "BY":
            guard b.count >= 16, u32(4) == 2 else { return nil }  // protocol version 2
            let token = u32(8), ssrc = u32(12)
            var nameBytes = Array(b[16...])
            if let z = nameBytes.firstIndex(of: 0) { nameBytes = Array(nameBytes[..<z]) }
            let name = capped(String(decoding: nameBytes.prefix(256), as: UTF8.self))
            switch code {
            case "IN": return .invitation(token: token, ssrc: ssrc, name: name)
            case "OK": return .accepted(token: token, ssrc: ssrc, name: name)
            case "NO": return .rejected(token: token, ssrc: ssrc)
            default: return .bye(token: token, ssrc: ssrc)
            }
        case "CK":
            guard b.count >= 36 else { return nil }
            return .sync(ssrc: u32(4), count: b[8], t1: u64(12), t2: u64(20), t3: u64(28))
        case "RS":
            guard b.count >= 12 else { return nil }
            // the RTP seqnum in the upper half
            return .feedback(ssrc: u32(4), seq: UInt16(truncatingIfNeeded: u32(8) >> 16))
        default:
            return .other(code: code)
        }
    }

    /// A session name as sent and read: at most 200 bytes of UTF-8, cut between characters
    /// (so a name read from the wire writes back to the same bytes).
    static func capped(_ name: String) -> String {
        guard name.utf8.count > 200 else { return name }
        var n = name
        while n.utf8.count > 200 { n.removeLast() }
        return n
    }

    public func encoded() -> [UInt8] {
        var b: [UInt8] = [0xFF, 0xFF]
        func put(_ v: UInt32) { for s in [24, 16, 8, 0] as [UInt32] { b.append(UInt8(truncatingIfNeeded: v >> s)) } }
        func put64(_ v: UInt64) { put(UInt32(truncatingIfNeeded: v >> 32)); put(UInt32(truncatingIfNeeded: v)) }
        func exchange(_ code: String, _ token: UInt32, _ ssrc: UInt32, _ name: String?) {
            b += Array(code.utf8); put(2); put(token); put(ssrc)
            if let name { b += Array(Self.capped(name).utf8); b.append(0) }
        }
        switch self {
        case .invitation(let t, let s, let n): exchange("IN", t, s, n)
        case .accepted(let t, let s, let n): exchange("OK", t, s, n)
        case .rejected(let t, let s): exchange("NO", t, s, nil)
        case .bye(let t, let s): exchange("BY", t, s, nil)
        case .sync(let s, let count, let t1, let t2, let t3):
            b += Array("CK".utf8); put(s); b += [count, 0, 0, 0]; put64(t1); put64(t2); put64(t3)
        case .feedback(let s, let seq):
            b += Array("RS".utf8); put(s); put(UInt32(seq) << 16)
        case .other(let code):
            b += Array(code.utf8.prefix(2))
        }
        return b
    }
}

/// Where a packet comes from or goes: a host (numeric address) and a UDP port.
public struct RTPEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public init(host: String, port: Int) { self.host = host; self.port = port }
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    /// The data port beside a control port.
    public var dataPort: RTPEndpoint { RTPEndpoint(host: host, port: port + 1) }
}

/// One RTP-MIDI session: the responder (invitations in, on its control then its data port) and
/// the initiator towards the peers asked for (`connect`), clock sync, feedback and goodbyes,
/// several participants at once, and dropping one that vanished (no clock sync for `timeout`,
/// three clock syncs of ours unanswered) to invite it again when it is one we invited.
public struct AppleMIDISession: Sendable {
    public enum Socket: Sendable, Equatable { case control, data }

    public struct Settings: Sendable {
        public var name: String
        public var ssrc: UInt32
        /// Nothing heard from a participant for this long (seconds): it is dropped.
        public var timeout = 60.0
        /// Between invitations not answered, and how many before waiting `retryAfter`.
        public var inviteInterval = 1.5
        public var inviteAttempts = 12
        /// Before inviting again a peer that refused, left or vanished.
        public var retryAfter = 5.0
        /// Clock sync as initiator: `fastSyncs` every `fastSyncInterval`, then every `syncInterval`.
        public var fastSyncs = 6
        public var fastSyncInterval = 1.0
        public var syncInterval = 10.0
        public init(name: String, ssrc: UInt32) { self.name = name; self.ssrc = ssrc }
    }

    public struct Participant: Sendable, Equatable {
        public var ssrc: UInt32
        public var name: String
        public var control: RTPEndpoint
        public var data: RTPEndpoint
        /// True when we invited it (`connect`), false when it invited us.
        public var invitedByUs: Bool
        public var lastHeard: Double
        /// The last clock sync's round trip (seconds) and the peer's clock minus ours (ticks).
        public var roundTrip: Double?
        public var offset: Int64?
        /// The last sequence number its RS feedback confirmed.
        public var confirmed: UInt16?
    }

    public enum Action: Sendable, Equatable {
        case send([UInt8], to: RTPEndpoint, via: Socket)
        /// A participant is connected on both ports: start streaming to its data port.
        case joined(Participant)
        /// A participant left or was dropped; `reason` says why, for the log.
        case left(Participant, reason: String)
        /// RS feedback from a participant: packets up to `seq` arrived.
        case confirmed(ssrc: UInt32, seq: UInt16)
        case log(String)
    }

    enum InviteState: Sendable {
        case waiting(until: Double)
        case control(token: UInt32, attempts: Int, next: Double)
        case data(token: UInt32, attempts: Int, next: Double, ssrc: UInt32, name: String)
        case connected(ssrc: UInt32)
    }

    struct Target: Sendable {
        var control: RTPEndpoint
        var state: InviteState
    }

    struct SyncState: Sendable {
        var sent = 0
        var unanswered = 0
        var next = 0.0
    }

    /// Participants (joined and half-joined) at most: further invitations get NO.
    public static let maxParticipants = 16

    public let settings: Settings
    public private(set) var participants: [Participant] = []
    var targets: [Target] = []
    var syncs: [UInt32: SyncState] = [:]
    /// Partly joined responders: invited on the control port, data port not yet.
    var pending: [UInt32: Participant] = [:]
    private var tokenSeed: UInt32

    public init(settings: Settings) {
        self.settings = settings
        tokenSeed = settings.ssrc ^ 0x5EED_1234
    }

    private mutating func newToken() -> UInt32 {
        tokenSeed = tokenSeed &* 1_664_525 &+ 1_013_904_223
        return tokenSeed
    }

    /// Seconds to 100 µs ticks (the CK timestamps).
    public static func ticks(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * Double(RTPMIDI.ticksPerSecond)) }

    /// Invite a peer's session (its control port) now, and again whenever it goes away.
    public mutating func connect(_ control: RTPEndpoint, now: Double) {
        guard !targets.contains(where: { $0.control == control }) else { return }
        targets.append(Target(control: control, state: .waiting(until: now)))
    }

    /// A datagram arrived on one of our ports.
    public mutating func receive(_ bytes: [UInt8], from: RTPEndpoint, via socket: Socket, now: Double) -> [Action] {
        guard let cmd = AppleMIDICommand.decode(bytes) else {
            // RTP from a participant (we only send; its presence counts as being alive)
            if bytes.count >= 12, let i = participants.firstIndex(where: { $0.data == from }) {
                participants[i].lastHeard = now
            }
            return []
        }
        var out: [Action] = []
        switch cmd {
        case .invitation(let token, let ssrc, let name):
            let known = participants.contains { $0.ssrc == ssrc } || pending[ssrc] != nil
            if !known && participants.count + pending.count >= Self.maxParticipants {
                out.append(
                    .send(AppleMIDICommand.rejected(token: token, ssrc: settings.ssrc).encoded(), to: from, via: socket)
                )
                out.append(
                    .log(
                        "RTP-MIDI: '\(name)' (\(from)) refused: the session has \(Self.maxParticipants) participants already"
                    ))
                return out
            }
            out.append(
                .send(
                    AppleMIDICommand.accepted(token: token, ssrc: settings.ssrc, name: settings.name).encoded(),
                    to: from, via: socket))
            if socket == .control {
                if let i = participants.firstIndex(where: { $0.ssrc == ssrc }) {
                    participants[i].lastHeard = now  // a repeated invitation: OK again, nothing else changes
                } else {
                    pending[ssrc] = Participant(
                        ssrc: ssrc, name: name, control: from, data: from.dataPort, invitedByUs: false,
                        lastHeard: now)
                    out.append(.log("RTP-MIDI: '\(name)' (\(from)) invites; accepted"))
                }
            } else if let i = participants.firstIndex(where: { $0.ssrc == ssrc }) {
                participants[i].data = from
                participants[i].lastHeard = now
            } else {
                var p =
                    pending.removeValue(forKey: ssrc)
                    ?? Participant(
                        ssrc: ssrc, name: name, control: RTPEndpoint(host: from.host, port: from.port - 1), data: from,
                        invitedByUs: false, lastHeard: now)
                p.data = from
                p.lastHeard = now
                participants.append(p)
                out.append(.joined(p))
            }
        case .accepted(let token, let ssrc, let name):
            guard
                let t = targets.firstIndex(where: { target in
                    switch target.state {
                    case .control(let tk, _, _), .data(let tk, _, _, _, _): return tk == token
                    default: return false
                    }
                })
            else { break }
            switch targets[t].state {
            case .control(let tk, _, _) where socket == .control:
                targets[t].state = .data(
                    token: tk, attempts: 1, next: now + settings.inviteInterval, ssrc: ssrc, name: name)
                out.append(
                    .send(
                        AppleMIDICommand.invitation(token: tk, ssrc: settings.ssrc, name: settings.name).encoded(),
                        to: targets[t].control.dataPort, via: .data))
            case .data where socket == .data:
                targets[t].state = .connected(ssrc: ssrc)
                let p = Participant(
                    ssrc: ssrc, name: name, control: targets[t].control, data: from, invitedByUs: true, lastHeard: now)
                participants.removeAll { $0.ssrc == ssrc }
                participants.append(p)
                syncs[ssrc] = SyncState(next: now)
                out.append(.log("RTP-MIDI: '\(name)' (\(targets[t].control)) accepted our invitation"))
                out.append(.joined(p))
                out += sync(now: now)
            default:
                break
            }
        case .rejected(let token, _):
            if let t = targets.firstIndex(where: { target in
                switch target.state {
                case .control(let tk, _, _), .data(let tk, _, _, _, _): return tk == token
                default: return false
                }
            }) {
                targets[t].state = .waiting(until: now + settings.retryAfter)
                out.append(
                    .log(
                        "RTP-MIDI: \(targets[t].control) refused the invitation; asking again in \(Int(settings.retryAfter)) s"
                    ))
            }
        case .bye(_, let ssrc):
            pending[ssrc] = nil
            out += drop(ssrc: ssrc, reason: "said goodbye", now: now)
        case .sync(let ssrc, let count, let t1, let t2, _):
            if let i = participants.firstIndex(where: { $0.ssrc == ssrc }) { participants[i].lastHeard = now }
            let nowTicks = Self.ticks(now)
            switch count {
            case 0:
                // answered in the same turn: their time, ours
                out.append(
                    .send(
                        AppleMIDICommand.sync(ssrc: settings.ssrc, count: 1, t1: t1, t2: nowTicks, t3: 0).encoded(),
                        to: from, via: socket))
            case 1:
                // our CK0 came back: close the exchange with CK2, measure the round trip
                out.append(
                    .send(
                        AppleMIDICommand.sync(ssrc: settings.ssrc, count: 2, t1: t1, t2: t2, t3: nowTicks).encoded(),
                        to: from, via: socket))
                syncs[ssrc]?.unanswered = 0
                if let i = participants.firstIndex(where: { $0.ssrc == ssrc }) {
                    participants[i].roundTrip = Double(nowTicks &- t1) / Double(RTPMIDI.ticksPerSecond)
                    participants[i].offset = Int64(bitPattern: t2) &- Int64(bitPattern: (t1 &+ nowTicks) / 2)
                }
            default:
                if let i = participants.firstIndex(where: { $0.ssrc == ssrc }) {
                    participants[i].roundTrip = Double(nowTicks &- t2) / Double(RTPMIDI.ticksPerSecond)
                }
            }
        case .feedback(let ssrc, let seq):
            if let i = participants.firstIndex(where: { $0.ssrc == ssrc }) {
                participants[i].lastHeard = now
                participants[i].confirmed = seq
                out.append(.confirmed(ssrc: ssrc, seq: seq))
            }
        case .other:
            break
        }
        return out
    }

    /// What is due by `now`: invitations (first, retried, again after a loss), clock syncs,
    /// participants silent for `timeout` dropped.
    public mutating func tick(now: Double) -> [Action] {
        var out: [Action] = []
        for (ssrc, p) in pending where now - p.lastHeard > settings.inviteInterval * Double(settings.inviteAttempts) {
            pending[ssrc] = nil  // invited on the control port, never came to the data port
        }
        for p in participants where now - p.lastHeard > settings.timeout {
            out += drop(ssrc: p.ssrc, reason: "silent for \(Int(settings.timeout)) s", now: now)
        }
        for t in targets.indices {
            switch targets[t].state {
            case .waiting(let until) where now >= until:
                let token = newToken()
                targets[t].state = .control(token: token, attempts: 1, next: now + settings.inviteInterval)
                out.append(
                    .send(
                        AppleMIDICommand.invitation(token: token, ssrc: settings.ssrc, name: settings.name).encoded(),
                        to: targets[t].control, via: .control))
            case .control(let token, let attempts, let next) where now >= next,
                .data(let token, let attempts, let next, _, _) where now >= next:
                if attempts >= settings.inviteAttempts {
                    targets[t].state = .waiting(until: now + settings.retryAfter)
                    out.append(
                        .log(
                            "RTP-MIDI: \(targets[t].control) does not answer; inviting again in \(Int(settings.retryAfter)) s"
                        ))
                    continue
                }
                let toData: Bool
                if case .data(_, _, _, let s, let n) = targets[t].state {
                    targets[t].state = .data(
                        token: token, attempts: attempts + 1, next: now + settings.inviteInterval, ssrc: s, name: n)
                    toData = true
                } else {
                    targets[t].state = .control(
                        token: token, attempts: attempts + 1, next: now + settings.inviteInterval)
                    toData = false
                }
                out.append(
                    .send(
                        AppleMIDICommand.invitation(token: token, ssrc: settings.ssrc, name: settings.name).encoded(),
                        to: toData ? targets[t].control.dataPort : targets[t].control, via: toData ? .data : .control))
            default:
                break
            }
        }
        out += sync(now: now)
        return out
    }

    /// CK0 to every participant we invited whose sync is due; three unanswered drop it.
    private mutating func sync(now: Double) -> [Action] {
        var out: [Action] = []
        for p in participants where p.invitedByUs {
            guard var s = syncs[p.ssrc], now >= s.next else { continue }
            if s.unanswered >= 3 {
                out += drop(ssrc: p.ssrc, reason: "no answer to clock sync", now: now)
                continue
            }
            s.sent += 1
            s.unanswered += 1
            s.next = now + (s.sent <= settings.fastSyncs ? settings.fastSyncInterval : settings.syncInterval)
            syncs[p.ssrc] = s
            out.append(
                .send(
                    AppleMIDICommand.sync(ssrc: settings.ssrc, count: 0, t1: Self.ticks(now), t2: 0, t3: 0).encoded(),
                    to: p.data, via: .data))
        }
        return out
    }

    private mutating func drop(ssrc: UInt32, reason: String, now: Double) -> [Action] {
        guard let i = participants.firstIndex(where: { $0.ssrc == ssrc }) else { return [] }
        let p = participants.remove(at: i)
        syncs[ssrc] = nil
        var out: [Action] = [.left(p, reason: reason)]
        if let t = targets.firstIndex(where: { $0.control == p.control }) {
            targets[t].state = .waiting(until: now + settings.retryAfter)
            out.append(
                .log("RTP-MIDI: '\(p.name)' (\(p.control)) \(reason); inviting again in \(Int(settings.retryAfter)) s"))
        } else {
            out.append(.log("RTP-MIDI: '\(p.name)' (\(p.control)) \(reason)"))
        }
        return out
    }

    /// The session ends: BY to every participant on its control port.
    public mutating func close() -> [Action] {
        var out: [Action] = []
        for p in participants {
            out.append(
                .send(AppleMIDICommand.bye(token: 0, ssrc: settings.ssrc).encoded(), to: p.control, via: .control))
        }
        participants.removeAll()
        targets.removeAll()
        return out
    }
}
