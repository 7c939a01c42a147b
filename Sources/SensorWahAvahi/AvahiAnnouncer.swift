import CAvahi
import Logging
import SensorWahIO
#if canImport(Glibc)
    import Glibc
#endif

/// Announces the RTP-MIDI session as `_apple-midi._udp` through the system's Avahi daemon
/// (libavahi-client over D-Bus), so Macs (Audio MIDI Setup → MIDI Network Setup), iPads and
/// Linux peers list it by name. Avahi's own thread answers the daemon; nothing here is on the
/// data path. Without a daemon it logs one line and the session runs unannounced (peers can
/// still invite it by address).
public final class AvahiAnnouncer: RTPServiceAnnouncer {
    private let logger: Logger
    private var poll: OpaquePointer?
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    /// The name the service is published under (another may be chosen on a collision).
    public private(set) var publishedName: String?

    public init(logger: Logger) { self.logger = logger }

    public func announce(name: String, port: Int) -> Bool {
        guard let p = avahi_threaded_poll_new() else {
            logger.warning(
                "mDNS: cannot start Avahi's event thread; the session is not announced (peers can still invite it by address)"
            )
            return false
        }
        poll = p
        var error: Int32 = 0
        let onClient: AvahiClientCallback = { _, _, _ in }
        guard let c = avahi_client_new(avahi_threaded_poll_get(p), AvahiClientFlags(rawValue: 0), onClient, nil, &error)
        else {
            let why = String(cString: avahi_strerror(error))
            logger.warning(
                "mDNS: no Avahi daemon to announce the session (\(why)); it runs unannounced: peers invite it by address (\(port)), or start avahi-daemon"
            )
            avahi_threaded_poll_free(p)
            poll = nil
            return false
        }
        client = c
        guard let g = avahi_entry_group_new(c, nil, nil) else {
            logger.warning(
                "mDNS: Avahi refused a service entry (\(String(cString: avahi_strerror(avahi_client_errno(c))))); the session is not announced"
            )
            withdraw()
            return false
        }
        group = g
        var current = name
        for _ in 0..<10 {
            let r = avahi_entry_group_add_service_strlst(
                g, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(rawValue: 0),
                current, "_apple-midi._udp", nil, nil, UInt16(port), nil)
            if r == Int32(AVAHI_ERR_COLLISION) {
                // another session on the network has the name: take Avahi's next one ("Name #2")
                let alt = avahi_alternative_service_name(current)
                current = alt.map { String(cString: $0) } ?? current + " 2"
                if let alt { avahi_free(alt) }
                continue
            }
            guard r >= 0 else {
                logger.warning("mDNS: cannot announce '\(current)': \(String(cString: avahi_strerror(r)))")
                withdraw()
                return false
            }
            let committed = avahi_entry_group_commit(g)
            guard committed >= 0 else {
                logger.warning("mDNS: cannot announce '\(current)': \(String(cString: avahi_strerror(committed)))")
                withdraw()
                return false
            }
            if current != name { logger.notice("mDNS: '\(name)' is taken on this network; announced as '\(current)'") }
            publishedName = current
            avahi_threaded_poll_start(p)
            return true
        }
        withdraw()
        return false
    }

    public func withdraw() {
        if let p = poll { avahi_threaded_poll_stop(p) }
        if let g = group { avahi_entry_group_free(g); group = nil }
        if let c = client { avahi_client_free(c); client = nil }
        if let p = poll { avahi_threaded_poll_free(p); poll = nil }
        publishedName = nil
    }

    deinit { withdraw() }
}
