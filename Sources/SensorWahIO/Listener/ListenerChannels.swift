import Atomics
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection from (or to) a sender. Bytes go straight into the shared core.
final class StreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let core: ListenerCore
    var session: SenderSession?
    /// The connection's guard (an accepted connection), told of each line that gives a reading.
    var guardian: ConnectionGuard?
    let onClose: (@Sendable () -> Void)?

    init(core: ListenerCore, onClose: (@Sendable () -> Void)? = nil) {
        self.core = core
        self.onClose = onClose
    }

    func channelActive(context: ChannelHandlerContext) {
        guardian = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
        session = core.open(context.channel.remoteAddress)
        core.logger.info("sender connected: \(session!.peer)")
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = monotonicNanos()
        core.arriving(true)
        defer { core.arriving(false) }
        let buf = unwrapInboundIn(data)
        guard let s = session else { return }
        let frames = s.parser.stats.frames
        let keep = buf.withUnsafeReadableBytes { core.feed(s, $0, received: received) }
        if s.parser.stats.frames != frames { guardian?.progress() }
        if !keep { context.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            core.logger.info("\(session?.peer ?? "sender"): no data for \(core.config.idleTimeout) s; closing")
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let s = session {
            core.close(s)
            core.logger.info("sender disconnected: \(s.peer)")
        }
        session = nil
        onClose?()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        core.logger.warning("\(session?.peer ?? "sender"): \(error)")
        context.close(promise: nil)
    }
}

/// Writes one line to a connection as soon as it is active and ends its side (a sender the
/// port has no room for is told why); what the sender sends meanwhile is read and dropped, so
/// the line is not lost to a reset, and the connection is closed a second later.
final class SayAndClose: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let line: String
    init(_ line: String) { self.line = line }

    func channelActive(context: ChannelHandlerContext) {
        var buf = context.channel.allocator.buffer(capacity: line.utf8.count)
        buf.writeString(line)
        nonisolated(unsafe) let ctx = context
        context.writeAndFlush(NIOAny(buf)).whenComplete { _ in
            ctx.close(mode: .output, promise: nil)
            ctx.eventLoop.scheduleTask(in: .seconds(1)) { ctx.close(promise: nil) }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

/// UDP: every peer address gets its own session; a datagram ends its last line.
final class DatagramHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let core: ListenerCore
    var peers: [SocketAddress: SenderSession] = [:]
    static let maxPeers = 64

    init(core: ListenerCore) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = monotonicNanos()
        core.arriving(true)
        defer { core.arriving(false) }
        let env = unwrapInboundIn(data)
        let addr = env.remoteAddress
        var session = peers[addr]
        if session == nil {
            guard core.admits(addr) else { return }
            if peers.count >= Self.maxPeers { expireIdle(force: true) }
            guard peers.count < Self.maxPeers else { core.stats.refused += 1; return }
            let s = core.open(addr)
            core.stats.accepted += 1
            core.logger.info("UDP sender: \(s.peer)")
            peers[addr] = s
            session = s
        }
        env.data.withUnsafeReadableBytes { core.feed(session!, $0, received: received, datagram: true) }
    }

    /// Forget peers silent for longer than the idle timeout (or the oldest, when forced).
    func expireIdle(force: Bool = false) {
        let now = monotonicNanos()
        let limit = ListenerCore.nanos(max(core.config.idleTimeout, 1))
        for (a, s) in peers where now &- s.lastDataNanos > limit {
            core.close(s); peers[a] = nil
        }
        if force && peers.count >= Self.maxPeers,
            let oldest = peers.min(by: { $0.value.lastDataNanos < $1.value.lastDataNanos })
        {
            core.close(oldest.value); peers[oldest.key] = nil
        }
    }
}

/// Listens for senders over TCP and UDP and connects to senders acting as servers. All
/// network I/O, parsing and mapping run on one background event loop; mapped events leave
/// through `queue`, and `wake` tells the output thread there is work.
public final class Listener: @unchecked Sendable {
    let group: MultiThreadedEventLoopGroup
    let core: ListenerCore
    var channels: [Channel] = []
    var udpHandlers: [DatagramHandler] = []
    var oscHandlers: [OSCDatagramHandler] = []
    var phyphoxPollers: [PhyphoxPoller] = []
    var stopping = false
    /// The TCP line and OSC ports' connections (`--max-connections` in all).
    let streamTable: ConnectionTable
    var tickTask: RepeatedTask?
    var monitorTask: RepeatedTask?
    var controlTask: RepeatedTask?
    public private(set) var boundAddresses: [String] = []

