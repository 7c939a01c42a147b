import ArgumentParser
import Foundation
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahJack
import SensorWahRuntime
#if canImport(Glibc)
import Glibc
#endif

struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Receive live sensor streams from phones and watches and send MIDI.",
        discussion: """
        By default a TCP server on port 56204 waits for the phone (SensorLog in client mode). \
        Use --connect when the phone is the server, --udp for apps that send datagrams \
        (HyperIMU, Sensorstream), --osc for OSC apps (GyrOSC, ZIG SIM, Sensors2OSC, TouchOSC, \
        or any OSC sender through osc:/address mappings). Several senders may stream at once; \
        each has its own header and its own name for sender= (app@address/device).

        Examples:
          sensorwah listen
              TCP port 56204, CC to stdout
          sensorwah listen --udp 5555 --allow 192.168.1.0/24
          sensorwah listen --connect 192.168.1.20:56204 --record Recordings
          sensorwah listen --no-tcp --osc 9000 --map "accel.x cc=11"
          sensorwah listen --no-tcp --osc 9000 --detect
              list what an OSC app sends
          sensorwah listen --no-tcp --http 8000              Sensor Logger's HTTP push
          sensorwah listen --no-tcp --phyphox 192.168.1.20:8080
        """
    )

    @Option(help: "TCP port to listen on (0 picks a free one).")
    var port = 56204
    @Flag(help: "Do not open a TCP server (use with --udp or --connect).")
    var noTcp = false
    @Option(help: "Address to listen on.")
    var bind = "0.0.0.0"
    @Option(help: ArgumentHelp("Connect to a phone acting as server (repeatable); reconnects when it goes away.", valueName: "HOST:PORT"))
    var connect: [String] = []
    @Option(help: ArgumentHelp("Also receive UDP datagrams on this port (repeatable).", valueName: "PORT"))
    var udp: [Int] = []
    @Option(help: ArgumentHelp("Receive OSC over UDP on this port (repeatable; 0 picks a free one).", valueName: "PORT"))
    var osc: [Int] = []
    @Option(name: .customLong("osc-tcp"), help: ArgumentHelp("Receive OSC over TCP, SLIP-framed, on this port (repeatable).", valueName: "PORT"))
    var oscTCP: [Int] = []
    @Option(help: ArgumentHelp("Receive Sensor Logger's HTTP push (JSON batches POSTed to http://THIS-HOST:PORT/) on this port (repeatable).", valueName: "PORT"))
    var http: [Int] = []
    @Option(help: ArgumentHelp("Largest HTTP push body accepted; larger ones get 413.", valueName: "BYTES"))
    var httpMaxBody = 4 << 20
    @Flag(help: "Serve a page any phone opens in its own browser to send its motion sensors, no app needed (HTTPS on --web-port; the terminal shows its address and a QR code).")
    var web = false
    @Option(help: ArgumentHelp("The --web page's HTTPS port (0 picks a free one).", valueName: "PORT"))
    var webPort = 8443
    @Option(help: ArgumentHelp("Poll a phone running phyphox with remote access on (repeatable); reconnects when it goes away.", valueName: "HOST:PORT"))
    var phyphox: [String] = []
    @Option(help: ArgumentHelp("Seconds between phyphox polls (each poll reads every sample since the last).", valueName: "SECONDS"))
    var phyphoxInterval = 0.05
    @Flag(help: "Print each new OSC address once with its argument types, then its values; no MIDI is sent.")
    var detect = false
    @Option(help: ArgumentHelp("Accept senders only from this address block (repeatable), e.g. 192.168.1.0/24, or 'any'. Default: the local networks (loopback, private, link-local): a phone on the same Wi-Fi works, the internet does not.", valueName: "CIDR"))
    var allow: [String] = []
    @Option(help: ArgumentHelp("The scene to start with (scenes are named sets of mappings in the --config file; kill -USR2 moves to the next).", valueName: "NAME"))
    var scene: String?
    @Option(help: ArgumentHelp("A gesture that moves to the next scene.", valueName: "flick|shake|tap"))
    var sceneGesture: String?
    @Option(help: ArgumentHelp("With scenes and --midi alsa or jack: only Program Change on this MIDI channel (1-16) selects a scene on the control input (default: any channel).", valueName: "CHANNEL"))
    var sceneChannel: Int?
    @Flag(help: "Pair with the first sender: every other address is ignored until restart (a stage on shared Wi-Fi).")
    var pair = false
    @Option(help: ArgumentHelp("Pair with this sender's address only (implies --pair).", valueName: "ADDRESS"))
    var pairWith: String?
    @Option(help: "Most TCP senders at once (from one address half of them, or 4 if that is more; the web and push ports take four times as many, 16 from one address). A newcomer closes a connection that has sent nothing whole for 2 s (half a second if it never has).")
    var maxConnections = 16
    @Option(help: ArgumentHelp("Close a connection after this many seconds without a whole message: a line that gives a reading, a request, a WebSocket message (0: never).", valueName: "SECONDS"))
    var idleTimeout = 60.0
    @Option(help: ArgumentHelp("Send the rest values after a sender is silent this long (0: never).", valueName: "SECONDS"))
    var restAfter = 2.0
    @Option(help: ArgumentHelp("Record each sender's stream verbatim into this folder.", valueName: "DIR"))
    var record: String?
    @Flag(help: "Print latency percentiles at exit: over all senders, and for each sender by name.")
    var latency = false
    @Flag(help: "Let the output thread sleep until each line arrives. By default, while a sender's lines come at a steady rate, it wakes just before the next is due and waits for it (at most 1 ms either side), so the line finds a running CPU: its message leaves tens of µs sooner on an idle machine, for about 4 % of one core with a steady sender at 100 Hz. Irregular or interleaved senders turn this off by themselves.")
    var noAnticipate = false
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Mapping") var mapping: MappingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Live view") var monitor: MonitorOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        for a in allow where a != "any" && CIDR(a) == nil { throw ValidationError("--allow '\(a)' is not an address or address block (or 'any')") }
        if let g = sceneGesture, Gesture(name: g) == nil { throw ValidationError("--scene-gesture '\(g)': flick, shake or tap") }
        if let c = sceneChannel, !(1...16).contains(c) { throw ValidationError("--scene-channel \(c): a MIDI channel is 1 to 16") }
        if let p = pairWith, CIDR(p) == nil || p.contains("/") { throw ValidationError("--pair-with '\(p)' is not an address") }
        for c in connect where Endpoint(parsing: c) == nil { throw ValidationError("--connect '\(c)' must be HOST:PORT") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        for u in udp where !(0...65535).contains(u) { throw ValidationError("--udp must be 0-65535") }
        for u in osc where !(0...65535).contains(u) { throw ValidationError("--osc must be a port 0-65535") }
        for u in oscTCP where !(0...65535).contains(u) { throw ValidationError("--osc-tcp must be a port 0-65535") }
        for u in http where !(0...65535).contains(u) { throw ValidationError("--http must be a port 0-65535") }
        guard (1024...(256 << 20)).contains(httpMaxBody) else { throw ValidationError("--http-max-body must be 1024 to 268435456 bytes") }
        for p in phyphox where Endpoint(parsing: p, defaultHost: "") == nil || Endpoint(parsing: p, defaultHost: "")!.host.isEmpty {
            throw ValidationError("--phyphox '\(p)' must be HOST:PORT (the address phyphox shows under remote access, e.g. 192.168.1.20:8080)")
        }
        guard phyphoxInterval.isFinite, (0.01...10).contains(phyphoxInterval) else { throw ValidationError("--phyphox-interval must be 0.01 to 10 seconds") }
        if detect && osc.isEmpty && oscTCP.isEmpty { throw ValidationError("--detect needs --osc or --osc-tcp") }
        guard (1...10_000).contains(maxConnections) else { throw ValidationError("--max-connections must be 1 to 10000") }
        guard !bind.isEmpty else { throw ValidationError("--bind needs an address, e.g. 0.0.0.0 or 192.168.1.10") }
        for (name, v) in [("--idle-timeout", idleTimeout), ("--rest-after", restAfter)] where !(v.isFinite && v >= 0 && v <= 86_400) {
            throw ValidationError("\(name) must be a number of seconds from 0 (never) to 86400")
        }
        if noTcp && udp.isEmpty && connect.isEmpty && osc.isEmpty && oscTCP.isEmpty && http.isEmpty && phyphox.isEmpty && !web {
            throw ValidationError("--no-tcp needs --web, --udp, --osc, --osc-tcp, --http, --phyphox or --connect")
        }
        if !(0...65535).contains(webPort) { throw ValidationError("--web-port \(webPort): a TCP port 0-65535") }
    }

    /// The configuration file's scenes (each with the wah switch's mapping), and the index of
    /// the one to start with; empty without scenes.
    func loadScenes() throws -> (scenes: [Scene], start: Int) {
        guard let path = global.config else {
            if let s = scene { throw ValidationError("--scene \(s): scenes live in a configuration file (--config)") }
            return ([], 0)
        }
        let file = try ConfigFile(path: path)
        let extra = output.jack.switchMappings()
        let main = try output.jack.fx.chain()
        let scenes = try file.parsedScenes().map { s -> Scene in
            // a scene's own chain (chain: or fx-preset: under it), its fx= targets resolved against it
            var chain: EffectChainSpec? = nil
            if let own = s.chain {
                do { chain = own.preset ? try EffectChainSpec.preset(named: own.text) : try EffectChainSpec(parsing: own.text) } catch {
                    throw ConfigFile.Problem(path: path, line: own.line, key: "scenes.\(s.name).\(own.preset ? "fx-preset" : "chain")", message: "\(error)")
                }
            }
            var mappings = s.mappings + extra
            do { try mapping.resolveLearned(&mappings) } catch {
                throw ConfigFile.Problem(path: path, line: file.scenes.first { $0.name == s.name }?.line ?? 0, key: "scenes.\(s.name)", message: "\(error)")
            }
            do { try Mapping.resolveEffectTargets(&mappings, chain: chain ?? main) } catch {
                throw ConfigFile.Problem(path: path, line: file.scenes.first { $0.name == s.name }?.line ?? 0, key: "scenes.\(s.name)", message: "\(error)")
            }
            return Scene(name: s.name, mappings: mappings, chain: chain)
        }
        if scenes.isEmpty {
            if let s = scene { throw ValidationError("--scene \(s): \(path) has no scenes") }
            return ([], 0)
        }
        let wanted = scene ?? file.startScene?.name ?? scenes[0].name
        guard let i = scenes.firstIndex(where: { $0.name == wanted }) else {
            throw ValidationError("--scene \(wanted): the scenes in \(path) are \(scenes.map(\.name).joined(separator: ", "))")
        }
        return (scenes, i)
    }

    func run() throws {
        // first of all: a signal during start-up stops cleanly too (with --config, SIGHUP
        // reloads; without one there is nothing to reload and a hang-up ends the run)
        Shutdown.installHandlers(hangupStops: global.config == nil)
        if global.config != nil { Shutdown.installReloadHandler() }
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.listen")
        let (scenes, startScene): ([Scene], Int)
        do { (scenes, startScene) = try loadScenes() } catch let p as ConfigFile.Problem { throw RuntimeFailure("\(p)") }
        let mappings = scenes.isEmpty ? try output.jack.resolve(mapping.mappings() + output.jack.switchMappings()) : scenes[startScene].mappings
        for m in mappings { logger.info("mapping: \(m.summary)") }
        Shutdown.installRezeroSignal()

        var config = try Wiring.listenerConfiguration(self, scenes: scenes, startScene: startScene)
        if config.control != nil {
            config.mappingTexts = scenes.isEmpty ? try mapping.texts() + output.jack.switchMappings().map(\.syntax) : []
            config.sceneTexts = sceneTexts(scenes)
        }

        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 16)
        let pump = OutputPump(queue: queue, outputs: detect ? [] : try Wiring.outputs(output, mappings: mappings, controlIn: !scenes.isEmpty,
                                                                                 scenes: scenes, startScene: startScene, logger: logger))
        let controls = Wiring.programChangeInputs(pump.outputs)
        config.control?.outputLines = Wiring.outputLines(pump.outputs, pump: pump)
        // the chains the engine prepared (nil: no audio engine runs)
        let runningChains = JackSession.engine(in: pump.outputs).flatMap { $0.wah ? $0.engine.chainSpecs : nil }
        let view = detect ? nil : Wiring.liveView(monitor, title: "listen", output: output,
                                                  scenes: scenes.isEmpty ? [mappings] : config.scenes.map(\.mappings),
                                                  sceneNames: scenes.map(\.name), outputs: pump.outputs, pump: pump,
                                                  calibrateKey: global.config != nil, teachKey: mapping.gesturesFile != nil)
        pump.latencyBySender = latency
        pump.anticipate = !noAnticipate
        pump.start()
        let listener = Listener(configuration: config, mappings: mappings, queue: queue, wake: pump.wake,
                                arriving: pump.arriving, logger: logger)
        if let v = view { listener.monitor = MonitorFeed(board: v.board) }
        let sourceTap: ((String, SensorFrame) -> Void)? = try Wiring.oscSources(output.network).map { sources in
            { sender, frame in sources.send(frame, sender: sender) }
        }
        if let t = sourceTap { listener.setFrameTap(t) }
        do {
            try listener.start()
        } catch {
            _ = listener.stop()
            pump.stop()
            throw RuntimeFailure("cannot listen: \(error)")
        }
        if web { Wiring.announceWebPage(listener, certificates: config.webCertificates, control: config.control, view: view) }
        view?.start()
        var watch = global.config.map { ConfigWatch(path: $0) }
        var running = (mappings: mappings, scenes: !scenes.isEmpty)   // whether scenes run (the calibrate key)
        var calibration: KeyCalibration?
        // the gestures file: reloaded when it changes, taught into live (t, the page's Teach)
        var modelWatch = mapping.gesturesFile.map { ConfigWatch(path: $0) }
        var teaching: LiveTeach?
        _ = MonitorControl.teach.take()
        MonitorControl.teach.active = nil
        if let path = mapping.gesturesFile, !FileManager.default.fileExists(atPath: path) {
            logger.notice("\(path) does not exist yet: teach gestures and poses live (t in the live view, Teach on the control page) and it is made")
        }
        var savedRestVersion = 0
        if !scenes.isEmpty {
            Shutdown.installSceneSignal()
            logger.notice("scene '\(scenes[startScene].name)' of \(scenes.map(\.name).joined(separator: ", ")); next scene: kill -USR2 \(getpid())\(sceneGesture.map { " or a \($0)" } ?? "")")
            for c in controls {
                let channel = sceneChannel.map { "channel \($0)" } ?? "any channel"
                logger.notice("Program Change (\(channel)) on \(c.programChangeInputName ?? "") selects a scene: 0 \(scenes[0].name)\(scenes.count > 1 ? ", 1 \(scenes[1].name)" : "")\(scenes.count > 2 ? ", ..." : "")")
            }
        }
        var toldFailures = 0, dead = false
        while !Shutdown.isRequested {
            let f = pump.failures
            if f.count > toldFailures {
                toldFailures = f.count
                dead = true
                logger.error("every output has failed: \(f.text); messages go nowhere until one delivers again (the run goes on, and ends with exit status 1)")
            } else if dead && !f.now {
                dead = false
                logger.notice("an output delivers again")
            }
            // with a Program Change input, look every 10 ms (a foot switch should not lag)
            var ts = timespec(tv_sec: 0, tv_nsec: controls.isEmpty ? 50_000_000 : 10_000_000)
            nanosleep(&ts, nil)
            if Shutdown.nextSceneRequested.exchange(false, ordering: .relaxed) { listener.nextScene() }
            // the live view's c key, the control page's Calibrate button
            if view != nil || config.control != nil {
                let asked = MonitorControl.calibrate.exchange(0, ordering: .relaxed)
                if asked > 0, calibration == nil, let t = teaching {
                    let text = "calibrate: finish teaching \(t.label) first (Enter, or Esc to drop it)"
                    view?.setMessage(text)
                    listener.setControlMessage(text)
                } else if asked > 0, calibration == nil {
                    let say = { (text: String) in
                        view?.setMessage(text)
                        listener.setControlMessage(text)
                    }
                    // what runs now (the control page may have changed it since the start)
                    calibration = KeyCalibration.start(asked, running: listener.runningMappings(), scenes: running.scenes,
                                                       path: global.config, listener: listener, say: say, logger: logger,
                                                       baseTap: sourceTap)
                }
                if let c = calibration, !c.step() { calibration = nil }
                let say = { (text: String) in
                    view?.setMessage(text)
                    listener.setControlMessage(text)
                }
                for request in MonitorControl.teach.take() {
                    teaching = teach(request, teaching, calibrating: calibration != nil, listener: listener, baseTap: sourceTap, say: say, logger: logger)
                    if teaching == nil, case .finish = request { modelWatch?.accept() }   // written and put to work already
                }
                MonitorControl.teach.active = teaching?.label
            }
            if modelWatch?.poll() == true, let path = mapping.gesturesFile { reloadModel(path, into: listener, view: view, logger: logger) }
            for c in controls {
                c.takeProgramChanges { channel, program in
                    if let want = sceneChannel, want != Int(channel) + 1 {
                        logger.debug("Program Change \(program) on channel \(Int(channel) + 1) ignored (--scene-channel \(want))")
                        return
                    }
                    listener.selectScene(program: Int(program), channel: Int(channel) + 1)
                }
            }
            let rest = listener.capturedRest
            if rest.version != savedRestVersion {
                savedRestVersion = rest.version
                saveRest(rest.gravity, logger: logger)
            }
            guard let changed = watch?.poll(), changed || Shutdown.reloadRequested.exchange(false, ordering: .relaxed) else { continue }
            if let now = reload(into: listener, view: view, runningChains: runningChains, logger: logger) { running = now }
        }
        calibration?.cancel()
        teaching?.cancel()
        view?.stop()
        logger.notice("stopping\(Shutdown.stopSignalName.map { " on \($0)" } ?? ""): sending rest values and note-offs, flushing recordings")
        let stats = listener.stop()
        pump.stop()
        var s = Summary(source: "listen", format: input.format, parser: stats.parser, mapper: stats.mapper, elapsed: 0)
        s.showElapsed = false
        var text = s.text
        let o = stats.osc
        if o.packets > 0 || o.malformed > 0 || o.tooLong > 0 {
            text += "\n  OSC packets \(o.packets), messages \(o.messages), frames \(o.frames)"
            text += ", refused as malformed \(o.malformed)"
            if o.tooLong > 0 { text += ", over the size limit \(o.tooLong)" }
            if o.unused > 0 { text += ", messages with no built-in meaning or osc: mapping \(o.unused)" }
        }
        let p = stats.push
        if p.batches > 0 || p.refused > 0 || p.tooLarge > 0 {
            text += "\n  HTTP push batches \(p.batches), frames \(p.frames), refused (400) \(p.refused), too large (413) \(p.tooLarge)"
            if p.late > 0 { text += ", late samples dropped \(p.late)" }
            if p.otherSensors > 0 { text += ", entries of other sensors \(p.otherSensors)" }
        }
        let w = stats.web
        if web {
            text += "\n  web: pages served \(w.pages), batches \(w.batches) (WebSocket \(w.webSocketBatches), HTTPS POST \(w.postBatches)), frames \(w.frames), refused \(w.refused)"
            if w.rateLimited > 0 { text += ", over the rate limit \(w.rateLimited)" }
            if w.late > 0 { text += ", late samples dropped \(w.late)" }
        }
        let ph = stats.phyphox
        if !phyphox.isEmpty {
            text += "\n  phyphox: experiments read \(ph.connects), polls \(ph.polls), frames \(ph.frames), failed requests \(ph.errors)"
        }
        text += "\n  senders accepted \(stats.accepted), refused \(stats.refused)"
        if stats.pairRefused > 0 { text += " (\(stats.pairRefused) by --pair)" }
        if stats.cutOff > 0 { text += ", cut off for a line over --max-line \(stats.cutOff)" }
        if stats.partialLinesLost > 0 { text += ", lines lost to a closed connection \(stats.partialLinesLost)" }
        if stats.queueDrops > 0 { text += "\n  messages dropped because the outputs fell behind: \(stats.queueDrops)" }
        if !stats.senderNames.isEmpty { text += "\n  senders: " + stats.senderNames.joined(separator: ", ") }
        for r in stats.recordings { text += "\n  recorded \(r)" }
        if latency {
            let q = stats.handoff
            text += "\n  latency socket->queued (network thread): p50 \(q.percentile(0.5)) us, p99 \(q.percentile(0.99)) us, max \(q.maxNanos / 1000) us over \(q.total) lines with messages"
            let w = pump.wakeLatency
            text += "\n  latency queued->taken by the output thread: p50 \(w.percentile(0.5)) us, p99 \(w.percentile(0.99)) us, max \(w.maxNanos / 1000) us"
            if pump.spins > 0 {
                text += "\n  output thread busy waits for an expected message: \(pump.spins), \(pump.spinNanos / 1000) us in all"
            }
            if pump.watches > 0 {
                text += "\n  output thread awake before a due line: \(pump.watches) times, \(pump.watchNanos / 1000) us in all"
            }
            let h = pump.latency
            text += "\n  latency socket->output: p50 \(h.percentile(0.5)) us, p99 \(h.percentile(0.99)) us, max \(h.maxNanos / 1000) us over \(h.total) messages"
            // each sender's own, so one performer's figure is not hidden among a crowd's
            for (i, name) in stats.latencySlots.enumerated() where i < pump.senderLatency.count {
                guard let l = pump.senderLatency[i], l.total > 0 else { continue }
                text += "\n  latency socket->output from \(name): p50 \(l.percentile(0.5)) us, p99 \(l.percentile(0.99)) us, max \(l.maxNanos / 1000) us over \(l.total) messages"
            }
            let busy = Double(stats.lastDataNanos &- stats.firstDataNanos) / 1e9
            if busy > 0 {
                text += "\n  received \(stats.parser.lines) lines, \(stats.bytes / 1_000_000) MB in \((busy * 1000).rounded() / 1000) s of traffic: \(Int(Double(stats.parser.lines) / busy)) lines/s"
            }
        }
        if pump.undelivered > 0 {
            text += "\n  messages delivered nowhere, every output having failed: \(pump.undelivered) (\(pump.failures.text))"
        }
        printError(text)
        if pump.undelivered > 0 { throw ExitCode(1) }
    }

    /// One teach request (the live view's `t` key, the control page's Teach panel); returns what
    /// is being taught afterwards.
    func teach(_ request: TeachRequest, _ now: LiveTeach?, calibrating: Bool, listener: Listener,
               baseTap: ((String, SensorFrame) -> Void)?, say: @escaping (String) -> Void, logger: Logger) -> LiveTeach? {
        switch request {
        case .start(let name, let value):
            guard let path = mapping.gesturesFile else {
                say("teach: start listen with --gestures FILE (it may not exist yet): what is taught is written there")
                return now
            }
            if let t = now {
                say("teach: \(t.label) is being taught: Enter to finish it or Esc to drop it first")
                return t
            }
            if calibrating { say("teach: wait until the calibration ends"); return nil }
            return LiveTeach(name: name, value: value, path: path, listener: listener, say: say, logger: logger, baseTap: baseTap)
        case .mark(let nanos):
            guard let t = now else { say("teach: nothing is being taught (t in the live view, or Teach on the control page, first)"); return nil }
            t.mark(at: nanos)
            return t
        case .finish:
            guard let t = now else { return nil }
            if let model = t.finish() {
                if let e = listener.replaceLearned(model, file: t.path) {
                    say("teach \(t.label): written, but the running mappings do not fit it: \(e)")
                    logger.error("\(t.path): \(e); the running gestures are kept")
                }
            }
            return nil
        case .cancel:
            guard let t = now else { return nil }
            t.cancel()
            say("teach \(t.label): dropped, nothing written")
            return nil
        }
    }

    /// The gestures file changed on disk: its gestures and poses go to work in every sender.
    func reloadModel(_ path: String, into listener: Listener, view: LiveView?, logger: Logger) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let model: LearnedModel
        do { model = try GestureModelFile.read(path) } catch {
            logger.error("\(error); the running gestures are kept")
            return
        }
        if let e = model.validate() { logger.error("\(path): \(e); the running gestures are kept"); return }
        if let e = listener.replaceLearned(model, file: path) {
            logger.error("\(e); the running gestures are kept")
            return
        }
        let line = "\(path): reloaded, \(model.gestures.classes.count) gesture\(model.gestures.classes.count == 1 ? "" : "s"), \(model.poses.count) pose\(model.poses.count == 1 ? "" : "s")"
        view?.setMessage(line)
        listener.setControlMessage(line)
        logger.notice("\(line)")
    }

    /// Each scene's mapping texts as the configuration file gives them (the wah switch's, which
    /// `--wah-switch` adds, in full syntax), for the control page.
    func sceneTexts(_ scenes: [Scene]) -> [[String]] {
        guard !scenes.isEmpty, let path = global.config, let file = try? ConfigFile(path: path) else { return [] }
        let extra = output.jack.switchMappings().map(\.syntax)
        return scenes.map { s in (file.scenes.first { $0.name == s.name }?.mappings.map(\.text) ?? []) + extra }
    }

    /// A re-zero captured a rest orientation: with a configuration file, it is saved there
    /// (`motion: rest-gravity`) so the next start begins with it.
    func saveRest(_ g: SIMD3<Double>, logger: Logger) {
        func r(_ v: Double) -> String { String((v * 10_000).rounded() / 10_000) }
        let value = "\(r(g.x)),\(r(g.y)),\(r(g.z))"
        guard let path = global.config else {
            logger.notice("rest orientation captured (gravity \(value)); give --rest-gravity \(value), or use --config, to keep it")
            return
        }
        do {
            try ConfigEditor.setValue(in: path, section: "motion", key: "rest-gravity", value: value, comment: "saved by re-zero")
            logger.notice("rest orientation captured and saved to \(path) (motion: rest-gravity: \(value))")
        } catch {
            logger.error("rest orientation captured (gravity \(value)) but not saved: \(error)")
        }
    }

    /// The configuration file changed (or SIGHUP): its mappings take over without dropping a
    /// connection, and the live view shows them; a broken edit is reported and the running
    /// configuration kept. Returns the mappings now running (nil: unchanged).
    func reload(into listener: Listener, view: LiveView?, runningChains: [EffectChainSpec]?, logger: Logger) -> (mappings: [Mapping], scenes: Bool)? {
        let path = global.config ?? ""
        let config: ConfigArguments
        do { config = try ConfigArguments(argv: Array(CommandLine.arguments.dropFirst())) } catch {
            logger.error("\(error); the running configuration is kept")
            return nil
        }
        do {
            let again = try Listen.parse(Array(config.arguments.dropFirst()))
            let (scenes, _) = try again.loadScenes()
            // the engine's chains were prepared at the start: fx= targets resolved against other
            // chains would move the wrong parameters, so a changed chain waits for a restart
            if let before = runningChains {
                let after = try Wiring.chainSets(again.output.jack, scenes: scenes).sets
                if before != after {
                    logger.error("\(path): the effect chains changed (\(after.map(\.description).joined(separator: "; "))); chains are prepared at the start, so restart to use them; the running configuration is kept")
                    return nil
                }
            }
            if !scenes.isEmpty {
                listener.replaceScenes(scenes, texts: again.sceneTexts(scenes))
                view?.setScenes(scenes.map(\.mappings), names: scenes.map(\.name))
                logger.notice("\(path): reloaded, scenes \(scenes.map(\.name).joined(separator: ", "))")
                return ([], true)
            }
            let mappings = try again.output.jack.resolve(again.mapping.mappings() + again.output.jack.switchMappings())
            listener.replaceMappings(mappings, texts: (try? again.mapping.texts()).map { $0 + again.output.jack.switchMappings().map(\.syntax) } ?? [])
            view?.setScenes([mappings], names: [])
            logger.notice("\(path): reloaded, \(mappings.count) mapping\(mappings.count == 1 ? "" : "s") now active (other settings take effect at the next start)")
            for m in mappings { logger.info("mapping: \(m.summary)") }
            return (mappings, false)
        } catch {
            let message = (error as? ConfigFile.Problem).map { "\($0)" } ?? Listen.message(for: error)
            logger.error("\(config.attribute(message) ?? message); the running configuration is kept")
            return nil
        }
    }
}

