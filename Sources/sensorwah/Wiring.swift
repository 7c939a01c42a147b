import ArgumentParser
import Logging
import SensorWahALSA
import SensorWahAvahi
import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahJack
#if canImport(Glibc)
    import Glibc
#endif

/// Builds the parts a command asked for from its parsed options.
enum Wiring {
    /// The files of one recording, as `replay`, `plot` and `render` take them: each argument a
    /// file or a folder of CSV files (Sensor Logger's per-sensor export), expanded in order.
    /// A bundled recording named as in the docs (`Recordings/wrist-wah-phone.csv`) that is not
    /// in the working folder is taken from where the command is installed
    /// (`PREFIX/share/sensorwah/Recordings`), so the examples run from any folder.
    static func recordingPaths(_ files: [String]) throws -> [String] {
        var paths: [String] = []
        for f in files {
            var expanded = FileReplay.expand(f)
            let cause = errno
            if expanded == nil, f.hasPrefix("Recordings/") || f == "Recordings", let installed = installedData(f) {
                expanded = FileReplay.expand(installed)
            }
            guard let p = expanded else {
                throw RuntimeFailure("cannot open '\(f)': \(String(cString: strerror(cause)))")
            }
            if p.isEmpty { throw RuntimeFailure("'\(f)' is a folder with no .csv files") }
            paths += p
        }
        return paths
    }

