import Crypto
import Foundation
import SwiftASN1
import X509
#if canImport(Glibc)
    import Glibc
#endif

/// The certificates `listen --web` serves its page with. Browsers give a page the motion
/// sensors only in a secure context, so the page is HTTPS, and a phone on the local network can
/// only trust a certificate that some authority it knows signed. SensorWah makes its own small
/// authority on first use (kept in the user's data folder, its private key readable by the
/// user only; signing only for local names and private addresses) and issues the server a
/// certificate for every local address and `HOSTNAME.local` within those, issued again when the
/// addresses change or it nears its end. The phone
/// accepts the browser's warning once, or installs the authority (`/ca.crt`, or the iOS
/// profile) so that no warning appears.
public struct WebCertificates: Sendable {
    public let folder: String
    /// The authority's certificate (PEM and DER: what `/ca.crt` serves).
    public let authorityPEM: String
    public let authorityDER: [UInt8]
    /// The server's certificate chain (server, authority) as PEM, and its private key as PEM.
    public let serverChainPEM: String
    public let serverKeyPEM: String
    /// The names the server certificate holds.
    public let names: [String]
    /// True when the server certificate was issued now (first use, new addresses, renewal).
    public let issued: Bool

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The data folder: `$XDG_DATA_HOME/sensorwah`, or `~/.local/share/sensorwah`.
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let d = environment["XDG_DATA_HOME"], !d.isEmpty { return d + "/sensorwah" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return home + "/.local/share/sensorwah"
    }

    /// Days a server certificate is valid (issued again quietly when it nears its end).
    public static let serverDays = 90
    /// Days the authority is valid; a new one is made (and phones must trust it again) after.
    public static let authorityDays = 825
    /// Issued again when fewer days than this are left.
    public static let renewDays = 30
    /// What is said besides (an authority made again, names left out of the certificate): one
    /// line each, for the terminal.
    public let notices: [String]

    /// The DNS names the authority may sign for (each with the names below it): local names only.
    public static let permittedDNS = [
        "localhost", "local", ".local", "lan", ".lan", "home.arpa", ".home.arpa", "internal", ".internal"
    ]
    /// The address blocks it may sign for: private, loopback, link-local and shared (CGNAT)
    /// IPv4; loopback, unique-local and link-local IPv6.
    public static let permittedBlocks = [
        "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16",
        "100.64.0.0/10", "::1/128", "fc00::/7", "fe80::/10"
    ]

