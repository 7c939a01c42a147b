import Atomics
import Logging
import NIOCore
import NIOPosix
import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime

public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public init(host: String, port: Int) { self.host = host; self.port = port }
    /// `HOST:PORT`, `[v6]:PORT`, or `PORT` alone (localhost).
    public init?(parsing s: String, defaultHost: String = "127.0.0.1") {
        if let p = Int(s) {
            self.init(host: defaultHost, port: p); guard (1...65535).contains(p) else { return nil }; return
        }
        var hostPart: Substring
        var portPart: Substring
        if s.hasPrefix("["), let close = s.firstIndex(of: "]") {
            hostPart = s[s.index(after: s.startIndex)..<close]
            portPart = s[s.index(after: close)...].drop { $0 == ":" }
        } else {
            guard let colon = s.lastIndex(of: ":") else { return nil }
            hostPart = s[..<colon]
            portPart = s[s.index(after: colon)...]
        }
        guard let p = Int(portPart), (0...65535).contains(p), !hostPart.isEmpty else { return nil }
        self.init(host: String(hostPart), port: p)
    }
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public struct ListenerConfiguration: Sendable {
    public var bindHost = "0.0.0.0"
    /// TCP server port (nil: no server). 0 picks a free port.
    public var tcpPort: Int? = 56204
    /// Phones acting as servers that we connect to, reconnecting with backoff.
    public var connect: [Endpoint] = []
    public var udpPorts: [Int] = []
    /// OSC over UDP, and OSC over TCP with SLIP framing (0 picks a free port).
    public var oscPorts: [Int] = []
    public var oscTCPPorts: [Int] = []
    /// Print each new OSC address once with its argument types, then its values (`--detect`).
    public var oscDetect = false
    /// Largest OSC packet accepted over TCP (SLIP); UDP datagrams are bounded by UDP itself.
    public var maxOSCPacket = 65_536
    /// Sensor Logger HTTP push ports (0 picks a free port), and the largest body accepted.
    public var httpPorts: [Int] = []
    public var maxPushBody = 4 << 20
    /// The phone's browser as the sensor (`--web`): the HTTPS port (0 picks a free one) and the
    /// certificates it serves with.
    public var webPort: Int?
    public var webCertificates: WebCertificates?
    /// The control page and its API on the `--web` port (`/control`, `/api/...`); nil: none.
    public var control: ControlHooks?
    /// The run's control plane (the solo the pipeline follows); nil: every mapping sends.
    public var live: LiveControl?
    /// The mappings' texts as given (`--map` syntax) for the control API, and each scene's;
    /// where missing, a mapping is shown in its full syntax.
    public var mappingTexts: [String] = []
    public var sceneTexts: [[String]] = []
    /// Phones running phyphox with remote access, polled every `phyphoxInterval` seconds.
    public var phyphox: [Endpoint] = []
    public var phyphoxInterval = 0.05
    /// Address blocks senders may come from; empty means the local networks only
    /// (`CIDR.localNetworks`). `CIDR.everywhere` lets anyone in.
    public var allow: [CIDR] = []
    /// Pair mode: the first sender allowed in (or the one at `pairWith`) is the only one until
    /// the listener stops; every other address is ignored, and logged once.
    public var pair = false
    public var pairWith: String?
    /// Scenes to switch between (`nextScene`, SIGUSR2, a gesture), and the one running first.
    public var scenes: [Scene] = []
    public var startScene = 0
    /// A gesture that moves to the next scene.
    public var sceneGesture: Gesture?
    public var maxConnections = 16
    /// Seconds without a complete message (a line that gives a reading, a request, a WebSocket
    /// message) before a connection is closed (0: never).
    public var idleTimeout = 60.0
    /// Seconds an HTTP or HTTPS connection has for its TLS handshake and first request.
    public var firstRequestDeadline = 10.0
    /// The TCP line and OSC ports' connections: `maxConnections` in all, half of them (4 at
    /// least) from one address.
    public var streamLimits: ConnectionLimits {
        ConnectionLimits(
            total: maxConnections, perAddress: min(maxConnections, max(4, maxConnections / 2)),
            firstMessageDeadline: 0, idle: idleTimeout)
    }
    /// The `--web` and HTTP push ports' connections: a browser opens a few (the page, the
    /// socket, posts), so four for each sender `maxConnections` allows, 16 from one address.
    public var webLimits: ConnectionLimits {
        ConnectionLimits(
            total: 4 * maxConnections, perAddress: min(4 * maxConnections, 16),
            firstMessageDeadline: firstRequestDeadline, idle: idleTimeout)
    }
    /// Seconds of silence from a sender before its controllers are sent their rest values (0: never).
    public var restAfter = 2.0
    /// When each sender's readings are played (`--playout`): as they arrive, or at the sender's
    /// own time mapped onto the local clock plus a delay (fixed, or what its delivery needs).
    public var playout = Playout.Mode.off
    /// Where the senders' timing is shown while a playout runs (nil: nowhere).
    public var timingBoard: TimingBoard?
    public var maxLineLength = 16_384
    public var parser = ParserOptions()
    public var recordDirectory: String?
    /// Tilt and gestures, one `MotionStage` per sender.
    public var motion = MotionSettings()
    public init() {}
}

