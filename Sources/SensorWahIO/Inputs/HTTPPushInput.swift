import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime

// Sensor Logger's HTTP push: the app POSTs a JSON batch every batch period. Each sender
// (address plus the app's deviceId) is a session of the listener's core; its samples are
// ordered by time, merged into frames and fed to the same pipeline as every other input.
// Answers: 200 for a batch used, 400 with a one-line reason for a body that is not a Sensor
// Logger batch, 413 for a body over the size limit, 405 for anything but POST.

extension ListenerCore {
    func pushSession(
        _ address: SocketAddress?, device: String?, sessions list: inout [SenderSession],
        app: String = "sensorlogger", host: String? = nil
    ) -> SenderSession {
        let dev = Array((device ?? "").utf8)
        if let s = list.first(where: { $0.push?.device == dev }) { return s }
        if list.count >= Self.maxOSCDevicesPerSender, let last = list.last { return last }
        let ip = host ?? address?.ipAddress ?? "unknown"
        var name = "\(app)@\(ip)"
        if !dev.isEmpty { name += "/" + String(decoding: dev, as: UTF8.self) }
        let s = newSession(name: name, peer: name, decoder: .push(PushDecoder(device: dev)))
        sessions[ObjectIdentifier(s)] = s
        stats.accepted += 1
        logger.info("sender: \(name)")
        list.append(s)
        return s
    }

    /// One batch; returns the frames it gave.
    func feedPush(_ s: SenderSession, _ batch: SensorLoggerBatch, received: UInt64, countAsPush: Bool = true) -> Int {
        guard let d = s.push else { return 0 }
        s.lastDataNanos = received
        if stats.firstDataNanos == 0 { stats.firstDataNanos = received }
        stats.lastDataNanos = received
        var pushed = false
        var n = 0
        let lateBefore = d.frames.late
        if let id = batch.sessionId {
            if let last = d.sessionId, last != id {
                d.frames.restart()
                logger.info("\(s.name): a new recording session (\(id)); time continues")
            }
            d.sessionId = id
        }
        d.frames.add(batch) { frame in
            n += 1
            s.frameLog?.append(frame)  // recorded as decoded; derived values are recomputed on replay
            var derived = frame
            if deliver(&derived, from: s, received: received) { pushed = true }
        }
        if countAsPush {
            stats.push.batches += 1
            stats.push.frames += n
            stats.push.late += d.frames.late - lateBefore
            stats.push.otherSensors += batch.otherSensors
        }
        if pushed { wake() }
        return n
    }
}

/// Counts for HTTP push input.
public struct PushStats: Sendable, Equatable {
    public var batches = 0
    public var frames = 0
    public var refused = 0
    public var tooLarge = 0
    /// Samples older than frames already sent (a late batch): dropped.
    public var late = 0
    /// Entries of sensors SensorWah does not read (location, microphone, …).
    public var otherSensors = 0
    public init() {}
}

final class HTTPPushHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let core: ListenerCore
    var body: [UInt8] = []
    var head: HTTPRequestHead?
    var tooLarge = false
    var sessions: [SenderSession]
    let shared: PushSessions

    init(core: ListenerCore, shared: PushSessions) {
        self.core = core
        self.shared = shared
        sessions = []
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.removeAll(keepingCapacity: true)
            tooLarge = false
            if let len = h.headers.first(name: "content-length").flatMap(Int.init), len > core.config.maxPushBody {
                tooLarge = true
            }
        case .body(var buf):
            guard !tooLarge else { return }
            if body.count + buf.readableBytes > core.config.maxPushBody {
                tooLarge = true
                body.removeAll()
                return
            }
            body += buf.readBytes(length: buf.readableBytes) ?? []
        case .end:
            guard let h = head else { return }
            head = nil
            ConnectionGuard.progress(context)
            let received = monotonicNanos()
            let peer = context.channel.remoteAddress
            if tooLarge {
                core.stats.push.tooLarge += 1
                core.logger.warning(
                    "\(peer?.ipAddress ?? "?"): HTTP body over \(core.config.maxPushBody) bytes refused (413)")
                respond(context, .payloadTooLarge, "body over \(core.config.maxPushBody) bytes", close: true)
                return
            }
            guard h.method == .POST else {
                respond(context, .methodNotAllowed, "POST Sensor Logger's JSON batches here")
                return
            }
            let result: Result<SensorLoggerBatch, SensorLoggerBatch.Refusal> = body.withUnsafeBytes { b in
                do throws(SensorLoggerBatch.Refusal) { return .success(try SensorLoggerBatch.decode(b)) } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .failure(let r):
                core.stats.push.refused += 1
                core.logger.warning("\(peer?.ipAddress ?? "?"): HTTP push refused (400): \(r.reason)")
                respond(context, .badRequest, r.reason)
            case .success(let batch):
                let key = peer.map { OSCPeerKey($0) }
                let s = shared.session(key) { list in core.pushSession(peer, device: batch.deviceId, sessions: &list) }
                let n = core.feedPush(s, batch, received: received)
                respond(context, .ok, "ok: \(n) frames")
            }
        }
    }

    func respond(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ text: String, close: Bool = false) {
        writeHTTPAnswer(context, status, type: "text/plain; charset=utf-8", Array((text + "\n").utf8), close: close)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        core.logger.info("HTTP push connection: \(error)")
        context.close(promise: nil)
    }
}

/// One whole HTTP/1.1 answer on a server pipeline (head, body, end), then the connection
/// closed when `close`; `headOnly` leaves the body out (a HEAD request).
func writeHTTPAnswer(
    _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, type: String, _ bytes: [UInt8],
    extra: [(String, String)] = [], headOnly: Bool = false, close: Bool = false
) {
    var headers = HTTPHeaders()
    headers.add(name: "Content-Type", value: type)
    headers.add(name: "Content-Length", value: "\(bytes.count)")
    for (k, v) in extra { headers.add(name: k, value: v) }
    if close { headers.add(name: "Connection", value: "close") }
    context.write(
        NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
        promise: nil)
    if !headOnly {
        var buf = context.channel.allocator.buffer(capacity: bytes.count)
        buf.writeBytes(bytes)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buf))), promise: nil)
    }
    let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
    if close { done.whenComplete { _ in context.close(promise: nil) } }
}

/// Push senders outlive their connections (the app may open a new one per batch): sessions
/// are kept per address, on the event loop, and expired when silent like UDP senders.
final class PushSessions: @unchecked Sendable {
    let core: ListenerCore
    var byPeer: [OSCPeerKey?: [SenderSession]] = [:]
    init(core: ListenerCore) { self.core = core }

    func session(_ key: OSCPeerKey?, _ make: (inout [SenderSession]) -> SenderSession) -> SenderSession {
        make(&byPeer[key, default: []])
    }

    func expireIdle() {
        let now = monotonicNanos()
        let limit = ListenerCore.nanos(max(core.config.idleTimeout, 1))
        for (k, list) in byPeer where now &- (list.map(\.lastDataNanos).max() ?? 0) > limit {
            for s in list { core.close(s) }
            byPeer[k] = nil
        }
    }
}
