import ArgumentParser
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
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
          sensorwah listen                                   TCP port 56204, CC to stdout
          sensorwah listen --udp 5555 --allow 192.168.1.0/24
          sensorwah listen --connect 192.168.1.20:56204 --record Recordings
          sensorwah listen --no-tcp --osc 9000 --map "accel.x cc=11"
          sensorwah listen --no-tcp --osc 9000 --detect      list what an OSC app sends
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
    @Option(help: ArgumentHelp("Poll a phone running phyphox with remote access on (repeatable); reconnects when it goes away.", valueName: "HOST:PORT"))
    var phyphox: [String] = []
    @Option(help: ArgumentHelp("Seconds between phyphox polls (each poll reads every sample since the last).", valueName: "SECONDS"))
    var phyphoxInterval = 0.05
    @Flag(help: "Print each new OSC address once with its argument types, then its values; no MIDI is sent.")
    var detect = false
    @Option(help: ArgumentHelp("Only accept senders in this address block (repeatable), e.g. 192.168.1.0/24.", valueName: "CIDR"))
    var allow: [String] = []
    @Option(help: "Most TCP senders at once.")
    var maxConnections = 16
    @Option(help: ArgumentHelp("Close a connection after this many seconds without data (0: never).", valueName: "SECONDS"))
    var idleTimeout = 60.0
    @Option(help: ArgumentHelp("Send the rest values after a sender is silent this long (0: never).", valueName: "SECONDS"))
    var restAfter = 2.0
    @Option(help: ArgumentHelp("Record each sender's stream verbatim into this folder.", valueName: "DIR"))
    var record: String?
    @Flag(help: "Print latency percentiles at exit.")
    var latency = false
    @OptionGroup var input: InputOptions
    @OptionGroup var mapping: MappingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        for a in allow where CIDR(a) == nil { throw ValidationError("--allow '\(a)' is not an address or address block") }
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
        if noTcp && udp.isEmpty && connect.isEmpty && osc.isEmpty && oscTCP.isEmpty && http.isEmpty && phyphox.isEmpty {
            throw ValidationError("--no-tcp needs --udp, --osc, --osc-tcp, --http, --phyphox or --connect")
        }
    }

    func run() throws {
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.listen")
        let mappings = try mapping.mappings()
        for m in mappings { logger.info("mapping: \(m.summary)") }
        Shutdown.installHandlers()

        var config = ListenerConfiguration()
        config.bindHost = bind
        config.tcpPort = noTcp ? nil : port
        config.connect = connect.compactMap { Endpoint(parsing: $0) }
        config.udpPorts = udp
        config.oscPorts = osc
        config.oscTCPPorts = oscTCP
        config.oscDetect = detect
        config.httpPorts = http
        config.maxPushBody = httpMaxBody
        config.phyphox = phyphox.compactMap { Endpoint(parsing: $0) }
        config.phyphoxInterval = phyphoxInterval
        config.allow = allow.compactMap(CIDR.init)
        config.maxConnections = maxConnections
        config.idleTimeout = idleTimeout
        config.restAfter = restAfter
        config.maxLineLength = input.maxLine
        config.parser = input.parserOptions()
        config.recordDirectory = record

        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 16)
        let pump = OutputPump(queue: queue, outputs: detect ? [] : try Wiring.outputs(output, mappings: mappings, logger: logger))
        pump.start()
        let listener = Listener(configuration: config, mappings: mappings, queue: queue, wake: pump.wake, logger: logger)
        do {
            try listener.start()
        } catch {
            _ = listener.stop()
            pump.stop()
            throw RuntimeFailure("cannot listen: \(error)")
        }
        while !Shutdown.isRequested {
            var ts = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            nanosleep(&ts, nil)
        }
        logger.info("stopping")
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
        let ph = stats.phyphox
        if !phyphox.isEmpty {
            text += "\n  phyphox: experiments read \(ph.connects), polls \(ph.polls), frames \(ph.frames), failed requests \(ph.errors)"
        }
        text += "\n  senders accepted \(stats.accepted), refused \(stats.refused)"
        if stats.cutOff > 0 { text += ", cut off for a line over --max-line \(stats.cutOff)" }
        if stats.partialLinesLost > 0 { text += ", lines lost to a closed connection \(stats.partialLinesLost)" }
        if stats.queueDrops > 0 { text += "\n  messages dropped because the outputs fell behind: \(stats.queueDrops)" }
        if !stats.senderNames.isEmpty { text += "\n  senders: " + stats.senderNames.joined(separator: ", ") }
        for r in stats.recordings { text += "\n  recorded \(r)" }
        if latency {
            let q = stats.handoff
            text += "\n  latency socket->queued (network thread): p50 \(q.percentile(0.5)) us, p99 \(q.percentile(0.99)) us, max \(q.maxNanos / 1000) us over \(q.total) lines with messages"
            let h = pump.latency
            text += "\n  latency socket->output: p50 \(h.percentile(0.5)) us, p99 \(h.percentile(0.99)) us, max \(h.maxNanos / 1000) us over \(h.total) messages"
            let busy = Double(stats.lastDataNanos &- stats.firstDataNanos) / 1e9
            if busy > 0 {
                text += "\n  received \(stats.parser.lines) lines, \(stats.bytes / 1_000_000) MB in \((busy * 1000).rounded() / 1000) s of traffic: \(Int(Double(stats.parser.lines) / busy)) lines/s"
            }
        }
        printError(text)
    }
}