/// Counts kept by the listener (read them after `stop()`, or through `snapshot()`).
public struct ListenerStats: Sendable {
    public var accepted = 0
    public var refused = 0
    /// Senders ignored because the listener is paired with another.
    public var pairRefused = 0
    public var reconnects = 0
    public var parser = ParserStats()
    public var mapper = MapperStats()
    public var partialLinesLost = 0
    /// Stream senders disconnected for a line longer than the maximum.
    public var cutOff = 0
    public var queueDrops = 0
    public var recordings: [String] = []
    public var osc = OSCStats()
    /// Every sender's name (what `sender=` selects), in the order they ended.
    public var senderNames: [String] = []
    public var push = PushStats()
    public var web = WebStats()
    public var phyphox = PhyphoxStats()
    /// Line read off the socket -> message in the output queue, on the network thread.
    public var handoff = LatencyHistogram()
    /// Each sender's timing (`--playout`): the senders that ended, in the order they ended;
    /// `Listener.snapshot()` adds the ones still connected.
    public var timing: [SenderTiming] = []
    /// The sender names behind `QueuedEvent.sender`: slot i is `latencySlots[i]`, given to a
    /// name at its first frame (senders of one name share a slot, so reconnections add none).
    /// The first `maxLatencySlots - 1` names have a slot each; every further one shares the
    /// last, named "other senders". A note-off that comes due while another sender's frame is
    /// processed counts for that sender.
    public var latencySlots: [String] = []
    public static let maxLatencySlots = 256
    /// First and last moment data arrived (monotonic ns), for throughput.
    public var firstDataNanos: UInt64 = 0
    public var lastDataNanos: UInt64 = 0
    public var bytes = 0
}

/// What turns one sender's bytes into frames: a decoder of its input's kind, holding that
/// kind's state. Each is a class, so the listener works on it in place (no copy per packet).
enum SenderDecoder {
    /// Text lines (TCP, UDP, a phone acting as server), read by the session's parser.
    case lines(LineDecoder)
    /// OSC packets over UDP or TCP, ZIG SIM's JSON datagrams.
    case osc(OSCDecoder)
    /// JSON batches of samples: Sensor Logger's HTTP push, phyphox's polls.
    case push(PushDecoder)
    /// A phone's browser (`--web`).
    case web(WebDecoder)
}

/// A line sender's framer and its verbatim recording (`--record`).
final class LineDecoder {
    var framer: LineFramer
    var recorder: StreamRecorder?
    /// `--record`: the folder this sender's file goes to once its first byte arrives (a
    /// connection that never sends leaves no empty file behind).
    var recordDirectory: String?
    /// A line passed the maximum length (stream senders are then disconnected).
    var overLong = false
    init(maxLineLength: Int, recordDirectory: String?) {
        framer = LineFramer(maxLineLength: maxLineLength)
        self.recordDirectory = recordDirectory
    }
}

/// An OSC sender: packets to frames, and what told it apart (its app, its device id).
final class OSCDecoder {
    var builder: OSCFrameBuilder
    let app: OSCApp
    let device: [UInt8]
    var unusedAddressesLogged = 0
    init(routes: OSCRoutes, app: OSCApp, device: [UInt8]) {
        builder = OSCFrameBuilder(routes: routes)
        self.app = app
        self.device = device
    }
}