    /// The authority's name constraints: only the local names and blocks above, critical (a
    /// key that leaks cannot make a certificate a phone trusting the authority accepts for
    /// any other site).
    static func nameConstraints() -> NameConstraints {
        let ranges = permittedBlocks.compactMap { block -> ASN1OctetString? in
            let parts = block.split(separator: "/")
            guard parts.count == 2, let bytes = addressBytes(String(parts[0])), let bits = Int(parts[1]) else {
                return nil
            }
            let mask = (0..<bytes.count).map { i -> UInt8 in
                let left = bits - i * 8
                return left >= 8 ? 0xFF : left <= 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - left))
            }
            return ASN1OctetString(contentBytes: ArraySlice(bytes + mask))
        }
        return NameConstraints(permittedDNSDomains: permittedDNS, permittedIPRanges: ranges)
    }

    /// Whether the authority may sign for `name` (a DNS name or an address).
    public static func permitted(_ name: String) -> Bool {
        if let bytes = addressBytes(name) {
            return permittedBlocks.contains { block in
                let parts = block.split(separator: "/")
                guard let base = addressBytes(String(parts[0])), base.count == bytes.count, let bits = Int(parts[1])
                else { return false }
                for i in 0..<bytes.count {
                    let left = bits - i * 8
                    let m: UInt8 = left >= 8 ? 0xFF : left <= 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - left))
                    if bytes[i] & m != base[i] & m { return false }
                }
                return true
            }
        }
        let n = name.lowercased()
        return permittedDNS.contains { d in d.hasPrefix(".") ? n.hasSuffix(d) : (n == d || n.hasSuffix("." + d)) }
    }

    /// Whether a certificate carries the name constraints SensorWah gives its authority.
    static func constrained(_ ca: Certificate) -> Bool {
        guard let ext = ca.extensions[oid: .X509ExtensionID.nameConstraints], ext.critical,
            let nc = try? NameConstraints(ext)
        else { return false }
        return nc == nameConstraints()
    }

    /// Loads the authority and the server certificate from `folder`, making either when it is
    /// missing, and issues the server certificate again when `names` (the local addresses and
    /// host names) are not all in it or it nears its end.
    public static func load(folder: String = defaultFolder(), names: [String], now: Date = Date()) throws
        -> WebCertificates
    {
        func path(_ f: String) -> String { folder + "/" + f }
        try makeFolder(folder)
        try tighten(folder)
        let caKeyPath = path("web-ca-key.pem"), caPath = path("web-ca.pem")
        let keyPath = path("web-server-key.pem"), certPath = path("web-server.pem")
        var notices: [String] = []
        // the authority
        var caKey: P256.Signing.PrivateKey
        var ca: Certificate
        var loadedAuthority: (P256.Signing.PrivateKey, Certificate)?
        if let k = readText(caKeyPath), let c = readText(caPath) {
            do {
                loadedAuthority = (try P256.Signing.PrivateKey(pemRepresentation: k), try Certificate(pemEncoded: c))
            } catch {
                throw Failure(
                    description:
                        "\(caPath) or \(caKeyPath) is not a certificate and key SensorWah can read (\(error)); move both away and a new authority is made (phones that installed the old one must install the new)"
                )
            }
            if let (_, c) = loadedAuthority {
                if !constrained(c) {
                    notices.append(
                        "web: a new local authority was made, limited to local names and private addresses (the one in \(folder) could sign for any site): phones that trusted the old one must install the new one (the page's /ca.crt link, or the iOS profile)"
                    )
                    loadedAuthority = nil
                } else if c.notValidAfter <= now.addingTimeInterval(Double(renewDays) * 86_400) {
                    notices.append(
                        "web: the local authority nears its end, a new one was made: phones that trusted the old one must install the new one (the page's /ca.crt link, or the iOS profile)"
                    )
                    loadedAuthority = nil
                }
            }
        }
        if let (k, c) = loadedAuthority {
            caKey = k; ca = c
        } else {
            (caKey, ca) = try makeAuthority(now: now)
            try writePrivate(caKeyPath, caKey.pemRepresentation)
            try writePublic(caPath, try ca.serializeAsPEM().pemString)
        }
        // the server's
        var issued = false
        var key: P256.Signing.PrivateKey
        var cert: Certificate
        // a public address or a name outside the local ones: the authority may not sign for it
        // (a phone would refuse the whole certificate), so it is left out
        let left = names.filter { !permitted($0) }
        let names = names.filter(permitted)
        if !left.isEmpty {
            notices.append(
                "web: \(left.joined(separator: ", ")) left out of the page's certificate: the local authority signs only local names (.local, .lan, .home.arpa, .internal, localhost) and private addresses; open the page at one of those"
            )
        }
        let wanted = Set(names)
        if let k = readText(keyPath), let c = readText(certPath),
            let loadedKey = try? P256.Signing.PrivateKey(pemRepresentation: k),
            let loaded = try? Certificate(pemEncoded: c),
            loaded.issuer == ca.subject, ca.publicKey.isValidSignature(loaded.signature, for: loaded),
            loaded.notValidAfter > now.addingTimeInterval(Double(renewDays) * 86_400),
            loaded.notValidAfter.timeIntervalSince(loaded.notValidBefore) <= Double(serverDays + 1) * 86_400,
            wanted.isSubset(of: Set(certificateNames(in: loaded)))
        {
            key = loadedKey; cert = loaded
        } else {
            (key, cert) = try issueServer(names: names, caKey: caKey, ca: ca, now: now)
            try writePrivate(keyPath, key.pemRepresentation)
            try writePublic(certPath, try cert.serializeAsPEM().pemString)
            issued = true
        }
        var der = DER.Serializer()
        try der.serialize(ca)
        let caPEM = try ca.serializeAsPEM().pemString
        return WebCertificates(
            folder: folder, authorityPEM: caPEM, authorityDER: der.serializedBytes,
            serverChainPEM: try cert.serializeAsPEM().pemString + "\n" + caPEM,
            serverKeyPEM: key.pemRepresentation, names: certificateNames(in: cert), issued: issued, notices: notices)
    }

    /// A new authority: valid `authorityDays`, signing only for local names and addresses
    /// (`constrained` false: an authority for any name, which `load` replaces; tests make one).
    static func makeAuthority(now: Date, constrained: Bool = true) throws -> (P256.Signing.PrivateKey, Certificate) {
        let caKey = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("SensorWah local authority (\(hostName()))")
            OrganizationName("SensorWah")
        }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(Double(authorityDays) * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                if constrained { Critical(nameConstraints()) }
                SubjectKeyIdentifier(hash: .init(caKey.publicKey))
            },
            issuerPrivateKey: .init(caKey))
        return (caKey, ca)
    }

    /// A server certificate for `names` (DNS names and addresses), valid `serverDays`, signed by
    /// the authority (whatever the names: `load` gives it only permitted ones).
    static func issueServer(names: [String], caKey: P256.Signing.PrivateKey, ca: Certificate, now: Date) throws -> (
        P256.Signing.PrivateKey, Certificate
    ) {
        let key = P256.Signing.PrivateKey()
        var alt: [GeneralName] = []
        for n in names {
            if let ip = addressBytes(n) {
                alt.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(ip))))
            } else {
                alt.append(.dnsName(n))
            }
        }
        let subject = try DistinguishedName { CommonName(names.first { addressBytes($0) == nil } ?? "sensorwah") }
        let cert = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(Double(serverDays) * 86_400),
            issuer: ca.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alt)
                SubjectKeyIdentifier(hash: .init(key.publicKey))
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(caKey.publicKey)).keyIdentifier)
            },
            issuerPrivateKey: .init(caKey))
        return (key, cert)
    }

    /// Tests: a certificate for `names` signed with the key in `folder`, as anyone holding the
    /// key could make one (PEM); and an unconstrained authority written there.
    static func signWithStoredAuthority(folder: String, names: [String]) throws -> String {
        guard let k = readText(folder + "/web-ca-key.pem"), let c = readText(folder + "/web-ca.pem") else {
            throw Failure(description: "no authority in \(folder)")
        }
        let (_, cert) = try issueServer(
            names: names, caKey: try P256.Signing.PrivateKey(pemRepresentation: k), ca: try Certificate(pemEncoded: c),
            now: Date())
        return try cert.serializeAsPEM().pemString
    }
    static func writeUnconstrainedAuthority(folder: String) throws {
        try makeFolder(folder)
        let (k, c) = try makeAuthority(now: Date(), constrained: false)
        try writePrivate(folder + "/web-ca-key.pem", k.pemRepresentation)
        try writePublic(folder + "/web-ca.pem", try c.serializeAsPEM().pemString)
    }
    /// Days from a PEM certificate's start to its end.
    static func validityDays(_ pem: String) throws -> Double {
        let c = try Certificate(pemEncoded: pem)
        return c.notValidAfter.timeIntervalSince(c.notValidBefore) / 86_400
    }
    /// Whether a PEM certificate carries SensorWah's critical name constraints.
    static func constrained(pem: String) -> Bool { (try? Certificate(pemEncoded: pem)).map(constrained) ?? false }

    /// The DNS names and addresses a certificate is for.
    static func certificateNames(in cert: Certificate) -> [String] {
        guard let san = try? cert.extensions.subjectAlternativeNames else { return [] }
        return san.compactMap { n -> String? in
            switch n {
            case .dnsName(let d): return d
            case .ipAddress(let o): return addressText(Array(o.bytes))
            default: return nil
            }
        }
    }

    /// The local addresses (IPv4 and IPv6, not link-local IPv6) and host names to serve on:
    /// `HOSTNAME.local`, `localhost`, then each address.
    public static func localNames() -> [String] {
        var out = ["\(hostName()).local", "localhost"]
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return out + ["127.0.0.1"] }
        defer { freeifaddrs(list) }
        var p: UnsafeMutablePointer<ifaddrs>? = first
        while let i = p {
            if let a = i.pointee.ifa_addr {
                let family = Int32(a.pointee.sa_family)
                var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                if family == AF_INET {
                    var sin = a.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                    if inet_ntop(AF_INET, &sin.sin_addr, &buf, socklen_t(buf.count)) != nil {
                        let s = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                        if !out.contains(s) { out.append(s) }
                    }
                } else if family == AF_INET6 {
                    var sin6 = a.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                    let b = withUnsafeBytes(of: &sin6.sin6_addr) { Array($0) }
                    let linkLocal = b[0] == 0xFE && (b[1] & 0xC0) == 0x80
                    if !linkLocal, inet_ntop(AF_INET6, &sin6.sin6_addr, &buf, socklen_t(buf.count)) != nil {
                        let s = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                        if !out.contains(s) { out.append(s) }
                    }
                }
            }
            p = i.pointee.ifa_next
        }
        return out
    }

    public static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count) == 0 else { return "sensorwah" }
        let h = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return h.split(separator: ".").first.map(String.init) ?? (h.isEmpty ? "sensorwah" : h)
    }

    static func addressBytes(_ s: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, s, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, s, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    static func addressText(_ b: [UInt8]) -> String? {
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok: Bool = b.withUnsafeBytes { p in
            if b.count == 4 { return inet_ntop(AF_INET, p.baseAddress, &buf, socklen_t(buf.count)) != nil }
            if b.count == 16 { return inet_ntop(AF_INET6, p.baseAddress, &buf, socklen_t(buf.count)) != nil }
            return false
        }
        return ok ? buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
    }

    static func makeFolder(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                throw Failure(
                    description:
                        "cannot make the folder \(built) for the web certificates: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The private files of the data folder (readable by the user only).
    static let privateFiles = ["web-ca-key.pem", "web-server-key.pem", "control-token"]

    /// The data folder made the user's alone (0700) and each private file in it readable by the
    /// user only (0600), whatever loosened them since; quietly, unless a chmod fails.
    public static func tighten(_ folder: String) throws {
        func fix(_ path: String, _ mode: mode_t, directory: Bool) throws {
            var st = stat()
            // the folder may be a link to one elsewhere; the files in it may not be links
            guard (directory ? stat(path, &st) : lstat(path, &st)) == 0 else { return }  // not there (yet)
            let type = st.st_mode & S_IFMT
            guard type == (directory ? S_IFDIR : S_IFREG) else {
                throw Failure(
                    description:
                        "\(path) is \(CarefulFile.kind(st.st_mode)), not a \(directory ? "folder" : "regular file"): move it away (SensorWah keeps its keys there)"
                )
            }
            guard st.st_mode & 0o7777 != mode else { return }
            guard chmod(path, mode) == 0 else {
                throw Failure(
                    description:
                        "cannot make \(path) readable by its owner only (chmod \(String(mode, radix: 8))): \(String(cString: strerror(errno)))"
                )
            }
        }
        try fix(folder, 0o700, directory: true)
        for f in privateFiles { try fix(folder + "/" + f, 0o600, directory: false) }
    }

    static func readText(_ path: String) -> String? {
        try? CarefulFile.readText(path, what: "a key or certificate file", maxBytes: 1 << 20)
    }

    /// A private key: written readable by the user only, through a temporary file renamed over.
    static func writePrivate(_ path: String, _ text: String) throws { try writeFile(path, text, mode: 0o600) }
    static func writePublic(_ path: String, _ text: String) throws { try writeFile(path, text, mode: 0o644) }

    /// Through a new file of a random name renamed over (CarefulFile.replace), with `mode`.
    static func writeFile(_ path: String, _ text: String, mode: mode_t) throws {
        do { try CarefulFile.replace(path, with: Array(text.utf8), mode: mode) } catch {
            throw Failure(description: error.description)
        }
    }

    /// An iOS configuration profile that installs the authority (Settings then asks to trust it).
    public func mobileConfig() -> String {
        let b64 = Data(authorityDER).base64EncodedString()
        let id = "local.sensorwah.authority." + WebCertificates.hostName()
        func uuid(_ seed: UInt8) -> String {
            var h: [UInt8] = Array(authorityDER.suffix(16))
            while h.count < 16 { h.append(seed) }
            h[0] ^= seed
            let hex = h.map { String(format: "%02X", $0) }.joined()
            let c = Array(hex)
            return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20])
                + "-" + String(c[20..<32])
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>PayloadContent</key>
              <array>
                <dict>
                  <key>PayloadCertificateFileName</key><string>sensorwah-ca.crt</string>
                  <key>PayloadContent</key><data>\(b64)</data>
                  <key>PayloadDisplayName</key><string>SensorWah local authority</string>
                  <key>PayloadIdentifier</key><string>\(id).cert</string>
                  <key>PayloadType</key><string>com.apple.security.root</string>
                  <key>PayloadUUID</key><string>\(uuid(1))</string>
                  <key>PayloadVersion</key><integer>1</integer>
                </dict>
              </array>
              <key>PayloadDisplayName</key><string>SensorWah on \(WebCertificates.hostName())</string>
              <key>PayloadIdentifier</key><string>\(id)</string>
              <key>PayloadType</key><string>Configuration</string>
              <key>PayloadUUID</key><string>\(uuid(2))</string>
              <key>PayloadVersion</key><integer>1</integer>
            </dict>
            </plist>
            """
    }
}