    /// `relative` under the installed data folder (`BIN/../share/sensorwah`), if it is there.
    static func installedData(_ relative: String) -> String? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return nil }
        let exe = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = exe.lastIndex(of: "/") else { return nil }
        let bin = exe[..<slash]
        guard let up = bin.lastIndex(of: "/") else { return nil }
        let path = String(bin[..<up]) + "/share/sensorwah/" + relative
        return access(path, R_OK) == 0 ? path : nil
    }

    /// Every output asked for. One that cannot start (no sequencer, no JACK server) logs one
    /// error line and the others run in full; when none can, the run is refused with the reason
    /// (it would deliver nothing). `controlIn` (listen with scenes) also opens the Program
    /// Change inputs: the ALSA port `control in` and the JACK port `control_in`.
    static func outputs(
        _ o: OutputOptions, mappings: [Mapping], controlIn: Bool = false, scenes: [Scene] = [], startScene: Int = 0,
        logger: Logger
    ) throws -> [any EventOutput] {
        var outs: [any EventOutput] = []
        var failed: [String] = []
        for d in o.destinations {
            switch d {
            case .stdout: outs.append(JSONOutput())
            case .alsa:
                do {
                    outs.append(
                        try ALSAMIDIOutput(
                            clientName: o.alsaClient, portName: o.alsaPort, controlPort: controlIn ? "control in" : nil,
                            connect: o.alsaConnect, logger: logger))
                } catch { failed.append("\(error)") }
            case .jack:
                break  // below, with the wah: one JACK client serves both
            case .rtp:
                outs.append(try rtpOutput(o.network, logger: logger))
            }
        }
        if !o.network.oscOut.isEmpty { outs.append(try oscOutput(o.network, logger: logger)) }
        outs += try jackOutputs(
            o.jack, midi: o.destinations.contains(.jack), controlIn: controlIn, mappings: mappings,
            scenes: scenes, startScene: startScene, logger: logger)
        if outs.isEmpty && !failed.isEmpty {
            throw RuntimeFailure(
                failed.joined(separator: "; ")
                    + "\nNo output could start, so nothing would be delivered: choose one that works here (--midi stdout prints the messages; sensorwah ports lists the MIDI ports)."
            )
        }
        for f in failed { logger.error("\(f)") }
        return outs
    }

    /// `--midi rtp`: the RTP-MIDI session, announced through Avahi unless told not to.
    static func rtpOutput(_ n: NetworkOutputOptions, logger: Logger) throws -> RTPMIDIOutput {
        var c = RTPMIDIOutput.Configuration(name: n.sessionName)
        c.port = n.rtpPort
        c.timeout = n.rtpTimeout
        c.journal = !n.noRtpJournal
        c.waitForParticipant = n.rtpWait
        for s in n.rtpConnect {
            let (host, port) = try NetworkOutputOptions.hostPort(s)
            guard let ip = NetworkOutputOptions.resolveIPv4(host) else {
                throw RuntimeFailure(
                    "--rtp-connect '\(s)': cannot find the IPv4 address of '\(host)' (check the name, or give the address)"
                )
            }
            c.connect.append(RTPEndpoint(host: ip, port: port))
        }
        do {
            return try RTPMIDIOutput(
                configuration: c, announcer: n.noRtpAnnounce ? nil : AvahiAnnouncer(logger: logger), logger: logger)
        } catch let e as RTPMIDIError { throw RuntimeFailure(e.description) }
    }

    /// `--osc-out`: OSC to every target (UDP ones resolved to an IPv4 address now).
    static func oscOutput(_ n: NetworkOutputOptions, logger: Logger) throws -> OSCOutput {
        var targets: [OSCOutput.Target] = []
        for s in n.oscOut {
            let t = try NetworkOutputOptions.oscTarget(s)
            if t.tcp { targets.append(.init(host: t.host, port: t.port, tcp: true)); continue }
            guard let ip = NetworkOutputOptions.resolveIPv4(t.host) else {
                throw RuntimeFailure(
                    "--osc-out '\(s)': cannot find the IPv4 address of '\(t.host)' (check the name, or give the address)"
                )
            }
            targets.append(.init(host: ip, port: t.port, tcp: false))
        }
        do { return try OSCOutput(targets: targets, raw: n.oscOutRaw, ahead: n.oscOutAhead, logger: logger) } catch let
            e as RTPMIDIError
        {
            throw RuntimeFailure(e.description)
        }
    }

    /// `--osc-out-sources`: the derived quantities to every UDP `--osc-out` target (nil without it).
    static func oscSources(_ n: NetworkOutputOptions) throws -> OSCSourceOutput? {
        guard n.oscOutSources else { return nil }
        var targets: [(host: String, port: Int)] = []
        for s in n.oscOut {
            let t = try NetworkOutputOptions.oscTarget(s)
            if t.tcp { continue }
            guard let ip = NetworkOutputOptions.resolveIPv4(t.host) else {
                throw RuntimeFailure(
                    "--osc-out '\(s)': cannot find the IPv4 address of '\(t.host)' (check the name, or give the address)"
                )
            }
            targets.append((ip, t.port))
        }
        do { return try OSCSourceOutput(targets: targets) } catch let e as RTPMIDIError {
            throw RuntimeFailure(e.description)
        }
    }

    /// The outputs that also receive Program Change (see `outputs(controlIn:)`).
    static func programChangeInputs(_ outputs: [any EventOutput]) -> [any ProgramChangeInput] {
        outputs.compactMap { $0 as? any ProgramChangeInput }.filter { $0.programChangeInputName != nil }
    }

    /// The JACK outputs (`--midi jack`, `--wah` or `--fx`), sharing one client; empty when
    /// neither is asked for. With scenes, each scene's own chain is prepared too (see `chainSets`).
    static func jackOutputs(
        _ j: JackOptions, midi: Bool, controlIn: Bool = false, mappings: [Mapping],
        scenes: [Scene] = [], startScene: Int = 0, logger: Logger
    ) throws -> [any EventOutput] {
        guard midi || j.audio else { return [] }
        if j.audio && j.wahMap > mappings.count {
            throw ValidationError(
                "--wah-map \(j.wahMap): there \(mappings.count == 1 ? "is 1 mapping" : "are \(mappings.count) mappings")"
            )
        }
        let pedalMapping = mappings[min(j.wahMap, mappings.count) - 1]
        let (sets, sceneSets) = try chainSets(j, scenes: scenes)
        var config = try jackConfiguration(j, midi: midi, controlIn: controlIn, pedalMapping: pedalMapping)
        config.chains = sets
        let engine = JackEngine(configuration: config, logger: logger)
        if sceneSets.indices.contains(startScene) { engine.selectChain(sceneSets[startScene]) }
        let session = JackSession(engine: engine, logger: logger)
        let outs = session.start(midi: midi, wahTarget: j.audio ? pedalMapping.target : nil, sceneChains: sceneSets)
        if j.audio {
            let pedal =
                pedalMapping.target.isEffect
                ? "no mapping moves the wah's pedal (mapping \(j.wahMap) is an effect parameter)"
                : "wah pedal follows mapping \(j.wahMap) (\(pedalMapping.target))"
            logger.info(
                "effects: \(sets[0])\(sets.count > 1 ? " (and \(sets.count - 1) scene chain\(sets.count == 2 ? "" : "s"))" : ""); \(pedal); \(j.tone.summary), \(j.channels) channel\(j.channels == 1 ? "" : "s")"
            )
        }
        return outs
    }

    /// The chains the engine prepares: the run's (`--fx`, else the wah alone) first, then each
    /// scene's own one not seen before; and for each scene, the index of the chain it runs.
    static func chainSets(_ j: JackOptions, scenes: [Scene]) throws -> (sets: [EffectChainSpec], sceneSets: [Int]) {
        var sets = [try j.fx.chain()]
        var sceneSets: [Int] = []
        for scene in scenes {
            guard let c = scene.chain else { sceneSets.append(0); continue }
            if let k = sets.firstIndex(of: c) {
                sceneSets.append(k)
            } else {
                sets.append(c); sceneSets.append(sets.count - 1)
            }
        }
        return (sets, sceneSets)
    }

    static func jackConfiguration(_ j: JackOptions, midi: Bool, controlIn: Bool = false, pedalMapping: Mapping) throws
        -> JackEngineConfiguration
    {
        var c = JackEngineConfiguration()
        c.serverName = j.jackServer
        c.channels = j.audio ? j.channels : 0
        c.midiOut = midi
        c.controlIn = midi && controlIn
        c.wah = j.tone.settings()
        c.connections = try j.connections()
        c.initialPedal =
            pedalMapping.target.isEffect ? 0 : PedalAutomation.pedal(value: pedalMapping.rest, of: pedalMapping.target)
        if j.wahSwitch != nil { c.wah.bypass = true }  // a switched wah starts off, like the pedal
        c.wahSwitch = j.wahSwitch != nil
        c.chains = [try j.fx.chain()]
        c.effectControllers = try j.controllerBindings().map { ($0.controller, $0.address) }
        return c
    }

    /// What `listen` (and `calibrate`) open: ports, senders allowed, scenes, parsing, motion.
    static func listenerConfiguration(_ l: Listen, scenes: [Scene], startScene: Int, live: LiveControl) throws
        -> ListenerConfiguration
    {
        var config = ListenerConfiguration()
        config.live = live
        config.bindHost = l.bind
        config.tcpPort = l.noTcp ? nil : l.port
        config.connect = l.connect.compactMap { Endpoint(parsing: $0) }
        config.udpPorts = l.udp
        config.oscPorts = l.osc
        config.oscTCPPorts = l.oscTCP
        config.oscDetect = l.detect
        config.httpPorts = l.http
        config.maxPushBody = l.httpMaxBody
        config.phyphox = l.phyphox.compactMap { Endpoint(parsing: $0) }
        config.phyphoxInterval = l.phyphoxInterval
        config.allow = l.allow.contains("any") ? CIDR.everywhere : l.allow.compactMap(CIDR.init)
        config.pair = l.pair || l.pairWith != nil
        config.scenes = scenes
        config.startScene = startScene
        config.sceneGesture = l.sceneGesture.flatMap(Gesture.init(name:))
        config.pairWith = l.pairWith
        config.maxConnections = l.maxConnections
        config.idleTimeout = l.idleTimeout
        config.restAfter = l.restAfter
        config.playout = Playout.Mode(parsing: l.playout) ?? .off
        config.maxLineLength = l.input.maxLine
        config.parser = l.input.parserOptions()
        config.recordDirectory = l.record
        config.motion = try l.mapping.motionSettings(missingModelIsEmpty: true)
        if l.web {
            config.webPort = l.webPort
            do { config.webCertificates = try WebCertificates.load(names: WebCertificates.localNames()) } catch {
                throw RuntimeFailure("--web: \(error)")
            }
            // the control page and its API, on the same port; its token beside the authority
            let token: String
            do {
                token = try ControlToken.load(folder: config.webCertificates?.folder ?? WebCertificates.defaultFolder())
            } catch {
                throw RuntimeFailure("--web: the control page's token: \(error)")
            }
            let mapping = l.mapping, jack = l.output.jack
            config.control = ControlHooks(
                token: token, parse: { text in try jack.resolve([try mapping.parseOne(text, learned: false)])[0] },
                save: l.global.config.map { path in
                    { scene, texts in
                        try ConfigEditor.setMappings(in: path, scene: scene, texts: texts)
                        return path
                    }
                })
            config.control?.teaches = l.mapping.gesturesFile != nil
        }
        return config
    }

    /// `--web`: where the phone opens the page, for each local address, and the QR code of the
    /// first address on a network (on a terminal); the certificate's news when it was issued.
    static func announceWebPage(
        _ listener: Listener, certificates: WebCertificates?, control: ControlHooks?, view: LiveView?
    ) {
        guard let bound = listener.boundAddresses.first(where: { $0.hasPrefix("https://") }),
            let port = bound.split(separator: ":").last.flatMap({ Int($0) })
        else { return }
        let names = certificates?.names ?? WebCertificates.localNames()
        let urls = names.filter { $0 != "localhost" }.map { n in
            n.contains(":") ? "https://[\(n)]:\(port)/" : "https://\(n):\(port)/"
        }
        for n in certificates?.notices ?? [] { printError(n) }
        if let c = certificates, c.issued {
            printError(
                "web: a certificate for \(names.joined(separator: ", ")) from SensorWah's local authority (\(c.folder))"
            )
        }
        printError("web: open the page on the phone (same Wi-Fi), tap Start, and play:")
        for u in urls { printError("  \(u)") }
        let lan =
            urls.first { u in !u.contains("127.0.0.1") && !u.contains("[::1]") && !u.contains(".local:") } ?? urls.first
        if let u = lan, isatty(2) == 1, view == nil, let lines = QRCode.text(u) {
            printError("  scan: \(u)")
            for l in lines { printError("  " + l) }
        }
        printError(
            "web: the browser warns once (accept it), or install the authority from the page's links so it never does")
        if let c = control, let u = lan {
            // the token travels in the fragment (#...), which a browser never sends to a server
            let controlURL = "\(u)control#\(c.token)"
            printError(
                "web: the control page (this computer or a tablet; keep the address private, it carries the token):")
            printError("  \(controlURL)")
            if isatty(2) == 1, view == nil, let lines = QRCode.text(controlURL) {
                for l in lines { printError("  " + l) }
            }
        }
        if let u = lan { view?.setMessage("phone: open \(u) in its browser") }
    }

    /// The outputs' own lines (the JACK engine's state, the RTP-MIDI session's participants), as
    /// the live view and the control page show them; nil when no output has any.
    static func outputLines(_ outputs: [any EventOutput], pump: OutputPump? = nil) -> (() -> [String])? {
        var extras: [() -> [String]] = []
        if let pump, !outputs.isEmpty {
            let names = outputs.map(\.name).joined(separator: ", ")
            extras.append { ["MIDI to \(names): \(pump.deliveredSoFar.load(ordering: .relaxed)) messages"] }
        }
        if let (engine, wah) = JackSession.engine(in: outputs) { extras.append { engine.monitorLines(wah: wah) } }
        if let rtp = outputs.lazy.compactMap({ $0 as? RTPMIDIOutput }).first { extras.append { rtp.monitorLines() } }
        return extras.isEmpty ? nil : { extras.flatMap { $0() } }
    }

    /// Two sources of lines as one (nil when both are).
    static func joined(_ a: (() -> [String])?, _ b: (() -> [String])?) -> (() -> [String])? {
        guard let a else { return b }
        guard let b else { return a }
        return { a() + b() }
    }

    /// The live view (`--monitor`) for a run, or nil: each scene's mapping labels, the JACK
    /// client's lines when the outputs have one, the output thread's latency when there is one.
    static func liveView(
        _ o: MonitorOptions, title: String, output: OutputOptions, scenes: [[Mapping]],
        sceneNames: [String] = [], outputs: [any EventOutput], pump: OutputPump? = nil,
        calibrateKey: Bool = false, teachKey: Bool = false, control: LiveControl, timing: TimingBoard? = nil
    ) -> LiveView? {
        guard let mode = o.mode(midiToStdout: output.destinations.contains(.stdout)) else { return nil }
        var c = LiveView.Configuration(
            title: "sensorwah \(title)", mode: mode,
            labels: scenes.map { $0.map(LiveView.label) },
            maxima: scenes.map { $0.map(\.target.maxValue) })
        c.sceneNames = sceneNames
        c.calibrateKey = calibrateKey
        c.teachKey = teachKey
        c.extraLines = joined(outputLines(outputs), timing.map { t in { t.lines } })
        if let pump {
            pump.publishLatency = true
            c.latency = { (pump.latencyP50.load(ordering: .relaxed), pump.latencyP99.load(ordering: .relaxed)) }
        }
        return LiveView(board: MonitorBoard(), configuration: c, control: control)
    }
}