/// A sender of sample batches: samples to frames, its device id, the recording session it is in.
final class PushDecoder {
    var frames = SensorLoggerFrames()
    let device: [UInt8]
    var sessionId: String?
    init(device: [UInt8]) { self.device = device }
}

/// A phone's browser: its batches to frames.
final class WebDecoder {
    var motion = BrowserMotion()
}

/// One sender: its decoder, its parser (its header and its counts) and its motion stage.
final class SenderSession {
    /// What `sender=` in mappings selects: `app@host[/device]` (a line sender is named after
    /// its format once the parser knows it, e.g. `sensorlog@192.168.1.20`; before that, its
    /// address). The host alone, the app alone and the device id alone match too.
    var name: String { didSet { latencySlot = nil; step.sender = name } }
    /// The slot of `name` among the listener's latency slots (nil until its first message).
    var latencySlot: UInt16?
    let host: String
    var named = false
    let peer: String  // address:port, for logs and file names
    let decoder: SenderDecoder
    /// The sender's counts, whatever its kind; for a line sender, also its reader (its own header).
    var parser: SensorParser
    var frame = SensorFrame()
    /// The frame step: this sender's motion stage (its state must not mix with another's).
    var step: FrameStep
    /// The rest orientation last published for saving (`ListenerCore.savedRest`).
    var publishedRest: Vector3?
    /// `--record` for senders whose frames are decoded from packets or batches: the frames as
    /// decoded (a line sender's recording is its bytes, in its `LineDecoder`).
    var frameLog: FrameRecorder?
    var malformedLogged = false
    var lastFrameNanos: UInt64 = 0
    var lastDataNanos: UInt64
    /// The last frame's tilt (degrees), and the frame itself, kept for the control page.
    var tilt = (pitch: Double.nan, roll: Double.nan)
    var lastFrame = SensorFrame()
    var rested = true
    var loggedReasons: UInt32 = 0
    var closed = false
    /// When this sender's readings are played (nil: as they arrive, `--playout off`), and how
    /// many of its readings carried no time of the sender's own (played as they arrived).
    var playout: Playout?
    var untimed = 0

    init(
        name: String, peer: String, decoder: SenderDecoder, config: ListenerConfiguration, learned: LearnedModel?,
        playout: Playout.Mode
    ) {
        self.name = name
        self.host = name
        self.peer = peer
        self.decoder = decoder
        parser = SensorParser(options: config.parser)
        if playout != .off { self.playout = Playout(mode: playout) }
        var settings = config.motion
        settings.learned = learned  // the running model: the configuration's, or one taught or reloaded since
        step = FrameStep(sender: name, motion: settings)
        lastDataNanos = monotonicNanos()
    }

    /// The release time (monotonic ns, 0: at once) of a reading that arrived at `received`:
    /// with a playout and the sender's own time, that time mapped onto the local clock plus
    /// the delay; otherwise at once.
    @inline(__always)
    func due(senderTime: Double, timed: Bool, received: UInt64) -> UInt64 {
        guard playout != nil else { return 0 }
        guard timed, senderTime.isFinite else {
            untimed &+= 1
            return 0
        }
        // a late reading's release is its arrival: it goes through the held ones in its turn
        guard let d = playout?.schedule(senderTime: senderTime, arrival: Double(received) * 1e-9) else { return 0 }
        return max(1, UInt64(d.release * 1e9))
    }

    /// This sender's timing for the live view, the control page and `--latency`.
    var timing: SenderTiming {
        var t = SenderTiming(name: name)
        if let p = playout {
            t.mode = p.mode
            t.readings = p.count
            t.untimed = untimed
            t.late = p.lateCount
            t.delay = p.delay
            t.jitter = p.lateness(quantile: 0.99) - p.lateness(quantile: 0.01)
        }
        return t
    }

    /// The OSC decoder of an OSC sender (nil for every other kind).
    var osc: OSCDecoder? { if case .osc(let d) = decoder { d } else { nil } }
    /// The batch decoder of a Sensor Logger or phyphox sender (nil for every other kind).
    var push: PushDecoder? { if case .push(let d) = decoder { d } else { nil } }