/// Notices when a file is written, once the writing is over: its identity (device and inode),
/// size and times changed since what was last reported, and then held still for `settleNanos`
/// across the looks in between (a file rewritten in place by a shell redirection is reported
/// when the writer is done, not while it is half written). Looking is a stat, never an open:
/// whatever is put in the file's place, a look never blocks.
struct ConfigWatch {
    struct Stamp: Equatable {
        var device: UInt64, inode: UInt64, size: Int64
        var mtime: (Int, Int), ctime: (Int, Int)
        static func == (a: Stamp, b: Stamp) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.mtime == b.mtime && a.ctime == b.ctime
        }
    }

    /// How long a change must hold still before it is reported.
    static let settleNanos: UInt64 = 250_000_000

    let path: String
    /// What was last reported (at the start: the file as it was read).
    private var reported: Stamp?
    /// The last look, and since when it has looked so.
    private var seen: Stamp?
    private var seenSince: UInt64 = 0

    init(path: String) {
        self.path = path
        reported = Self.stamp(path)
        seen = reported
    }

    static func stamp(_ path: String) -> Stamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Stamp(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                     mtime: (st.st_mtim.tv_sec, st.st_mtim.tv_nsec), ctime: (st.st_ctim.tv_sec, st.st_ctim.tv_nsec))
    }

    /// True once when the file changed since the last report and has not changed for
    /// `settleNanos` since (a deleted file counts once too).
    mutating func poll(now: UInt64 = monotonicNanos()) -> Bool {
        let current = Self.stamp(path)
        if current != seen {
            seen = current
            seenSince = now
            return false
        }
        guard current != reported, now &- seenSince >= Self.settleNanos else { return false }
        reported = current
        return true
    }

    /// Whether a change is seen and not yet reported (it is waiting to hold still).
    var pending: Bool { seen != reported }

    /// The file as it is now counts as reported (this program wrote it and uses it already).
    mutating func accept() {
        reported = Self.stamp(path)
        seen = reported
    }
}
