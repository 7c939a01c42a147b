import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime

// `listen --web`: the phone's own browser as the sensor. One HTTPS port serves the page
// (`WebPage`), the authority's certificate (`/ca.crt`, `/ca.mobileconfig`), a WebSocket (`/ws`)
// and, for browsers that cannot open it, HTTPS POST batches (`/batch`); nothing else. Each
// browser is its own sender, `web@ADDRESS/NAME`, whose batches (`BrowserMotion`) become frames
// timed by the browser's own clock and go through the same pipeline as every other input.
// Bounded: a body or message over `maxPushBody` is refused, a connection sending more than
// `WebLimits.batchesPerSecond` batches a second is slowed (the excess refused), and the
// listener's `--allow` and `--pair` rules apply at the connection.

public enum WebLimits {
    /// Batches a connection may send in a second (the page sends 25).
    public static let batchesPerSecond = 100
    /// Largest WebSocket message (and frame).
    public static let maxMessage = 1 << 20
}

/// Counts for the web input.
public struct WebStats: Sendable, Equatable {
    public var pages = 0
    public var batches = 0
    public var frames = 0
    public var refused = 0
    public var webSocketBatches = 0
    public var postBatches = 0
    public var rateLimited = 0
    public var late = 0
    public init() {}
}

extension ListenerCore {
    /// The sender for a browser: by its address and the name it gives.
    func webSession(_ address: SocketAddress?, name: String?, sessions list: inout [SenderSession]) -> SenderSession {
        let ip = address?.ipAddress ?? "unknown"
        // the name has no control characters (BrowserMotion refuses them), so the session's
        // escaped name is this label
        let label = "web@\(ip)" + (name.map { "/" + $0 } ?? "")
        if let s = list.first(where: { $0.name == label }) { return s }
        if list.count >= Self.maxOSCDevicesPerSender, let last = list.last { return last }
        let s = newSession(name: label, peer: label, decoder: .web(WebDecoder()))
        sessions[ObjectIdentifier(s)] = s
        stats.accepted += 1
        logger.info("sender: \(label)")
        list.append(s)
        return s
    }

    /// One batch from a browser: its frames through the pipeline. Returns the frames it gave,
    /// or the refusal.
    func feedWeb(_ bytes: UnsafeRawBufferPointer, from address: SocketAddress?, shared: PushSessions, received: UInt64)
        -> Result<Int, BrowserMotion.Refusal>
    {
        let batch: BrowserMotion.Batch
        do throws(BrowserMotion.Refusal) { batch = try BrowserMotion.decode(bytes) } catch {
            stats.web.refused += 1
            return .failure(error)
        }
        let key = address.map { OSCPeerKey($0) }
        let s = shared.session(key) { list in webSession(address, name: batch.name, sessions: &list) }
        guard case .web(let d) = s.decoder else { return .success(0) }
        s.lastDataNanos = received
        if stats.firstDataNanos == 0 { stats.firstDataNanos = received }
        stats.lastDataNanos = received
        var n = 0, pushed = false
        let lateBefore = d.motion.late
        if let c = d.motion.add(
            batch,
            emit: { frame in
                n += 1
                s.frameLog?.append(frame)
                var derived = frame
                if deliver(&derived, from: s, received: received) { pushed = true }
            })
        {
            logger.info(
                "\(s.name): acceleration sign \(c == .specification ? "as the W3C specification gives it (Chrome, Firefox, recent Safari)" : "inverted (older Safari on iOS)"), read accordingly"
            )
        }
        stats.web.batches += 1
        stats.web.frames += n
        stats.web.late += d.motion.late - lateBefore
        if pushed { wake() }
        return .success(n)
    }
}