    /// Writes what the recordings hold so far.
    func flushRecordings() {
        if case .lines(let d) = decoder { d.recorder?.flush() }
        frameLog?.flush()
    }
}

/// The shared state of a listener: the pipeline and every session. Confined to the listener's
/// single event loop thread (hence `@unchecked Sendable`; the entry points that change it
/// assert they run there, in debug builds): parsing and mapping happen there,
/// and mapped events are handed to the output thread through a lock-free queue.
final class ListenerCore: @unchecked Sendable {
    let config: ListenerConfiguration
    let loop: EventLoop
    let logger: Logger
    /// The one pipeline every sender feeds; its output hands events to the output thread.
    var pipeline: Pipeline
    let handoff: QueueOutput
    var queue: SPSCQueue<QueuedEvent> { handoff.queue }
    let wake: @Sendable () -> Void
    /// Told when a read begins (true) and ends (false), so the output thread can wake while
    /// the bytes are parsed (see `OutputPump.arriving`).
    let arriving: @Sendable (Bool) -> Void
    var sessions: [ObjectIdentifier: SenderSession] = [:]
    /// Closed sessions whose controllers still wait for their rest values.
    var departed: [SenderSession] = []
    var stats = ListenerStats()
    /// `osc:` mapping sources: address and argument to a custom slot of the frame.
    var oscRoutes: OSCRoutes
    var detect: OSCDetect?
    /// The live view's feed (`--monitor`): frames noted here, a picture published every 50 ms.
    var monitor: MonitorFeed?
    /// Carries out the commands the listener leaves to the rig (`Listener.setRig`), on this loop.
    var rig: ((LiveCommand) -> LiveOutcome)?

    init(
        config: ListenerConfiguration, mappings: [Mapping], loop: EventLoop, queue: SPSCQueue<QueuedEvent>,
        wake: @escaping @Sendable () -> Void, arriving: @escaping @Sendable (Bool) -> Void = { _ in },
        logger: Logger
    ) {
        self.config = config
        self.loop = loop
        self.logger = logger
        self.handoff = QueueOutput(queue: queue)
        // osc: sources get their frame slots over every mapping set at once (the mappings and
        // every scene), so a scene switch keeps them
        var sets = [mappings] + config.scenes.map(\.mappings)
        let (routes, error) = Self.assignOSC(&sets)
        if let error { logger.error("\(error)") }
        self.oscRoutes = routes
        book = SceneBook(
            scenes: zip(config.scenes, sets.dropFirst()).map {
                Scene(name: $0.0.name, mappings: $0.1, chain: $0.0.chain)
            },
            start: config.startScene, listTexts: config.mappingTexts, sceneTexts: config.sceneTexts)
        self.pipeline = Pipeline(mappings: book.current?.mappings ?? sets[0], outputs: [handoff], control: config.live)
        self.wake = wake
        self.arriving = arriving
        if config.oscDetect { detect = OSCDetect() }
    }

    /// Assigns `osc:` slots across several mapping sets (shared addresses share a slot).
    static func assignOSC(_ sets: inout [[Mapping]]) -> (OSCRoutes, error: String?) {
        var all = sets.flatMap { $0 }
        let (routes, error) = OSCRoutes.assign(&all)
        var k = 0
        for i in sets.indices {
            for j in sets[i].indices { sets[i][j] = all[k]; k += 1 }
        }
        return (routes, error)
    }

    /// New mapping sets while running (a reloaded configuration): new slots for `osc:` sources,
    /// told to every OSC sender; returns the sets with their slots.
    func reassignOSC(_ sets: [[Mapping]]) -> [[Mapping]] {
        var s = sets
        let (routes, error) = Self.assignOSC(&s)
        if let error { logger.error("\(error)") }
        oscRoutes = routes
        for session in sessions.values { session.osc?.builder.routes = routes }
        return s
    }