    public init(
        configuration: ListenerConfiguration, mappings: [Mapping], queue: SPSCQueue<QueuedEvent>,
        wake: @escaping @Sendable () -> Void, arriving: @escaping @Sendable (Bool) -> Void = { _ in },
        logger: Logger
    ) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        core = ListenerCore(
            config: configuration, mappings: mappings, loop: group.next(), queue: queue, wake: wake,
            arriving: arriving, logger: logger)
        streamTable = ConnectionTable(limits: configuration.streamLimits, what: "connection", logger: logger)
    }

    /// Opens every socket; throws if a port cannot be bound.
    public func start() throws {
        let core = self.core
        let config = core.config
        // the run's commands are carried out on this loop, as soon as they are posted
        config.live?.setWake { core.loop.execute { core.drainCommands() } }
        core.loop.execute { core.drainCommands() }
        // a stage machine is busy with audio: ask for real-time scheduling of the input thread
        // (granted to root or with rtprio limits; otherwise it stays a normal thread)
        core.loop.execute {
            var param = sched_param()
            param.sched_priority = OutputPump.networkPriority
            _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        }
        if let port = config.tcpPort {
            try bindStream(port: port, scheme: "tcp", what: "connection") { StreamHandler(core: core) }
        }
        for port in config.udpPorts {
            let handler = DatagramHandler(core: core)
            try bindDatagrams(port: port, scheme: "udp", handler: handler)
            udpHandlers.append(handler)
        }
        for port in config.oscPorts {
            let handler = OSCDatagramHandler(core: core)
            try bindDatagrams(port: port, scheme: "osc.udp", handler: handler)
            oscHandlers.append(handler)
        }
        for port in config.oscTCPPorts {
            try bindStream(port: port, scheme: "osc.tcp", what: "OSC connection") { OSCStreamHandler(core: core) }
        }
        let push = PushSessions(core: core)
        for port in config.httpPorts {
            let table = ConnectionTable(limits: config.webLimits, what: "HTTP push connection", logger: core.logger)
            let server = ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    guard core.admits(channel.remoteAddress) else { return channel.close() }
                    let guardian: ConnectionGuard
                    switch table.admit(channel) {
                    case .failure(let refusal):
                        core.stats.push.refused += 1
                        core.logger.warning(
                            "refused an HTTP push connection from \(channel.remoteAddress?.ipAddress ?? "?"): \(refusal.text)"
                        )
                        return channel.close()
                    case .success(let g): guardian = g
                    }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(guardian)
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(HTTPPushHandler(core: core, shared: push))
                    }
                }
            let ch = try server.bind(host: config.bindHost, port: port).wait()
            noteBound(ch, scheme: "http", port: port)
        }
        // browsers have their own sessions: a phone's browser and Sensor Logger on the same
        // address are two senders of two kinds
        let web = PushSessions(core: core)
        if let port = config.webPort, let certificates = config.webCertificates {
            try bindWeb(port: port, certificates: certificates, push: web)
        }
        for target in config.connect { connect(target, delay: 0) }
        for target in config.phyphox {
            let p = PhyphoxPoller(core: core, group: group, target: target, interval: config.phyphoxInterval)
            phyphoxPollers.append(p)
            core.logger.notice("polling phyphox at http://\(target)/ every \(config.phyphoxInterval) s")
            p.start()
        }
        let udp = udpHandlers
        let osc = oscHandlers
        tickTask = core.loop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) { _ in
            core.tick()
            for h in udp { h.expireIdle() }
            for h in osc { h.expireIdle() }
            push.expireIdle()
            web.expireIdle()
        }
        if config.control != nil {
            controlTask = core.loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
                core.updateControlRates()
            }
        }
        if core.monitor != nil {
            monitorTask = core.loop.scheduleRepeatedTask(initialDelay: .milliseconds(50), delay: .milliseconds(50)) {
                _ in
                core.publishMonitor()
            }
        }
        for a in boundAddresses { core.logger.notice("listening on \(a)") }
    }

    /// Feeds the live view (`--monitor`); set before `start`.
    public var monitor: MonitorFeed? {
        get { core.monitor }
        set { core.monitor = newValue }
    }

    /// A TCP server for stream senders: who may play (`--allow`, `--pair`), room for it among
    /// `--max-connections` (one table for the line and OSC ports), then its guard and the
    /// sender's handler. A sender refused for want of room is told so in a line before the
    /// connection closes. Its address goes into `boundAddresses`.
    private func bindStream(
        port: Int, scheme: String, what: String,
        handler: @escaping @Sendable () -> any ChannelHandler
    ) throws {
        let core = self.core
        let config = core.config
        let table = streamTable
        let server = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let addr = channel.remoteAddress
                guard core.admits(addr) else { return channel.close() }
                switch table.admit(channel) {
                case .failure(let refusal):
                    core.stats.refused += 1
                    core.logger.warning(
                        "refused \(what) from \(addr?.ipAddress ?? "?"): \(refusal.text) (--max-connections \(config.maxConnections))"
                    )
                    let line = "# refused: \(refusal.text) (--max-connections \(config.maxConnections))\n"
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(SayAndClose(line))
                    }
                case .success(let guardian):
                    core.stats.accepted += 1
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(guardian)
                        try channel.pipeline.syncOperations.addHandler(handler())
                    }
                }
            }
        let ch = try server.bind(host: config.bindHost, port: port).wait()
        noteBound(ch, scheme: scheme, port: port)
    }

    /// A UDP socket whose datagrams go to `handler` (one handler per socket: it keeps the peers).
    private func bindDatagrams(port: Int, scheme: String, handler: some ChannelHandler & Sendable) throws {
        let ch = try DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
            .bind(host: core.config.bindHost, port: port).wait()
        noteBound(ch, scheme: scheme, port: port)
    }

    func noteBound(_ ch: Channel, scheme: String, port: Int) {
        channels.append(ch)
        let a = ch.localAddress
        boundAddresses.append("\(scheme)://\(a?.ipAddress ?? core.config.bindHost):\(a?.port ?? port)")
    }

    /// TCP client to a phone acting as server; reconnects with backoff (0.5 s doubling to 8 s).
    func connect(_ target: Endpoint, delay: Double) {
        let core = self.core
        core.loop.scheduleTask(in: .milliseconds(ListenerCore.millis(delay))) { [self] in
            guard !self.stopping else { return }
            let onClose: @Sendable () -> Void = { [self] in
                guard !self.stopping else { return }
                core.stats.reconnects += 1
                core.logger.info("\(target): disconnected; reconnecting in 0.5 s")
                self.connect(target, delay: 0.5)
            }
            ClientBootstrap(group: self.group)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(3))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if core.config.idleTimeout > 0 {
                            try channel.pipeline.syncOperations.addHandler(
                                IdleStateHandler(
                                    readTimeout: .milliseconds(ListenerCore.millis(core.config.idleTimeout))))
                        }
                        try channel.pipeline.syncOperations.addHandler(StreamHandler(core: core, onClose: onClose))
                    }
                }
                .connect(host: target.host, port: target.port)
                .whenComplete { result in
                    switch result {
                    case .success(let ch):
                        core.stats.accepted += 1
                        core.logger.notice("connected to \(target)")
                        core.loop.execute { self.channels.append(ch) }
                    case .failure(let error):
                        let next = min(max(delay * 2, 0.5), 8)
                        core.logger.info("\(target): \(error); retrying in \(next) s")
                        self.connect(target, delay: next)
                    }
                }
        }
    }

    /// Closes every socket and session (recordings flushed and closed), sends every controller
    /// its rest value, and returns the final counts.
    public func stop() -> ListenerStats {
        let core = self.core
        core.config.live?.setWake(nil)
        _ = try? core.loop.submit {
            self.stopping = true
            for p in self.phyphoxPollers { p.stopping = true }
            self.tickTask?.cancel()
            self.monitorTask?.cancel()
            self.controlTask?.cancel()
            for ch in self.channels { ch.close(promise: nil) }
        }.wait()
        // let the close events run, then close what is left
        let stats =
            (try? core.loop.scheduleTask(in: .milliseconds(50)) { () -> ListenerStats in
                core.stopAll()
                for h in self.udpHandlers { h.peers.removeAll() }
                for h in self.oscHandlers { h.peers.removeAll() }
                return core.stats
            }.futureResult.wait()) ?? core.stats
        try? group.syncShutdownGracefully()
        return stats
    }

    /// Runs other mappings from now on (a reloaded configuration), on the network thread:
    /// connections, recordings and the outputs carry on; controllers only the old mappings
    /// drove are sent their rest values.
    public func replaceMappings(_ mappings: [Mapping], texts: [String] = []) {
        let core = self.core
        onLoop {
            core.book.listTexts = texts
            let before = core.handoff.pushed
            core.handoff.stamp(received: monotonicNanos())
            core.pipeline.replaceMappings(core.reassignOSC([mappings])[0])
            if core.handoff.pushed != before { core.wake() }
        }
    }

    /// Recognises another model's gestures and poses (the `--gestures` file reloaded, or taught
    /// live), in every sender from its next frame, on the network thread. The running
    /// mappings and scenes have their `gesture:` and `pose:` sources given the new model's
    /// slots; when one names what the new model lacks, nothing changes and the error is
    /// returned.
    public func replaceLearned(_ model: LearnedModel, file: String? = nil) -> String? {
        let core = self.core
        return onLoop { () -> String? in
            var running = core.pipeline.mapper.mappings
            if let e = LearnedModel.resolve(&running, against: model, file: file) { return e }
            var scenes = core.book.scenes
            for i in scenes.indices {
                if let e = LearnedModel.resolve(&scenes[i].mappings, against: model, file: file) {
                    return "scene '\(scenes[i].name)': \(e)"
                }
            }
            // a gesture keeps its count under its name; a new one starts at 0
            let before = core.learned?.gestures.classes.map(\.name) ?? []
            let counts = core.controlView.learned
            for i in counts.indices {
                let name = i < model.gestures.classes.count ? model.gestures.classes[i].name : nil
                core.controlView.learned[i] = name.flatMap { n in before.firstIndex(of: n).map { counts[$0] } } ?? 0
            }
            core.learned = model
            core.learnedGestureCount = min(model.gestures.classes.count, SensorFrame.learnedGestures)
            for s in core.sessions.values { s.step.motion.replaceLearned(model) }
            core.book.scenes = scenes
            if running != core.pipeline.mapper.mappings {
                let before = core.handoff.pushed
                core.handoff.stamp(received: monotonicNanos())
                core.pipeline.replaceMappings(running, scene: core.book.isEmpty ? nil : core.book.index)
                if core.handoff.pushed != before { core.wake() }
            }
            return nil
        } ?? "the listener has stopped"
    }

    /// The mappings running now (taken on the network thread).
    public func runningMappings() -> [Mapping] {
        let core = self.core
        return onLoop { core.pipeline.mapper.mappings } ?? []
    }

    /// A line for the control page's message (calibration's progress), from any thread.
    public func setControlMessage(_ text: String) {
        let core = self.core
        core.loop.execute { core.controlView.message = text }
    }

    /// Calls `tap` on the network thread with every sender's frame after its motion stage
    /// (before `start`). For tools that read sources rather than send MIDI (`calibrate`).
    public func setFrameTap(_ tap: @escaping (String, SensorFrame) -> Void) {
        core.frameTap = tap
    }

    /// Sets (or, with nil, removes) the frame tap while the listener runs, on the network
    /// thread (the live view's calibrate key).
    public func replaceFrameTap(_ tap: ((String, SensorFrame) -> Void)?) {
        let core = self.core
        nonisolated(unsafe) let t = tap
        onLoop { core.frameTap = t }
    }

    /// The rest orientation a sender captured most recently, with a version that changes on
    /// each capture (0: none yet). Safe from any thread.
    public var capturedRest: (version: Int, gravity: SIMD3<Double>) {
        let v = core.restVersion.load(ordering: .acquiring)
        let g = SIMD3(
            Double(bitPattern: core.restBits.0.load(ordering: .relaxed)),
            Double(bitPattern: core.restBits.1.load(ordering: .relaxed)),
            Double(bitPattern: core.restBits.2.load(ordering: .relaxed)))
        return (v, g)
    }

    /// Hands the commands the listener does not carry out itself (calibrate, teach, reload,
    /// reload the gestures, quit) to `rig`, which runs on the listener's loop (before `start`).
    public func setRig(_ rig: @escaping (LiveCommand) -> LiveOutcome) {
        core.rig = rig
    }

    /// Runs `body` on the listener's loop every `nanos` until the returned cancel is called
    /// (the rig's watch over files, outputs and Program Change inputs).
    public func every(nanos: Int64, _ body: @escaping () -> Void) -> () -> Void {
        nonisolated(unsafe) let body = body
        let task = core.loop.scheduleRepeatedTask(initialDelay: .nanoseconds(nanos), delay: .nanoseconds(nanos)) {
            _ in body()
        }
        return { task.cancel() }
    }

    /// Runs `body` on the listener's loop and returns what it returns: at once when called on
    /// the loop (the rig), else waiting for the loop (nil once the listener has stopped).
    @discardableResult
    public func onLoop<T>(_ body: @escaping () -> T) -> T? {
        if core.loop.inEventLoop { return body() }
        nonisolated(unsafe) let body = body
        return try? core.loop.submit { UncheckedBox(body()) }.wait().value
    }

    /// New scenes from a reloaded configuration: the running scene continues if it is still
    /// there (with its new mappings), else the first one starts.
    public func replaceScenes(_ scenes: [Scene], texts: [[String]] = []) {
        let core = self.core
        onLoop {
            let sets = core.reassignOSC(scenes.map(\.mappings))
            let next = zip(scenes, sets).map { Scene(name: $0.0.name, mappings: $0.1, chain: $0.0.chain) }
            core.switchScene(to: core.book.replace(next, texts: texts))
        }
    }

    /// Counts so far (taken on the event loop).
    public func snapshot() -> ListenerStats {
        let core = self.core
        return
            onLoop { () -> ListenerStats in
                var s = core.stats
                for session in core.sessions.values {
                    s.parser.add(session.parser.stats)
                    if let o = session.osc { s.osc.add(o.builder.stats) }
                    if session.playout != nil { s.timing.append(session.timing) }
                }
                s.mapper = core.pipeline.mapper.stats
                return s
            } ?? core.stats
    }
}

/// A value handed back from the listener's loop to the thread that waits for it.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