/// What the HTTPS port answers: the page, the authority, POST batches; the WebSocket is
/// taken over by the upgrader before this sees it.
final class WebHTTPHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let core: ListenerCore
    let shared: PushSessions
    let certificates: WebCertificates
    var head: HTTPRequestHead?
    var body: [UInt8] = []
    var tooLarge = false
    var limiter = BatchLimiter()
    var controlLimiter = BatchLimiter()

    init(core: ListenerCore, shared: PushSessions, certificates: WebCertificates) {
        self.core = core; self.shared = shared; self.certificates = certificates
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.removeAll(keepingCapacity: true)
            tooLarge =
                h.headers.first(name: "content-length").flatMap(Int.init).map { $0 > core.config.maxPushBody } ?? false
        case .body(var buf):
            guard !tooLarge else { return }
            if body.count + buf.readableBytes > core.config.maxPushBody { tooLarge = true; body.removeAll(); return }
            body += buf.readBytes(length: buf.readableBytes) ?? []
        case .end:
            guard let h = head else { return }
            head = nil
            ConnectionGuard.progress(context)
            answer(context, h)
        }
    }

    func answer(_ context: ChannelHandlerContext, _ h: HTTPRequestHead) {
        let path = h.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? h.uri
        if answerControl(context, h, path: path) { return }
        switch (h.method, path) {
        case (.GET, "/"), (.GET, "/index.html"), (.HEAD, "/"):
            core.stats.web.pages += 1
            respond(context, .ok, type: "text/html; charset=utf-8", Array(WebPage.html.utf8), head: h.method == .HEAD)
        case (.GET, "/ca.crt"):
            respond(
                context, .ok, type: "application/x-x509-ca-cert", certificates.authorityDER,
                extra: [("Content-Disposition", "attachment; filename=\"sensorwah-ca.crt\"")])
        case (.GET, "/ca.mobileconfig"):
            respond(
                context, .ok, type: "application/x-apple-aspen-config", Array(certificates.mobileConfig().utf8),
                extra: [("Content-Disposition", "attachment; filename=\"sensorwah.mobileconfig\"")])
        case (.POST, "/batch"):
            guard Self.sameOrigin(h.headers) else {
                core.stats.web.refused += 1
                respond(context, .forbidden, text: "a page of another site may not send readings here")
                return
            }
            if tooLarge {
                core.stats.web.refused += 1
                respond(context, .payloadTooLarge, text: "body over \(core.config.maxPushBody) bytes", close: true)
                return
            }
            guard limiter.admit(monotonicNanos()) else {
                core.stats.web.rateLimited += 1
                respond(context, .tooManyRequests, text: "more than \(WebLimits.batchesPerSecond) batches a second")
                return
            }
            let received = monotonicNanos()
            let peer = context.channel.remoteAddress
            let r = body.withUnsafeBytes { core.feedWeb($0, from: peer, shared: shared, received: received) }
            switch r {
            case .success(let n):
                core.stats.web.postBatches += 1
                respond(context, .ok, text: "ok: \(n) frames")
            case .failure(let refusal):
                core.logger.warning("\(peer?.ipAddress ?? "?"): web batch refused (400): \(refusal.reason)")
                respond(context, .badRequest, text: refusal.reason)
            }
        case (.GET, "/ws"):
            respond(
                context, Self.sameOrigin(h.headers) ? .badRequest : .forbidden,
                text: Self.sameOrigin(h.headers)
                    ? "a WebSocket: open / on a phone" : "a page of another site may not send readings here")
        case (_, "/"), (_, "/batch"), (_, "/ca.crt"), (_, "/ca.mobileconfig"):
            respond(context, .methodNotAllowed, text: "not with \(h.method)")
        default:
            respond(context, .notFound, text: "nothing here: open / on a phone")
        }
    }

    /// A browser names the page a request comes from (`Origin`): readings are taken only from
    /// SensorWah's own page (a script without one, curl say, is let in).
    static func sameOrigin(_ headers: HTTPHeaders) -> Bool {
        guard let origin = headers.first(name: "origin") else { return true }
        guard let host = headers.first(name: "host") else { return false }
        return origin.lowercased() == "https://" + host.lowercased()
    }

    func respond(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, text: String, close: Bool = false) {
        respond(context, status, type: "text/plain; charset=utf-8", Array((text + "\n").utf8), close: close)
    }

    func respond(
        _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, type: String, _ bytes: [UInt8],
        extra: [(String, String)] = [], head: Bool = false, close: Bool = false
    ) {
        writeHTTPAnswer(
            context, status, type: type, bytes,
            extra: [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")] + extra, headOnly: head,
            close: close)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // a WebSocket upgrade refused (no token, another site's page): the request comes on
        // here as a plain one and gets its answer (401, 403) instead of a silent close
        if error is NIOWebSocketUpgradeError { return }
        core.logger.debug("web connection: \(error)")
        context.close(promise: nil)
    }
}