    /// The mapping sets: the list's or the scenes' texts, and the scene playing.
    var book: SceneBook
    /// What the control page shows besides: frame rates, gestures fired, the latest news.
    var controlView = ControlView()
    /// The taught gestures and poses running now (`config.motion`'s until one is taught or
    /// reloaded: `Listener.replaceLearned`), and how many gestures it has.
    lazy var learned: LearnedModel? = config.motion.learned
    lazy var learnedGestureCount = min(config.motion.learned?.gestures.classes.count ?? 0, SensorFrame.learnedGestures)
    /// A new sender's session, with the running taught model.
    /// A sender's session. Its name and peer may carry what the sender chose (a device name):
    /// they are kept with control characters escaped, as every terminal and log shows them.
    func newSession(name: String, peer: String, decoder: SenderDecoder) -> SenderSession {
        let s = SenderSession(
            name: TerminalText.escaped(name, limit: 200), peer: TerminalText.escaped(peer, limit: 200),
            decoder: decoder, config: config, learned: learned, playout: playoutMode)
        if case .lines = decoder { return s }
        if let dir = config.recordDirectory, let r = FrameRecorder(directory: dir, peer: s.name, logger: logger) {
            s.frameLog = r
            stats.recordings.append(r.path)
        }
        return s
    }

    @inline(__always)
    func noteForControl(_ s: SenderSession, _ frame: borrowing SensorFrame) {
        s.lastFrame = copy frame
        guard frame.newGroups & SensorGroup.derived.bit != 0 else { return }
        s.tilt = (frame[.tiltPitch], frame[.tiltRoll])
        controlView.count(frame, learnedCount: learnedGestureCount)
    }

    /// Switches to scene `index` on the network thread: a hand-over, never a stuck controller.
    func switchScene(to index: Int) {
        loop.assertInEventLoop()
        guard let scene = book.select(index) else { return }
        let i = book.index
        let before = handoff.pushed
        handoff.stamp(received: monotonicNanos())
        pipeline.replaceMappings(scene.mappings, scene: i)
        logger.notice(
            "scene '\(scene.name)' (\(i + 1) of \(book.scenes.count)): \(scene.mappings.count) mapping\(scene.mappings.count == 1 ? "" : "s")"
        )
        if handoff.pushed != before { wake() }
    }

    /// A frame from sender `s`, whatever its input (lines, OSC, HTTP push, phyphox): its motion
    /// stage (derived values written into `frame`), the live view, the scene gesture and rest
    /// capture, then the pipeline. True when it sent events (its latency is recorded).
    @inline(__always)
    /// `timed`: the frame's time is the sender's own (a timestamp it wrote), not its arrival or
    /// a count of samples at an assumed rate; only such frames are scheduled by a playout.
    func deliver(_ frame: inout SensorFrame, from s: SenderSession, received: UInt64, timed: Bool = true) -> Bool {
        loop.assertInEventLoop()
        // after the rest values at exit nothing more is sent (a connection still open delivers
        // until its channel closes)
        guard !finished else { return false }
        s.lastFrameNanos = received
        s.rested = false
        let due = s.due(senderTime: frame.latestTime, timed: timed, received: received)
        if s.step.derive(&frame, motionNeeded: motionNeeded, monitor: monitor) {
            logger.notice("\(s.step.accelerometerOnlyNotice)")
        }
        if config.control != nil { noteForControl(s, frame) }
        afterMotion(s, frame)
        let before = handoff.pushed
        handoff.stamp(received: received, sender: s.latencySlot ?? latencySlot(for: s), due: due)
        pipeline.process(frame, sender: s.name)
        guard handoff.pushed != before else { return false }
        stats.handoff.record(nanos: monotonicNanos() &- received)
        return true
    }

    /// Whether anything reads what the motion stage computes: a mapping of the running set or
    /// of any scene, the live view, the scene gesture or a frame tap (`calibrate`). As in
    /// `replay`, mappings of raw axes alone skip the stage (what it costs a line: the
    /// `parse+motion+map` cases of `ParseMapBenchmarks`, docs/performance.md).
    @inline(__always)
    var motionNeeded: Bool {
        scenesNeedMotion || monitor != nil || frameTap != nil || config.control != nil || config.sceneGesture != nil
            || pipeline.mapper.needsMotionStage
    }
    private(set) lazy var scenesNeedMotion = book.scenes.contains { $0.mappings.contains { $0.needsMotionStage } }

