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
    @Option(
        help: ArgumentHelp(
            "Connect to a phone acting as server (repeatable); reconnects when it goes away.", valueName: "HOST:PORT"))
    var connect: [String] = []
    @Option(help: ArgumentHelp("Also receive UDP datagrams on this port (repeatable).", valueName: "PORT"))
    var udp: [Int] = []
    @Option(
        help: ArgumentHelp("Receive OSC over UDP on this port (repeatable; 0 picks a free one).", valueName: "PORT"))
    var osc: [Int] = []
    @Option(
        name: .customLong("osc-tcp"),
        help: ArgumentHelp("Receive OSC over TCP, SLIP-framed, on this port (repeatable).", valueName: "PORT"))
    var oscTCP: [Int] = []
    @Option(
        help: ArgumentHelp(
            "Receive Sensor Logger's HTTP push (JSON batches POSTed to http://THIS-HOST:PORT/) on this port (repeatable).",
            valueName: "PORT"))
    var http: [Int] = []
    @Option(help: ArgumentHelp("Largest HTTP push body accepted; larger ones get 413.", valueName: "BYTES"))
    var httpMaxBody = 4 << 20
    @Flag(
        help:
            "Serve a page any phone opens in its own browser to send its motion sensors, no app needed (HTTPS on --web-port; the terminal shows its address and a QR code)."
    )
    var web = false
    @Option(help: ArgumentHelp("The --web page's HTTPS port (0 picks a free one).", valueName: "PORT"))
    var webPort = 8443
    @Option(
        help: ArgumentHelp(
            "Poll a phone running phyphox with remote access on (repeatable); reconnects when it goes away.",
            valueName: "HOST:PORT"))
    var phyphox: [String] = []
    @Option(
        help: ArgumentHelp(
            "Seconds between phyphox polls (each poll reads every sample since the last).", valueName: "SECONDS"))
    var phyphoxInterval = 0.05
    @Flag(help: "Print each new OSC address once with its argument types, then its values; no MIDI is sent.")
    var detect = false
    @Option(
        help: ArgumentHelp(
            "Accept senders only from this address block (repeatable), e.g. 192.168.1.0/24, or 'any'. Default: the local networks (loopback, private, link-local): a phone on the same Wi-Fi works, the internet does not.",
            valueName: "CIDR"))
    var allow: [String] = []
    @Option(
        help: ArgumentHelp(
            "The scene to start with (scenes are named sets of mappings in the --config file; kill -USR2 moves to the next).",
            valueName: "NAME"))
    var scene: String?
    @Option(help: ArgumentHelp("A gesture that moves to the next scene.", valueName: "flick|shake|tap"))
    var sceneGesture: String?
    @Option(
        help: ArgumentHelp(
            "With scenes and --midi alsa or jack: only Program Change on this MIDI channel (1-16) selects a scene on the control input (default: any channel).",
            valueName: "CHANNEL"))
    var sceneChannel: Int?
    @Flag(help: "Pair with the first sender: every other address is ignored until restart (a stage on shared Wi-Fi).")
    var pair = false
    @Option(help: ArgumentHelp("Pair with this sender's address only (implies --pair).", valueName: "ADDRESS"))
    var pairWith: String?
    @Option(
        help:
            "Most TCP senders at once (from one address half of them, or 4 if that is more; the web and push ports take four times as many, 16 from one address). A newcomer closes a connection that has sent nothing whole for 2 s (half a second if it never has)."
    )
    var maxConnections = 16
    @Option(
        help: ArgumentHelp(
            "Close a connection after this many seconds without a whole message: a line that gives a reading, a request, a WebSocket message (0: never).",
            valueName: "SECONDS"))
    var idleTimeout = 60.0
    @Option(
        help: ArgumentHelp("Send the rest values after a sender is silent this long (0: never).", valueName: "SECONDS"))
    var restAfter = 2.0
    @Option(help: ArgumentHelp("Record each sender's stream verbatim into this folder.", valueName: "DIR"))
    var record: String?
    @Flag(help: "Print latency percentiles at exit: over all senders, and for each sender by name.")
    var latency = false
    @Option(
        help: ArgumentHelp(
            "When each sender's readings are played: off (as they arrive), auto (at the sender's own time, mapped onto this machine's clock, plus the delay its delivery needs: network jitter no longer reaches the outputs), or a fixed delay in milliseconds (a reading that arrives later plays at once and is counted). Readings without a time of the sender's own play as they arrive.",
            valueName: "off|auto|MS"))
    var playout = "off"
    @Flag(
        help:
            "Let the output thread sleep until each line arrives. By default, while a sender's lines come at a steady rate, it wakes just before the next is due and waits for it (at most 1 ms either side), so the line finds a running CPU: its message leaves tens of µs sooner on an idle machine, for a few percent of one core while a sender is steady (docs/performance.md has the figures). Irregular or interleaved senders turn this off by themselves."
    )
    var noAnticipate = false
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Mapping") var mapping: MappingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Live view") var monitor: MonitorOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        for a in allow where a != "any" && CIDR(a) == nil {
            throw ValidationError("--allow '\(a)' is not an address or address block (or 'any')")
        }
        if let g = sceneGesture, Gesture(name: g) == nil {
            throw ValidationError("--scene-gesture '\(g)': flick, shake or tap")
        }
        if let c = sceneChannel, !(1...16).contains(c) {
            throw ValidationError("--scene-channel \(c): a MIDI channel is 1 to 16")
        }
        if let p = pairWith, CIDR(p) == nil || p.contains("/") {
            throw ValidationError("--pair-with '\(p)' is not an address")
        }
        for c in connect where Endpoint(parsing: c) == nil {
            throw ValidationError("--connect '\(c)' must be HOST:PORT")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        for u in udp where !(0...65535).contains(u) { throw ValidationError("--udp must be 0-65535") }
        for u in osc where !(0...65535).contains(u) { throw ValidationError("--osc must be a port 0-65535") }
        for u in oscTCP where !(0...65535).contains(u) { throw ValidationError("--osc-tcp must be a port 0-65535") }
        for u in http where !(0...65535).contains(u) { throw ValidationError("--http must be a port 0-65535") }
        guard (1024...(256 << 20)).contains(httpMaxBody) else {
            throw ValidationError("--http-max-body must be 1024 to 268435456 bytes")
        }
        for p in phyphox
        where Endpoint(parsing: p, defaultHost: "") == nil || Endpoint(parsing: p, defaultHost: "")!.host.isEmpty {
            throw ValidationError(
                "--phyphox '\(p)' must be HOST:PORT (the address phyphox shows under remote access, e.g. 192.168.1.20:8080)"
            )
        }
        guard phyphoxInterval.isFinite, (0.01...10).contains(phyphoxInterval) else {
            throw ValidationError("--phyphox-interval must be 0.01 to 10 seconds")
        }
        if detect && osc.isEmpty && oscTCP.isEmpty { throw ValidationError("--detect needs --osc or --osc-tcp") }
        guard (1...10_000).contains(maxConnections) else {
            throw ValidationError("--max-connections must be 1 to 10000")
        }
        guard !bind.isEmpty else { throw ValidationError("--bind needs an address, e.g. 0.0.0.0 or 192.168.1.10") }
        for (name, v) in [("--idle-timeout", idleTimeout), ("--rest-after", restAfter)]
        where !(v.isFinite && v >= 0 && v <= 86_400) {
            throw ValidationError("\(name) must be a number of seconds from 0 (never) to 86400")
        }
        if noTcp && udp.isEmpty && connect.isEmpty && osc.isEmpty && oscTCP.isEmpty && http.isEmpty && phyphox.isEmpty
            && !web
        {
            throw ValidationError("--no-tcp needs --web, --udp, --osc, --osc-tcp, --http, --phyphox or --connect")
        }
        if !(0...65535).contains(webPort) { throw ValidationError("--web-port \(webPort): a TCP port 0-65535") }
        if Playout.Mode(parsing: playout) == nil {
            throw ValidationError("--playout '\(playout)': off, auto, or a delay in milliseconds from 0 to 1000")
        }
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
                do {
                    chain =
                        own.preset
                        ? try EffectChainSpec.preset(named: own.text) : try EffectChainSpec(parsing: own.text)
                } catch {
                    throw ConfigFile.Problem(
                        path: path, line: own.line, key: "scenes.\(s.name).\(own.preset ? "fx-preset" : "chain")",
                        message: "\(error)")
                }
            }
            var mappings = s.mappings + extra
            do { try mapping.resolveLearned(&mappings) } catch {
                throw ConfigFile.Problem(
                    path: path, line: file.scenes.first { $0.name == s.name }?.line ?? 0, key: "scenes.\(s.name)",
                    message: "\(error)")
            }
            do { try Mapping.resolveEffectTargets(&mappings, chain: chain ?? main) } catch {
                throw ConfigFile.Problem(
                    path: path, line: file.scenes.first { $0.name == s.name }?.line ?? 0, key: "scenes.\(s.name)",
                    message: "\(error)")
            }
            return Scene(name: s.name, mappings: mappings, chain: chain)
        }
        if scenes.isEmpty {
            if let s = scene { throw ValidationError("--scene \(s): \(path) has no scenes") }
            return ([], 0)
        }
        let wanted = scene ?? file.startScene?.name ?? scenes[0].name
        guard let i = scenes.firstIndex(where: { $0.name == wanted }) else {
            throw ValidationError(
                "--scene \(wanted): the scenes in \(path) are \(scenes.map(\.name).joined(separator: ", "))")
        }
        return (scenes, i)
    }

    func run() throws {
        // first of all: a signal during start-up stops cleanly too (with --config, SIGHUP
        // reloads; without one there is nothing to reload and a hang-up ends the run)
        Shutdown.installHandlers(hangupStops: global.config == nil)
        if global.config != nil { Shutdown.installReloadHandler() }
        Shutdown.installRezeroSignal()
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.listen")
        let rig = try Wiring.liveRig(self, logger: logger)
        rig.view?.start()
        rig.run()
        rig.view?.stop()
        logger.notice(
            "stopping\(Shutdown.stopSignalName.map { " on \($0)" } ?? ""): sending rest values and note-offs, flushing recordings"
        )
        let stats = rig.listener.stop()
        rig.pump.stop()
        printError(summary(stats, pump: rig.pump))
        if rig.pump.undelivered > 0 { throw ExitCode(1) }
    }

    /// Each scene's mapping texts as the configuration file gives them (the wah switch's, which
    /// `--wah-switch` adds, in full syntax), for the control page.
    func sceneTexts(_ scenes: [Scene]) -> [[String]] {
        guard !scenes.isEmpty, let path = global.config, let file = try? ConfigFile(path: path) else { return [] }
        let extra = output.jack.switchMappings().map(\.syntax)
        return scenes.map { s in (file.scenes.first { $0.name == s.name }?.mappings.map(\.text) ?? []) + extra }
    }
}
