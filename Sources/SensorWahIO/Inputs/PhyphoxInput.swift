import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime

/// Polls a phone running phyphox with remote access on: `GET /config` once, then `GET /get`
/// for the samples after the last time read, every `interval` seconds. Each request is its own
/// connection (phyphox's server does not keep connections alive). When the phone goes away
/// (refused, timed out, a bad answer) it retries with backoff (0.5 s doubling to 8 s) and
/// reads /config again. Samples are timed by the buffers' own time; the frames feed the
/// listener's pipeline like every other sender (`phyphox@host`).
final class PhyphoxPoller: @unchecked Sendable {
    let core: ListenerCore
    let group: EventLoopGroup
    let target: Endpoint
    let interval: Double
    var poll: PhyphoxPoll?
    /// The last poll state, kept while the phone is away: if it comes back with the same
    /// experiment, reading resumes after the last sample read (nothing twice, nothing lost).
    var stale: PhyphoxPoll?
    var sessions: [SenderSession] = []
    var stopping = false
    var failures = 0
    var measuringLogged: Bool?
    static let maxBody = 64 << 20
    static let timeout = TimeAmount.seconds(3)

    init(core: ListenerCore, group: EventLoopGroup, target: Endpoint, interval: Double) {
        self.core = core
        self.group = group
        self.target = target
        self.interval = interval
    }

    func start() { schedule(after: 0) }

    func schedule(after seconds: Double) {
        core.loop.scheduleTask(in: .milliseconds(ListenerCore.millis(seconds))) { [self] in
            guard !stopping else { return }
            step()
        }
    }

    func step() {
        if let p = poll {
            fetch(p.query) { [self] result in
                switch result {
                case .failure(let why): failed(why.text)
                case .success(let body):
                    let received = monotonicNanos()
                    do throws(SensorLoggerBatch.Refusal) {
                        let read: Result<(SensorLoggerBatch, Bool, Bool?), SensorLoggerBatch.Refusal> =
                            body.withUnsafeBytes { b in
                                do throws(SensorLoggerBatch.Refusal) { return .success(try self.poll!.read(b)) } catch {
                                    return .failure(error)
                                }
                            }
                        let (batch, restarted, measuring) = try read.get()
                        if let m = measuring, m != measuringLogged {
                            measuringLogged = m
                            core.logger.notice(
                                "phyphox at \(target): \(m ? "measuring" : "not measuring (press play on the phone)")")
                        }
                        let s = session()
                        if restarted {
                            s.push?.frames.restart()
                            core.logger.info("phyphox at \(target): the experiment restarted; time continues")
                        }
                        core.stats.phyphox.polls += 1
                        if !batch.samples.isEmpty {
                            core.stats.phyphox.frames += core.feedPush(s, batch, received: received, countAsPush: false)
                        } else {
                            s.lastDataNanos = received
                        }
                        failures = 0
                        schedule(after: interval)
                    } catch {
                        failed(error.reason)
                    }
                }
            }
        } else {
            fetch("/config") { [self] result in
                switch result {
                case .failure(let why): failed(why.text)
                case .success(let body):
                    do throws(SensorLoggerBatch.Refusal) {
                        let parsed: Result<PhyphoxLayout, SensorLoggerBatch.Refusal> = body.withUnsafeBytes { b in
                            do throws(SensorLoggerBatch.Refusal) { return .success(try PhyphoxLayout.parse(b)) } catch {
                                return .failure(error)
                            }
                        }
                        let layout = try parsed.get()
                        if let st = stale, st.layout == layout { poll = st } else { poll = PhyphoxPoll(layout: layout) }
                        stale = nil
                        core.stats.phyphox.connects += 1
                        let what = layout.sensors.map {
                            Source.axis($0.base).description.replacingOccurrences(of: ".x", with: ".*") + " (\($0.t))"
                        }
                        core.logger.notice(
                            "phyphox at \(target): experiment \"\(layout.title)\", reading \(what.joined(separator: ", "))"
                        )
                        failures = 0
                        schedule(after: 0)
                    } catch {
                        failed(error.reason)
                    }
                }
            }
        }
    }

    func failed(_ why: String) {
        guard !stopping else { return }
        core.stats.phyphox.errors += 1
        let wait = min(0.5 * Double(1 << min(failures, 4)), 8)
        failures += 1
        if failures <= 3 || failures % 20 == 0 {
            core.logger.warning("phyphox at \(target): \(why); retrying in \(wait) s")
        }
        if let p = poll { stale = p }
        poll = nil
        schedule(after: wait)
    }

    func session() -> SenderSession {
        core.pushSession(nil, device: nil, sessions: &sessions, app: "phyphox", host: target.description)
    }

    /// One GET on its own connection; the whole body, or why not.
    func fetch(_ path: String, _ done: @escaping (Result<[UInt8], FetchError>) -> Void) {
        let handler = HTTPGetHandler(path: path, host: target.description, done: done, loop: core.loop)
        ClientBootstrap(group: group)
            .connectTimeout(Self.timeout)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHTTPClientHandlers()
                    try ch.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: target.host, port: target.port)
            .whenComplete { r in
                switch r {
                case .success(let ch):
                    ch.eventLoop.scheduleTask(in: Self.timeout) {
                        handler.finish(.failure(FetchError("no answer within 3 s"))); ch.close(promise: nil)
                    }
                case .failure(let e):
                    handler.finish(.failure(FetchError("\(e)")))
                }
            }
    }
}

final class HTTPGetHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    let path: String, host: String
    var done: ((Result<[UInt8], FetchError>) -> Void)?
    let loop: EventLoop
    var body: [UInt8] = []
    var status: HTTPResponseStatus?

    init(path: String, host: String, done: @escaping (Result<[UInt8], FetchError>) -> Void, loop: EventLoop) {
        self.path = path; self.host = host; self.done = done; self.loop = loop
    }

    func finish(_ r: Result<[UInt8], FetchError>) {
        loop.execute { [self] in
            guard let d = done else { return }
            done = nil
            d(r)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "Connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers))),
            promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): status = h.status
        case .body(var b):
            if body.count + b.readableBytes > PhyphoxPoller.maxBody {
                finish(
                    .failure(
                        FetchError("answer over \(PhyphoxPoller.maxBody >> 20) MB (clear the experiment on the phone)"))
                )
                context.close(promise: nil)
                return
            }
            body += b.readBytes(length: b.readableBytes) ?? []
        case .end:
            if status == .ok {
                finish(.success(body))
            } else {
                finish(.failure(FetchError("HTTP \(status.map { "\($0.code)" } ?? "?") for \(path)")))
            }
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(FetchError("connection closed before the answer")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        finish(.failure(FetchError("\(error)")))
        context.close(promise: nil)
    }
}

/// Counts for phyphox polling.
public struct PhyphoxStats: Sendable, Equatable {
    public var connects = 0
    public var polls = 0
    public var frames = 0
    public var errors = 0
    public init() {}
}

struct FetchError: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
