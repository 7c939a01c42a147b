import CALSA
#if canImport(Glibc)
    import Glibc
#endif

// Plumbing shared by the output, the receiver and the port list: opening the sequencer,
// walking its clients and ports, and turning "CLIENT[:PORT]" into an address.

/// `snd_seq_t *`
typealias SeqHandle = OpaquePointer

/// A sequencer address, client:port.
public struct ALSAAddress: Hashable, Sendable, CustomStringConvertible {
    public var client: Int32
    public var port: Int32
    public init(client: Int32, port: Int32) { self.client = client; self.port = port }
    public var description: String { "\(client):\(port)" }
}

enum Sequencer {
    static let openDuplex = Int32(SND_SEQ_OPEN_OUTPUT) | Int32(SND_SEQ_OPEN_INPUT)

    /// Opens "default" (blocking) with libasound's own error printing silenced.
    static func open(streams: Int32 = openDuplex, mode: Int32 = 0) throws(ALSAError) -> SeqHandle {
        sensorwah_alsa_silence()
        var handle: SeqHandle?
        let r = snd_seq_open(&handle, "default", streams, mode)
        guard r >= 0, let handle else { throw ALSAError.openFailure(r) }
        return handle
    }

    /// Every client, in number order (number, name, kernel?, card, pid).
    struct ClientInfo {
        var number: Int32
        var name: String
        var isKernel: Bool
        var card: Int32
        var pid: Int32
    }

    struct PortInfo {
        var address: ALSAAddress
        var name: String
        var capability: UInt32
        var type: UInt32
        var exported: Bool { capability & UInt32(SND_SEQ_PORT_CAP_NO_EXPORT) == 0 }
        /// Can we send to it (write, and others may subscribe to write)?
        var acceptsSubscribers: Bool {
            let want = UInt32(SND_SEQ_PORT_CAP_WRITE) | UInt32(SND_SEQ_PORT_CAP_SUBS_WRITE)
            return capability & want == want && exported
        }
    }

    static func clients(_ seq: SeqHandle) -> [ClientInfo] {
        var info: OpaquePointer?
        guard snd_seq_client_info_malloc(&info) >= 0, let info else { return [] }
        defer { snd_seq_client_info_free(info) }
        snd_seq_client_info_set_client(info, -1)
        var out: [ClientInfo] = []
        while snd_seq_query_next_client(seq, info) >= 0 {
            out.append(
                ClientInfo(
                    number: snd_seq_client_info_get_client(info),
                    name: String(cString: snd_seq_client_info_get_name(info)),
                    isKernel: snd_seq_client_info_get_type(info) == SND_SEQ_KERNEL_CLIENT,
                    card: snd_seq_client_info_get_card(info),
                    pid: snd_seq_client_info_get_pid(info)))
        }
        return out
    }

    static func ports(_ seq: SeqHandle, client: Int32) -> [PortInfo] {
        var info: OpaquePointer?
        guard snd_seq_port_info_malloc(&info) >= 0, let info else { return [] }
        defer { snd_seq_port_info_free(info) }
        snd_seq_port_info_set_client(info, client)
        snd_seq_port_info_set_port(info, -1)
        var out: [PortInfo] = []
        while snd_seq_query_next_port(seq, info) >= 0 {
            out.append(
                PortInfo(
                    address: ALSAAddress(client: client, port: snd_seq_port_info_get_port(info)),
                    name: String(cString: snd_seq_port_info_get_name(info)),
                    capability: snd_seq_port_info_get_capability(info),
                    type: snd_seq_port_info_get_type(info)))
        }
        return out
    }

    static func clientName(_ seq: SeqHandle, _ client: Int32) -> String? {
        var info: OpaquePointer?
        guard snd_seq_client_info_malloc(&info) >= 0, let info else { return nil }
        defer { snd_seq_client_info_free(info) }
        guard snd_seq_get_any_client_info(seq, client, info) >= 0 else { return nil }
        return String(cString: snd_seq_client_info_get_name(info))
    }