    /// The sender's slot for the output thread's per-sender latency, found once per name.
    func latencySlot(for s: SenderSession) -> UInt16 {
        let limit = ListenerStats.maxLatencySlots
        let i: Int
        if let known = stats.latencySlots.firstIndex(of: s.name) {
            i = known
        } else if stats.latencySlots.count < limit - 1 {
            i = stats.latencySlots.count
            stats.latencySlots.append(s.name)
        } else {
            if stats.latencySlots.count < limit { stats.latencySlots.append("other senders") }
            i = limit - 1
        }
        s.latencySlot = UInt16(i)
        return UInt16(i)
    }

    /// Sees every frame after its sender's motion stage (`calibrate` reads the sources here).
    var frameTap: ((String, SensorFrame) -> Void)?

    /// After a sender's frame went through its motion stage: the scene gesture moves on, and a
    /// tap, if one is set, sees the frame.
    @inline(__always)
    func afterMotion(_ s: SenderSession, _ frame: borrowing SensorFrame) {
        if let g = s.step.motion.restGravity, !s.step.motion.restIsStartingPose, g != s.publishedRest {
            s.publishedRest = g; publishRest(g)
        }
        afterMotion(s.name, frame)
    }

    /// The last rest orientation a sender captured (re-zero), for the main thread to save:
    /// its components' bit patterns and a version that counts captures.
    let restBits = (ManagedAtomic<UInt64>(0), ManagedAtomic<UInt64>(0), ManagedAtomic<UInt64>(0))
    let restVersion = ManagedAtomic<Int>(0)
    func publishRest(_ g: Vector3) {
        restBits.0.store(g.x.bitPattern, ordering: .relaxed)
        restBits.1.store(g.y.bitPattern, ordering: .relaxed)
        restBits.2.store(g.z.bitPattern, ordering: .relaxed)
        restVersion.wrappingIncrement(ordering: .releasing)
    }

    @inline(__always)
    func afterMotion(_ sender: String, _ frame: borrowing SensorFrame) {
        if let g = config.sceneGesture, frame[g.quantity] > 0 { switchScene(to: book.index + 1) }
        if let tap = frameTap { tap(sender, copy frame) }
    }

    /// Who may play (`--allow`, `--pair`).
    lazy var admission = Admission(allow: config.allow, pair: config.pair, pairWith: config.pairWith)

    /// Whether a sender at `address` may play (see `Admission`). Logs each refused address
    /// once and counts every refusal.
    func allowed(_ address: SocketAddress?) -> Bool {
        switch admission.judge(address) {
        case .admitted: return true
        case .pairedNow(let ip):
            logger.notice("paired with \(ip): every other sender is ignored until restart (--pair)")
            return true
        case .outsideAllow(let ip, let first):
            if first { logger.warning("refused \(ip): \(admission.allowText)") }
            return false
        case .notPaired(let ip, let first):
            stats.pairRefused += 1
            if first {
                logger.warning("ignored \(ip): paired with \(admission.paired ?? config.pairWith ?? "?") (--pair)")
            }
            return false
        case .unknown: return false
        }
    }

    /// A new sender (a TCP, OSC-over-TCP or HTTP connection, or the first datagram from an
    /// address) may play: see `allowed`; one that may not is counted as refused.
    func admits(_ address: SocketAddress?) -> Bool {
        guard allowed(address) else {
            stats.refused += 1
            return false
        }
        return true
    }

    func open(_ address: SocketAddress?) -> SenderSession {
        loop.assertInEventLoop()
        let name = address?.ipAddress ?? "unknown"
        let peer = address.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "unknown"
        let s = newSession(
            name: name, peer: peer,
            decoder: .lines(LineDecoder(maxLineLength: config.maxLineLength, recordDirectory: config.recordDirectory)))
        sessions[ObjectIdentifier(s)] = s
        return s
    }

