import NIOCore

/// An address block such as `192.168.1.0/24`, `10.0.0.7` or `::1/128`.
public struct CIDR: Sendable, Equatable, CustomStringConvertible {
    public let bytes: [UInt8]
    public let prefix: Int
    public let text: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let addr = try? SocketAddress(ipAddress: String(first), port: 0),
            let b = CIDR.addressBytes(addr)
        else { return nil }
        let max = b.count * 8
        if parts.count == 2 {
            guard let p = Int(parts[1]), p >= 0, p <= max else { return nil }
            prefix = p
        } else {
            prefix = max
        }
        bytes = b
        self.text = text
    }

    public var description: String { text }

    /// Where a phone on the same Wi-Fi, USB tether or hotspot sends from, and nothing on the
    /// internet: loopback, the private blocks (RFC 1918, IPv6 unique local) and link-local.
    public static let localNetworks: [CIDR] = [
        "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12",
        "192.168.0.0/16", "169.254.0.0/16", "fc00::/7", "fe80::/10"
    ].compactMap(CIDR.init)
    /// Every address (`--allow any`).
    public static let everywhere: [CIDR] = ["0.0.0.0/0", "::/0"].compactMap(CIDR.init)

    static func addressBytes(_ a: SocketAddress) -> [UInt8]? {
        switch a {
        case .v4(let v4):
            let raw = v4.address.sin_addr.s_addr.bigEndian
            return [UInt8(raw >> 24), UInt8((raw >> 16) & 0xFF), UInt8((raw >> 8) & 0xFF), UInt8(raw & 0xFF)]
        case .v6(let v6):
            var addr = v6.address.sin6_addr
            return withUnsafeBytes(of: &addr) { Array($0) }
        default:
            return nil
        }
    }

    public func contains(_ address: SocketAddress) -> Bool {
        guard var b = CIDR.addressBytes(address) else { return false }
        // IPv4-mapped IPv6 (::ffff:a.b.c.d) matches IPv4 blocks
        if b.count == 16 && bytes.count == 4 && b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
            b = Array(b[12..<16])
        }
        guard b.count == bytes.count else { return false }
        var bits = prefix
        var i = 0
        while bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if b[i] & mask != bytes[i] & mask { return false }
            bits -= 8
            i += 1
        }
        return true
    }
}
