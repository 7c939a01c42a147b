import NIOCore

/// Who may play: a sender inside `--allow` (by default the local networks) and, with `--pair`,
/// only the first sender to arrive (or the one `--pair-with` names) until restart. The policy
/// alone: the listener counts and logs what it answers.
struct Admission {
    let allow: [CIDR]
    let pair: Bool
    let pairWith: String?
    /// The paired sender's address (pair mode), once it has arrived.
    private(set) var paired: String?
    private var refusedByPair: Set<String> = []
    private var refusedByAllow: Set<String> = []

    init(allow: [CIDR], pair: Bool, pairWith: String?) {
        self.allow = allow
        self.pair = pair
        self.pairWith = pairWith
    }

    enum Verdict: Equatable {
        case admitted
        /// The first sender of pair mode: the log says so once.
        case pairedNow(ip: String)
        /// Outside `--allow`; `firstTime` for the log's one line per address.
        case outsideAllow(ip: String, firstTime: Bool)
        /// Pair mode, not the paired sender.
        case notPaired(ip: String, firstTime: Bool)
        /// No address to judge.
        case unknown
    }

    mutating func judge(_ address: SocketAddress?) -> Verdict {
        guard let a = address, let ip = a.ipAddress else { return .unknown }
        let blocks = allow.isEmpty ? CIDR.localNetworks : allow
        guard blocks.contains(where: { $0.contains(a) }) else {
            return .outsideAllow(ip: ip, firstTime: refusedByAllow.insert(ip).inserted)
        }
        guard pair else { return .admitted }
        if paired == nil {
            if let wanted = pairWith, wanted != ip {
                return .notPaired(ip: ip, firstTime: refusedByPair.insert(ip).inserted)
            }
            paired = ip
            return .pairedNow(ip: ip)
        }
        return paired == ip ? .admitted : .notPaired(ip: ip, firstTime: refusedByPair.insert(ip).inserted)
    }

    /// Why a sender outside `--allow` was refused, for the log.
    var allowText: String { allow.isEmpty ? "not on a local network (--allow widens it)" : "not in --allow" }
}