extension ChannelInboundHandler where OutboundOut == WebSocketFrame {
    /// Writes `frame` (a close frame) and closes the connection once it is written, or after a
    /// second if it cannot be (a client that reads nothing).
    func closeSoon(_ context: ChannelHandlerContext, after frame: WebSocketFrame) {
        nonisolated(unsafe) let ctx = context
        let timeout = context.eventLoop.scheduleTask(in: .seconds(1)) { ctx.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in
            timeout.cancel()
            ctx.close(promise: nil)
        }
    }
}

/// At most `WebLimits.batchesPerSecond` batches in any second, per connection.
struct BatchLimiter {
    var windowStart: UInt64 = 0
    var count = 0
    mutating func admit(_ now: UInt64, limit: Int = WebLimits.batchesPerSecond) -> Bool {
        if now &- windowStart > 1_000_000_000 { windowStart = now; count = 0 }
        count += 1
        return count <= limit
    }
}

/// The WebSocket: each text message is a batch; an answer `ok N` (the frames it gave) or
/// `refused: REASON` goes back, so the page can show that readings arrive. A flood gets no
/// flood of answers: over `WebLimits.batchesPerSecond` messages (pings included) in a second
/// the first one over is told and the rest go unanswered, and four times as many close the
/// socket (policy violation); a ping is answered only when the last pong has been written out.
final class WebSocketBatchHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    let core: ListenerCore
    let shared: PushSessions
    var message: [UInt8] = []
    var limiter = BatchLimiter()
    var guardian: ConnectionGuard?
    var pongPending = false

    init(core: ListenerCore, shared: PushSessions) { self.core = core; self.shared = shared }

    func handlerAdded(context: ChannelHandlerContext) {
        guardian = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .continuation:
            var data = frame.unmaskedData
            if message.count + data.readableBytes > core.config.maxPushBody {
                core.stats.web.refused += 1
                close(context, code: .messageTooLarge)
                return
            }
            message += data.readBytes(length: data.readableBytes) ?? []
            guard frame.fin else { return }
            let bytes = message
            message.removeAll(keepingCapacity: true)
            guard admit(context) else { return }
            let received = monotonicNanos()
            core.arriving(true)
            defer { core.arriving(false) }
            let peer = context.channel.remoteAddress
            switch bytes.withUnsafeBytes({ core.feedWeb($0, from: peer, shared: shared, received: received) }) {
            case .success(let n):
                core.stats.web.webSocketBatches += 1
                guardian?.progress()
                send(context, "ok \(n)")
            case .failure(let r):
                core.logger.warning("\(peer?.ipAddress ?? "?"): web batch refused: \(r.reason)")
                send(context, "refused: \(r.reason)")
            }
        case .binary:
            core.stats.web.refused += 1
            guard admit(context) else { return }
            send(context, "refused: batches are text")
        case .ping:
            guard admit(context) else { return }
            guardian?.progress()
            guard !pongPending else { return }
            pongPending = true
            var d = frame.unmaskedData
            let pong = WebSocketFrame(
                fin: true, opcode: .pong,
                data: d.readSlice(length: d.readableBytes) ?? context.channel.allocator.buffer(capacity: 0))
            context.writeAndFlush(wrapOutboundOut(pong)).whenComplete { [self] _ in pongPending = false }
        case .connectionClose:
            close(context, code: .normalClosure)
        default:
            break
        }
    }

    /// Whether a message may be read and answered now (see the type's comment).
    func admit(_ context: ChannelHandlerContext) -> Bool {
        if limiter.admit(monotonicNanos()) { return true }
        core.stats.web.rateLimited += 1
        if limiter.count == WebLimits.batchesPerSecond + 1 {
            send(
                context,
                "refused: more than \(WebLimits.batchesPerSecond) messages a second (the rest of this second's go unanswered)"
            )
        } else if limiter.count == 4 * WebLimits.batchesPerSecond {
            core.logger.warning(
                "\(context.channel.remoteAddress?.ipAddress ?? "?"): \(limiter.count) WebSocket messages in a second; closed"
            )
            close(context, code: .policyViolation)
        }
        return false
    }

    func send(_ context: ChannelHandlerContext, _ text: String) {
        var buf = context.channel.allocator.buffer(capacity: text.utf8.count)
        buf.writeString(text)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buf)), promise: nil)
    }

    func close(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        var buf = context.channel.allocator.buffer(capacity: 2)
        buf.write(webSocketErrorCode: code)
        closeSoon(context, after: WebSocketFrame(fin: true, opcode: .connectionClose, data: buf))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        core.logger.debug("web socket: \(error)")
        context.close(promise: nil)
    }
}