    /// Bytes from a sender: frame, parse, map, hand off. Runs on the event loop.
    /// Returns false when a stream sender must be cut off: a line longer than `--max-line`
    /// (a sender that never ends its lines would otherwise keep the connection busy forever).
    @discardableResult
    func feed(_ s: SenderSession, _ bytes: UnsafeRawBufferPointer, received: UInt64, datagram: Bool = false) -> Bool {
        loop.assertInEventLoop()
        guard !finished, case .lines(let d) = s.decoder else { return false }
        s.lastDataNanos = received
        if stats.firstDataNanos == 0 { stats.firstDataNanos = received }
        stats.lastDataNanos = received
        stats.bytes &+= bytes.count
        if let dir = d.recordDirectory, bytes.count > 0 { startRecording(d, peer: s.peer, in: dir) }
        d.recorder?.append(bytes)
        var pushed = false
        d.framer.feed(bytes) { line in
            if handle(s, d, line, received) { pushed = true }
        }
        if datagram {
            // a datagram ends its last line even without a terminator
            d.framer.finish { line in if handle(s, d, line, received) { pushed = true } }
        }
        if pushed { wake() }
        if !datagram && (d.overLong || d.framer.isOverLong) {
            if !d.overLong { s.parser.noteTooLong() }
            logger.warning(
                "\(s.peer): no line end within --max-line \(config.maxLineLength) bytes; disconnecting this sender")
            stats.cutOff += 1
            return false
        }
        return true
    }

    /// The sender's first bytes: its recording file is created now.
    private func startRecording(_ d: LineDecoder, peer: String, in dir: String) {
        d.recordDirectory = nil
        d.recorder = StreamRecorder(directory: dir, peer: peer, logger: logger)
        if let r = d.recorder { stats.recordings.append(r.path) }
    }

    @inline(__always)
    private func handle(_ s: SenderSession, _ d: LineDecoder, _ line: FramedLine, _ received: UInt64) -> Bool {
        switch line {
        case .tooLong(let n):
            s.parser.noteTooLong()
            d.overLong = true
            logOnce(s, .tooLong, "a line of \(n) bytes exceeds --max-line \(config.maxLineLength)")
            return false
        case .line(let bytes):
            let assumed = s.parser.stats.assumedTiming
            let r = s.parser.parse(bytes, into: &s.frame)
            switch r {
            case .frame:
                if !s.named { nameAfterFormat(s) }
                return deliver(&s.frame, from: s, received: received, timed: s.parser.stats.assumedTiming == assumed)
            case .skipped(let why):
                logOnce(s, why, why.label)
                return false
            case .header:
                if !s.named { nameAfterFormat(s) }
                logger.info("\(s.peer): header with \(s.parser.detectedFormat.rawValue) columns; sender name \(s.name)")
                return false
            default:
                return false
            }
        }
    }

    /// A line sender's name once its format is known: `sensorlog@192.168.1.20`.
    private func nameAfterFormat(_ s: SenderSession) {
        s.named = true
        let f = s.parser.detectedFormat
        guard f != .auto else { return }
        s.name = "\(f.rawValue)@\(s.host)"
    }

    private func logOnce(_ s: SenderSession, _ why: SkipReason, _ text: String) {
        let bit = UInt32(1) << UInt32(why.rawValue)
        guard s.loggedReasons & bit == 0 else { return }
        s.loggedReasons |= bit
        logger.warning("\(s.peer): line skipped: \(text) (counted; further ones are only counted)")
    }

    func close(_ s: SenderSession) {
        loop.assertInEventLoop()
        guard !s.closed else { return }
        s.closed = true
        if !stats.senderNames.contains(s.name) { stats.senderNames.append(s.name) }
        switch s.decoder {
        case .lines(let d):
            let lost = d.framer.discardPartial()
            if lost > 0 {
                s.parser.skip(.malformed)
                stats.partialLinesLost += 1
                logger.info("\(s.peer): connection closed mid-line; \(lost) bytes of that line dropped")
            }
            d.recorder?.close()
        case .osc(let d): stats.osc.add(d.builder.stats)
        case .push, .web: break
        }
        s.frameLog?.close()
        stats.parser.add(s.parser.stats)
        if s.playout != nil { stats.timing.append(s.timing) }
        sessions[ObjectIdentifier(s)] = nil
        if !s.rested && config.restAfter > 0 { departed.append(s) }
    }

    /// "Set forward" for every sender: each one's current orientation becomes its rest.
    func captureRest() {
        for s in sessions.values { s.step.motion.captureRest() }
        logger.notice("rest orientation captured for \(sessions.count) sender\(sessions.count == 1 ? "" : "s")")
    }

