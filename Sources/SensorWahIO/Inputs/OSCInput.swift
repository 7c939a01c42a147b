import Logging
import NIOCore
import NIOPosix
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

// OSC input: each sender (its address, plus the device id where the app sends one) is a
// session of the listener's core, like a line sender: the same pipeline, hand-off, counts and
// rest-after-silence. Packets are decoded in place (no allocation per packet once a sender's
// session exists); each packet gives a frame (see `OSCFrameBuilder`).

extension ListenerCore {
    /// The session for this packet's sender: found by the device id of the packet's first
    /// recognised message among `list` (the sessions of one address or connection), or opened.
    /// A malformed packet goes to the sender's latest session, where it is counted.
    func oscSession(in list: inout [SenderSession], address: SocketAddress?, packet p: UnsafeRawBufferPointer)
        -> SenderSession
    {
        var found: SenderSession?
        if let first = p.first, first == 0x7B {  // ZIG SIM's JSON mode
            let decoded = ZigSimJSON.decode(p)
            if decoded == nil, let last = list.last { return last }  // refused and counted there
            let device = decoded?.device ?? ""
            let bytes = Array(device.utf8)
            if let s = list.first(where: { $0.osc?.app == .zigsim && $0.osc?.device == bytes }) { return s }
            if list.count >= Self.maxOSCDevicesPerSender, let last = list.last { return last }
            let s = bytes.withUnsafeBytes { openOSC(address, app: .zigsim, device: bytes.isEmpty ? nil : $0) }
            list.append(s)
            return s
        }
        OSC.identify(p) { app, device in
            // messages with no built-in address join the sender's first session
            if app == .osc, let first = list.first { found = first; return }
            let n = device?.count ?? 0
            for s in list {
                guard let o = s.osc, o.app == app, o.device.count == n else { continue }
                guard device == nil || o.device.elementsEqual(device!) else { continue }
                found = s
                return
            }
            guard list.count < Self.maxOSCDevicesPerSender else { found = list.last; return }
            let s = openOSC(address, app: app, device: device)
            list.append(s)
            found = s
        }
        if let f = found { return f }
        if let last = list.last { return last }
        let s = openOSC(address, app: .osc, device: nil)
        list.append(s)
        return s
    }

    static let maxOSCDevicesPerSender = 8

    /// A new OSC sender, named `app@host` or `app@host/device` (what `sender=` selects).
    func openOSC(_ address: SocketAddress?, app: OSCApp, device: UnsafeRawBufferPointer?) -> SenderSession {
        let ip = address?.ipAddress ?? "unknown"
        var name = "\(app.rawValue)@\(ip)"
        let dev = device.map { Array($0) } ?? []
        if !dev.isEmpty { name += "/" + String(decoding: dev, as: UTF8.self) }
        let s = newSession(name: name, peer: name, decoder: .osc(OSCDecoder(routes: oscRoutes, app: app, device: dev)))
        sessions[ObjectIdentifier(s)] = s
        stats.accepted += 1
        logger.info("OSC sender: \(name) (from port \(address?.port ?? 0))")
        return s
    }

    /// One OSC packet from a sender: decode, build frames, map, hand off. On the event loop.
    func feedOSC(_ s: SenderSession, _ p: UnsafeRawBufferPointer, received: UInt64) {
        guard let d = s.osc else { return }
        s.lastDataNanos = received
        if stats.firstDataNanos == 0 { stats.firstDataNanos = received }
        stats.lastDataNanos = received
        stats.bytes &+= p.count
        var pushed = false
        if let first = p.first, first == 0x7B { feedZigSimJSON(s, d, p, received: received); return }
        let timed = OSCFrameBuilder.timedBySender(p)
        let error = d.builder.packet(
            p, arrival: received,
            emit: { frame in
                s.frameLog?.append(frame)  // recorded as decoded; derived values are recomputed on replay
                var derived = frame
                if deliver(&derived, from: s, received: received, timed: timed) { pushed = true }
            },
            unused: { m in
                guard detect == nil, d.unusedAddressesLogged < 8 else { return }
                d.unusedAddressesLogged += 1
                logger.notice(
                    "\(s.peer): OSC address \(m.addressString) (,\(m.typeTagString)) has no built-in meaning and no osc: mapping; counted (--detect lists what arrives)"
                )
            })
        if let e = error, !s.malformedLogged {
            s.malformedLogged = true
            logger.warning(
                "\(s.peer): OSC packet of \(p.count) bytes refused: \(e) (counted; further ones are only counted)")
        }
        detect?.see(p, from: s.peer, now: received)
        if pushed { wake() }
    }
}

