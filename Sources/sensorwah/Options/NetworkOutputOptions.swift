import ArgumentParser
#if canImport(Glibc)
    import Glibc
#endif

/// MIDI and OSC to other computers: the RTP-MIDI session (`--midi rtp`) and OSC out.
struct NetworkOutputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "RTP-MIDI session name, as Macs and iPads list it (--midi rtp; default: SensorWah on HOSTNAME).",
            valueName: "NAME"))
    var rtpName: String?
    @Option(help: ArgumentHelp("RTP-MIDI control port; the data port is the next one (--midi rtp).", valueName: "PORT"))
    var rtpPort = 5004
    @Option(
        help: ArgumentHelp(
            "Invite this RTP-MIDI session (a Mac's or iPad's, at its control port; repeatable); invited again whenever it goes away.",
            valueName: "HOST:PORT"))
    var rtpConnect: [String] = []
    @Option(
        help: ArgumentHelp(
            "Drop an RTP-MIDI participant heard nothing from for this long (seconds).", valueName: "SECONDS"))
    var rtpTimeout = 60.0
    @Option(
        help: ArgumentHelp(
            "Before playing, wait up to this long for every --rtp-connect session (or, without one, a first participant) to join (seconds; 0: do not wait).",
            valueName: "SECONDS"))
    var rtpWait = 0.0
    @Flag(help: "Send RTP-MIDI without the recovery journal (a lost packet is then lost for good).")
    var noRtpJournal = false
    @Flag(help: "Do not announce the RTP-MIDI session over mDNS/Bonjour (Avahi).")
    var noRtpAnnounce = false

    @Option(
        help: ArgumentHelp(
            "Send every event as OSC to HOST:PORT over UDP, or over TCP with SLIP framing as tcp:HOST:PORT (repeatable).",
            valueName: "[tcp:]HOST:PORT"))
    var oscOut: [String] = []
    @Flag(help: "OSC out: controller and bend values as the raw MIDI integers instead of 0-1.")
    var oscOutRaw = false
    @Flag(
        help:
            "OSC out: also each frame's tilt (pitch/roll, gravity direction) and each gesture as it fires, under /sensorwah/source/SENDER/ (UDP targets)."
    )
    var oscOutSources = false
    @Flag(
        help:
            "OSC out with listen --playout: send each event as soon as it is made, in a bundle time-tagged with the moment it is due, for a receiver that plays bundles at their time."
    )
    var oscOutAhead = false

    func validate() throws {
        guard (1...65534).contains(rtpPort) else {
            throw ValidationError("--rtp-port \(rtpPort): a UDP port 1-65534 (the data port is the next one)")
        }
        for s in rtpConnect {
            do { _ = try Self.hostPort(s) } catch { throw ValidationError("--rtp-connect '\(s)': \(error)") }
        }
        for s in oscOut {
            do { _ = try Self.oscTarget(s) } catch { throw ValidationError("--osc-out '\(s)': \(error)") }
        }
        if oscOutSources && !oscOut.contains(where: { !((try? Self.oscTarget($0))?.tcp ?? true) }) {
            throw ValidationError(
                "--osc-out-sources: needs an --osc-out HOST:PORT over UDP to send to (the sources go to UDP targets only)"
            )
        }
        if oscOutAhead && oscOut.isEmpty {
            throw ValidationError("--osc-out-ahead: needs an --osc-out target to send to")
        }
        guard rtpTimeout > 0 else { throw ValidationError("--rtp-timeout \(rtpTimeout): a number of seconds above 0") }
        guard rtpWait >= 0 else { throw ValidationError("--rtp-wait \(rtpWait): a number of seconds, 0 or more") }
        if let n = rtpName, n.isEmpty || n.utf8.count > 63 { throw ValidationError("--rtp-name: 1 to 63 bytes") }
    }

    var sessionName: String {
        if let rtpName { return rtpName }
        var buf = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buf, 255) == 0 ? String(cString: buf) : "Linux"
        return "SensorWah on \(host.split(separator: ".").first.map(String.init) ?? host)"
    }

    struct ParseError: Error, CustomStringConvertible { let description: String }

    /// HOST:PORT (a name, an IPv4 address, or [IPv6]:PORT) into its parts.
    static func hostPort(_ s: String) throws -> (host: String, port: Int) {
        guard let colon = s.lastIndex(of: ":") else {
            throw ParseError(description: "expected HOST:PORT, e.g. 192.168.1.20:5004")
        }
        var host = String(s[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ParseError(description: "no host before the ':'") }
        guard let port = Int(s[s.index(after: colon)...]), (1...65535).contains(port) else {
            throw ParseError(description: "'\(s[s.index(after: colon)...])' is not a port number 1-65535")
        }
        return (host, port)
    }

    /// [tcp:|udp:]HOST:PORT.
    static func oscTarget(_ s: String) throws -> (tcp: Bool, host: String, port: Int) {
        if s.hasPrefix("tcp:") { let (h, p) = try hostPort(String(s.dropFirst(4))); return (true, h, p) }
        if s.hasPrefix("udp:") { let (h, p) = try hostPort(String(s.dropFirst(4))); return (false, h, p) }
        let (h, p) = try hostPort(s)
        return (false, h, p)
    }

    /// The first IPv4 address of a host name or address, or nil.
    static func resolveIPv4(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var res: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &res) == 0, let first = res else { return nil }
        defer { freeaddrinfo(res) }
        guard let sa = first.pointee.ai_addr else { return nil }
        return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
            var a = p.pointee.sin_addr
            var buf = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            return inet_ntop(AF_INET, &a, &buf, socklen_t(INET_ADDRSTRLEN)).map { _ in String(cString: buf) }
        }
    }
}