    /// The subscribers of `root` (read subscriptions: where its events go, or write ones:
    /// where its events come from).
    static func subscribers(_ seq: SeqHandle, of root: ALSAAddress, read: Bool) -> [ALSAAddress] {
        var q: OpaquePointer?
        guard snd_seq_query_subscribe_malloc(&q) >= 0, let q else { return [] }
        defer { snd_seq_query_subscribe_free(q) }
        var addr = snd_seq_addr_t(
            client: UInt8(truncatingIfNeeded: root.client), port: UInt8(truncatingIfNeeded: root.port))
        snd_seq_query_subscribe_set_root(q, &addr)
        snd_seq_query_subscribe_set_type(q, read ? SND_SEQ_QUERY_SUBS_READ : SND_SEQ_QUERY_SUBS_WRITE)
        snd_seq_query_subscribe_set_index(q, 0)
        var out: [ALSAAddress] = []
        while snd_seq_query_port_subscribers(seq, q) >= 0 {
            if let a = snd_seq_query_subscribe_get_addr(q) {
                out.append(ALSAAddress(client: Int32(a.pointee.client), port: Int32(a.pointee.port)))
            }
            snd_seq_query_subscribe_set_index(q, snd_seq_query_subscribe_get_index(q) + 1)
        }
        return out
    }
}

/// "CLIENT[:PORT]": the client by number or name, the port by number or name, or no port
/// (then: the client's first port that accepts subscribers). Names match exactly first,
/// then ignoring case, then as a prefix (as `aconnect` does for client names).
public struct ALSAAddressSpec: Sendable, Equatable, CustomStringConvertible {
    public enum Part: Sendable, Equatable {
        case number(Int32)
        case name(String)
    }
    public var client: Part
    public var port: Part?
    public let text: String

    public init(parsing text: String) throws(ALSAError) {
        self.text = text
        let s = text.trimmingSpaces
        guard !s.isEmpty else {
            throw ALSAError(
                .badAddress, "empty ALSA sequencer address (want CLIENT[:PORT], e.g. 128:0 or \"Midi Through\")")
        }
        var clientText = s
        var portText: String? = nil
        if let colon = s.lastIndex(of: ":") {
            clientText = String(s[..<colon]).trimmingSpaces
            portText = String(s[s.index(after: colon)...]).trimmingSpaces
        } else if let dot = s.firstIndex(of: "."), Int32(s[..<dot]) != nil, Int32(s[s.index(after: dot)...]) != nil {
            clientText = String(s[..<dot])  // "128.0", as aconnect accepts
            portText = String(s[s.index(after: dot)...])
        }
        guard !clientText.isEmpty else {
            throw ALSAError(
                .badAddress,
                "ALSA sequencer address '\(text)' names no client (want CLIENT[:PORT], e.g. 128:0 or \"Midi Through\")")
        }
        if let n = Int32(clientText) {
            guard (0...255).contains(n) else {
                throw ALSAError(.badAddress, "ALSA sequencer address '\(text)': client number \(n) is not 0-255")
            }
            client = .number(n)
        } else {
            client = .name(clientText)
        }
        if let p = portText {
            guard !p.isEmpty else {
                throw ALSAError(
                    .badAddress,
                    "ALSA sequencer address '\(text)' has an empty port after ':' (want CLIENT[:PORT], e.g. 128:0 or \"Midi Through:0\")"
                )
            }
            if let n = Int32(p) {
                guard (0...255).contains(n) else {
                    throw ALSAError(.badAddress, "ALSA sequencer address '\(text)': port number \(n) is not 0-255")
                }
                port = .number(n)
            } else {
                port = .name(p)
            }
        }
    }

    public var description: String { text }

    /// Finds the address now; nil if that client or port does not exist (yet).
    func resolve(_ seq: SeqHandle, excluding own: Int32) -> ALSAAddress? {
        let all = Sequencer.clients(seq).filter { $0.number != own }
        let found: Sequencer.ClientInfo?
        switch client {
        case .number(let n): found = all.first { $0.number == n }
        case .name(let name): found = Self.bestMatch(name, in: all, \.name)
        }
        guard let c = found else { return nil }
        let ports = Sequencer.ports(seq, client: c.number).filter(\.exported)
        switch port {
        case .none: return ports.first(where: \.acceptsSubscribers)?.address
        case .number(let n): return ports.first { $0.address.port == n }?.address
        case .name(let name): return Self.bestMatch(name, in: ports, \.name)?.address
        }
    }

    static func bestMatch<T>(_ wanted: String, in items: [T], _ name: (T) -> String) -> T? {
        if let x = items.first(where: { name($0) == wanted }) { return x }
        let lw = wanted.lowercased()
        if let x = items.first(where: { name($0).lowercased() == lw }) { return x }
        // libasound pads some names (the System ports) with spaces
        if let x = items.first(where: { name($0).trimmingSpaces.lowercased() == lw }) { return x }
        return items.first { name($0).lowercased().hasPrefix(lw) }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

/// Monotonic seconds.
@inline(__always)
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