    /// Every 50 ms with `--monitor`: the mapper's probes and the senders for the live view.
    func publishMonitor() {
        guard let m = monitor else { return }
        let sessions = self.sessions
        m.publish(
            now: monotonicNanos(), mapper: pipeline.mapper, scene: book.index,
            queueDrops: queue.dropped.load(ordering: .relaxed)
        ) { r in
            var k = 0
            for s in sessions.values {
                if k == MonitorLayout.maxSenders { break }
                let p = s.parser.stats
                r.setSender(k, name: s.name, frames: p.frames, skipped: p.totalSkipped + p.lateSamples)
                k += 1
            }
            return k
        }
    }

    /// Every 100 ms: flush recordings, rest the controllers of senders that fell silent.
    func tick() {
        loop.assertInEventLoop()
        let now = monotonicNanos()
        var pushed = false
        for s in sessions.values { s.flushRecordings() }
        for s in Array(sessions.values) + departed {
            if config.restAfter > 0 && !s.rested && now &- s.lastFrameNanos > Self.nanos(config.restAfter) {
                s.rested = true
                // controllers any sender may feed rest only when no other sender is active
                let othersActive = sessions.values.contains { $0 !== s && !$0.rested }
                let before = handoff.pushed
                handoff.stamp(received: now)
                pipeline.rest(
                    at: s.frame.latestTime, sender: s.name, includeUnrestricted: !othersActive,
                    glideClock: Double(now) * 1e-9)
                if handoff.pushed != before { pushed = true }
                logger.info("\(s.peer): silent for \(config.restAfter) s; controllers set to rest")
            }
        }
        departed.removeAll { $0.rested }
        if pushed { wake() }
        ticks &+= 1
        if let board = config.timingBoard, ticks % 5 == 0 {
            board.publish(playoutMode == .off ? [] : sessions.values.map(\.timing.text).sorted())
        }
        if pipeline.mapper.isGliding && !glideScheduled { stepGlides() }
    }

    var ticks = 0
    /// How new senders' readings are played (`--playout`, or as the control page set it since).
    lazy var playoutMode = config.playout

    /// Every sender plays `mode` from now on; what each playout learnt of its sender is kept.
    func setPlayout(_ mode: Playout.Mode) {
        playoutMode = mode
        for s in sessions.values {
            if mode == .off {
                s.playout = nil
            } else if s.playout == nil {
                s.playout = Playout(mode: mode)
            } else {
                s.playout?.set(mode)
            }
        }
        logger.notice("playout: \(mode.text) for every sender")
    }

    /// While a controller glides to rest (`glide=`), every 10 ms: its next value.
    var glideScheduled = false
    func stepGlides() {
        glideScheduled = true
        loop.scheduleTask(in: .milliseconds(10)) { [self] in
            guard !finished else { glideScheduled = false; return }
            let now = monotonicNanos()
            let before = handoff.pushed
            handoff.stamp(received: now)
            let more = pipeline.advanceGlides(clock: Double(now) * 1e-9)
            if handoff.pushed != before { wake() }
            glideScheduled = false
            if more { stepGlides() }
        }
    }

    /// Seconds to nanoseconds for time limits, saturating (NaN and negatives are 0).
    static func nanos(_ seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        return seconds >= 1.8e10 ? UInt64.max : UInt64(seconds * 1e9)
    }

    /// Seconds to whole milliseconds for timers, saturating at about 106 days.
    static func millis(_ seconds: Double) -> Int64 {
        guard seconds > 0 else { return 0 }
        return seconds >= 9.2e6 ? 9_200_000_000 : Int64(seconds * 1000)
    }

    /// Set by `stopAll`: the rest values went out; no frame reaches the pipeline any more.
    var finished = false

    func stopAll() {
        finished = true
        for s in Array(sessions.values) { close(s) }
        let before = handoff.pushed
        handoff.stamp(received: monotonicNanos())
        pipeline.finish()
        stats.mapper = pipeline.mapper.stats
        stats.queueDrops = queue.dropped.load(ordering: .relaxed)
        if handoff.pushed != before { wake() }
    }
}