/// A sender's IP address as a dictionary key (no allocation): OSC senders are told apart by
/// address, app and device id, not by source port (a phone app may send from changing ports,
/// and `oscsend` uses a new one each time).
struct OSCPeerKey: Hashable {
    var family: UInt8 = 0
    var hi: UInt64 = 0
    var lo: UInt64 = 0
    init(_ a: SocketAddress) {
        switch a {
        case .v4(let v): family = 4; lo = UInt64(v.address.sin_addr.s_addr)
        case .v6(let v):
            family = 6
            withUnsafeBytes(of: v.address.sin6_addr) { b in
                hi = b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                lo = b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            }
        default: family = 0
        }
    }
}

extension ListenerCore {
    /// A ZIG SIM JSON datagram (JSON mode allocates; the OSC mode does not).
    func feedZigSimJSON(_ s: SenderSession, _ d: OSCDecoder, _ p: UnsafeRawBufferPointer, received: UInt64) {
        var pushed = false
        let error = d.builder.zigSimJSON(p, arrival: received) { frame in
            s.frameLog?.append(frame)
            var derived = frame
            // ZIG SIM's JSON is timed by its arrival
            if deliver(&derived, from: s, received: received, timed: false) { pushed = true }
        }
        if let e = error, !s.malformedLogged {
            s.malformedLogged = true
            logger.warning(
                "\(s.peer): datagram of \(p.count) bytes refused: \(e) (counted; further ones are only counted)")
        }
        if pushed { wake() }
    }
}

/// OSC over UDP: every source address has its sessions (one per app and device id).
final class OSCDatagramHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let core: ListenerCore
    var peers: [OSCPeerKey: [SenderSession]] = [:]
    static let maxPeers = 64

    init(core: ListenerCore) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = monotonicNanos()
        core.arriving(true)
        defer { core.arriving(false) }
        let env = unwrapInboundIn(data)
        let addr = env.remoteAddress
        let key = OSCPeerKey(addr)
        if peers[key] == nil {
            guard core.admits(addr) else { return }
            if peers.count >= Self.maxPeers { expireIdle(force: true) }
            guard peers.count < Self.maxPeers else { core.stats.refused += 1; return }
            peers[key] = []
        }
        env.data.withUnsafeReadableBytes { p in
            let s = core.oscSession(in: &peers[key, default: []], address: addr, packet: p)
            core.feedOSC(s, p, received: received)
        }
    }

    /// Forget senders silent for longer than the idle timeout (or the oldest, when forced).
    func expireIdle(force: Bool = false) {
        let now = monotonicNanos()
        let limit = ListenerCore.nanos(max(core.config.idleTimeout, 1))
        func last(_ l: [SenderSession]) -> UInt64 { l.map(\.lastDataNanos).max() ?? 0 }
        for (a, list) in peers where now &- last(list) > limit {
            for s in list { core.close(s) }
            peers[a] = nil
        }
        if force && peers.count >= Self.maxPeers, let oldest = peers.min(by: { last($0.value) < last($1.value) }) {
            for s in oldest.value { core.close(s) }
            peers[oldest.key] = nil
        }
    }
}