extension Listener {
    /// The HTTPS server of `--web`: TLS with the local authority's server certificate, HTTP/1.1,
    /// the WebSocket upgrade on `/ws`.
    func bindWeb(port: Int, certificates: WebCertificates, push: PushSessions) throws {
        let core = self.core
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificates.serverChainPEM.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(certificates.serverKeyPEM.utf8), format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        let context = try NIOSSLContext(configuration: tls)
        let table = ConnectionTable(limits: core.config.webLimits, what: "web connection", logger: core.logger)
        let server = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)  // each batch's answer at once
            .childChannelInitializer { channel in
                guard core.admits(channel.remoteAddress) else { return channel.close() }
                let guardian: ConnectionGuard
                switch table.admit(channel) {
                case .failure(let refusal):
                    core.stats.web.refused += 1
                    core.logger.warning(
                        "refused a web connection from \(channel.remoteAddress?.ipAddress ?? "?"): \(refusal.text)")
                    return channel.close()
                case .success(let g): guardian = g
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(guardian)
                    let http = WebHTTPHandler(core: core, shared: push, certificates: certificates)
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: WebLimits.maxMessage,
                        shouldUpgrade: { channel, head in
                            let path = head.uri.split(separator: "?").first
                            guard WebHTTPHandler.sameOrigin(head.headers) else {
                                core.stats.web.refused += 1
                                return channel.eventLoop.makeSucceededFuture(nil)
                            }
                            if path == "/ws" { return channel.eventLoop.makeSucceededFuture(HTTPHeaders()) }
                            // the control page's live state: only with the token (otherwise the
                            // request goes on to the HTTP handler, which answers 401)
                            if path == "/api/live", let c = core.config.control,
                                ControlToken.authorisedSocket(head.headers, c.token)
                            {
                                return channel.eventLoop.makeSucceededFuture(
                                    HTTPHeaders([("Sec-WebSocket-Protocol", "sensorwah-control")]))
                            }
                            if path != "/api/live" { core.stats.web.refused += 1 }
                            return channel.eventLoop.makeSucceededFuture(nil)
                        },
                        upgradePipelineHandler: { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                // the upgrade request is a whole message (a page's socket may
                                // say nothing for a while after it)
                                try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self).progress()
                                if head.uri.split(separator: "?").first == "/api/live" {
                                    try channel.pipeline.syncOperations.addHandler(ControlLiveHandler(core: core))
                                } else {
                                    try channel.pipeline.syncOperations.addHandler(
                                        WebSocketBatchHandler(core: core, shared: push))
                                }
                            }
                        })
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { ctx in
                                ctx.pipeline.syncOperations.removeHandler(http, promise: nil)
                            }
                        ),
                        withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(http)
                }
            }
        let ch = try server.bind(host: core.config.bindHost, port: port).wait()
        noteBound(ch, scheme: "https", port: port)
    }
}