/// OSC over TCP, packets framed with SLIP (OSC 1.1).
final class OSCStreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let core: ListenerCore
    var slip: SLIPDecoder
    var sessions: [SenderSession] = []
    var address: SocketAddress?

    init(core: ListenerCore) {
        self.core = core
        slip = SLIPDecoder(maxPacket: core.config.maxOSCPacket)
    }

    var peer: String { address.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "sender" }

    func channelActive(context: ChannelHandlerContext) {
        address = context.channel.remoteAddress
        core.logger.info("OSC (SLIP) sender connected: \(peer)")
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = monotonicNanos()
        core.arriving(true)
        defer { core.arriving(false) }
        let buf = unwrapInboundIn(data)
        let tooLongBefore = slip.tooLong, malformedBefore = slip.malformed
        var packets = 0
        buf.withUnsafeReadableBytes { bytes in
            slip.feed(bytes) { packet in
                let s = core.oscSession(in: &sessions, address: address, packet: packet)
                core.feedOSC(s, packet, received: received)
                packets += 1
            }
        }
        if packets > 0 { ConnectionGuard.progress(context) }
        if slip.tooLong != tooLongBefore && tooLongBefore == 0 {
            core.logger.warning("\(peer): an OSC packet over \(core.config.maxOSCPacket) bytes was dropped (counted)")
        }
        if slip.malformed != malformedBefore && malformedBefore == 0 {
            core.logger.warning("\(peer): a SLIP packet with an invalid escape was dropped (counted)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let lost = slip.discardPartial()
        if lost > 0 { core.logger.info("\(peer): connection closed mid-packet; \(lost) bytes dropped") }
        core.stats.osc.tooLong += slip.tooLong
        core.stats.osc.malformed += slip.malformed
        for s in sessions { core.close(s) }
        sessions.removeAll()
        core.logger.info("OSC sender disconnected: \(peer)")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        core.logger.warning("\(peer): \(error)")
        context.close(promise: nil)
    }
}

/// `--detect`: each new address once with its argument types and what SensorWah makes of it,
/// then its values, at most 5 lines a second per address. On stdout.
final class OSCDetect {
    var lastPrinted: [String: UInt64] = [:]
    static let maxAddresses = 512

    func see(_ p: UnsafeRawBufferPointer, from peer: String, now: UInt64) {
        OSC.decode(p) { m in
            let a = m.addressString
            var last = lastPrinted[a]
            if last == nil {
                guard lastPrinted.count < Self.maxAddresses else { return }
                var line = "new address \(a) ,\(m.typeTagString) from \(peer)"
                if let (b, _) = OSCBuiltIn.recognise(m.address) {
                    line +=
                        ": \(b.app.rawValue) " + b.quantities.map { Source.axis($0).description }.joined(separator: " ")
                } else {
                    line += ": use as osc:\(a)" + (m.argumentCount > 1 ? " ... osc:\(a)[\(m.argumentCount - 1)]" : "")
                }
                Self.write(line)
                last = 0
            }
            guard let l = last, l == 0 || now &- l >= 200_000_000 else { return }
            lastPrinted[a] = now
            var values: [String] = []
            let tags = Array(m.typeTags.filter { $0 != 0x5B && $0 != 0x5D })
            for i in 0..<min(m.argumentCount, OSCMessage.storedArguments) {
                let v = m.value(i)
                let tag = i < tags.count ? tags[i] : 0x3F
                if v.isNaN {
                    values.append("<\(Character(Unicode.Scalar(tag)))>")
                } else if tag == 0x66 {
                    values.append("\(Float(v))")  // a float as it was sent
                } else if v == v.rounded() && abs(v) < 1e15 {
                    values.append("\(Int64(v))")
                } else {
                    values.append("\(v)")
                }
            }
            Self.write("\(a) \(values.joined(separator: " "))")
        }
    }

    static func write(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress! + off, $0.count - off) }
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }
}

/// Records a non-text sender's decoded frames as SensorLog-style CSV (`FrameCSVWriter`),
/// which `sensorwah replay` reads back to the same CC stream.
final class FrameRecorder {
    let file: StreamRecorder
    var writer = FrameCSVWriter()
    var line: [UInt8] = []
    var path: String { file.path }

    init?(directory: String, peer: String, logger: Logger) {
        guard let f = StreamRecorder(directory: directory, peer: peer, logger: logger) else { return nil }
        file = f
        line.reserveCapacity(1024)
        Array(FrameCSVWriter.header.utf8).withUnsafeBytes { f.append($0) }
    }

    func append(_ frame: borrowing SensorFrame) {
        line.removeAll(keepingCapacity: true)
        writer.append(frame, to: &line)
        line.withUnsafeBytes { file.append($0) }
    }

    func flush() { file.flush() }
    func close() { file.close() }
}
