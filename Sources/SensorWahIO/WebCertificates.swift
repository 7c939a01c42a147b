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
/// user only) and issues the server a certificate for every local address and
/// `HOSTNAME.local`, issued again when the addresses change or it nears its end. The phone
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

    /// Days a server certificate is valid (iOS trusts at most 825 for an installed authority).
    public static let serverDays = 397
    /// Issued again when fewer days than this are left.
    public static let renewDays = 30

    /// Loads the authority and the server certificate from `folder`, making either when it is
    /// missing, and issues the server certificate again when `names` (the local addresses and
    /// host names) are not all in it or it nears its end.
    public static func load(folder: String = defaultFolder(), names: [String], now: Date = Date()) throws -> WebCertificates {
        func path(_ f: String) -> String { folder + "/" + f }
        try makeFolder(folder)
        let caKeyPath = path("web-ca-key.pem"), caPath = path("web-ca.pem")
        let keyPath = path("web-server-key.pem"), certPath = path("web-server.pem")
        // the authority
        var caKey: P256.Signing.PrivateKey
        var ca: Certificate
        if let k = readText(caKeyPath), let c = readText(caPath) {
            do {
                caKey = try P256.Signing.PrivateKey(pemRepresentation: k)
                ca = try Certificate(pemEncoded: c)
            } catch {
                throw Failure(description: "\(caPath) or \(caKeyPath) is not a certificate and key SensorWah can read (\(error)); move both away and a new authority is made (phones that installed the old one must install the new)")
            }
        } else {
            caKey = P256.Signing.PrivateKey()
            let name = try DistinguishedName {
                CommonName("SensorWah local authority (\(hostName()))")
                OrganizationName("SensorWah")
            }
            ca = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: .init(caKey.publicKey))
                },
                issuerPrivateKey: .init(caKey))
            try writePrivate(caKeyPath, caKey.pemRepresentation)
            try writePublic(caPath, try ca.serializeAsPEM().pemString)
        }
        // the server's
        var issued = false
        var key: P256.Signing.PrivateKey
        var cert: Certificate
        let wanted = Set(names)
        if let k = readText(keyPath), let c = readText(certPath),
           let loadedKey = try? P256.Signing.PrivateKey(pemRepresentation: k), let loaded = try? Certificate(pemEncoded: c),
           loaded.issuer == ca.subject, ca.publicKey.isValidSignature(loaded.signature, for: loaded),
           loaded.notValidAfter > now.addingTimeInterval(Double(renewDays) * 86_400),
           wanted.isSubset(of: Set(certificateNames(in: loaded))) {
            key = loadedKey; cert = loaded
        } else {
            key = P256.Signing.PrivateKey()
            var alt: [GeneralName] = []
            for n in names {
                if let ip = addressBytes(n) { alt.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(ip)))) } else { alt.append(.dnsName(n)) }
            }
            let subject = try DistinguishedName { CommonName(names.first { addressBytes($0) == nil } ?? "sensorwah") }
            cert = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(serverDays) * 86_400),
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
            try writePrivate(keyPath, key.pemRepresentation)
            try writePublic(certPath, try cert.serializeAsPEM().pemString)
            issued = true
        }
        var der = DER.Serializer()
        try der.serialize(ca)
        let caPEM = try ca.serializeAsPEM().pemString
        return WebCertificates(folder: folder, authorityPEM: caPEM, authorityDER: der.serializedBytes,
                               serverChainPEM: try cert.serializeAsPEM().pemString + "\n" + caPEM,
                               serverKeyPEM: key.pemRepresentation, names: certificateNames(in: cert), issued: issued)
    }

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
                throw Failure(description: "cannot make the folder \(built) for the web certificates: \(String(cString: strerror(errno)))")
            }
        }
    }

    static func readText(_ path: String) -> String? { readWholeFile(path) }

    /// A private key: written readable by the user only, through a temporary file renamed over.
    static func writePrivate(_ path: String, _ text: String) throws { try writeFile(path, text, mode: 0o600) }
    static func writePublic(_ path: String, _ text: String) throws { try writeFile(path, text, mode: 0o644) }

    static func writeFile(_ path: String, _ text: String, mode: mode_t) throws {
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode)
        guard fd >= 0 else { throw Failure(description: "cannot write \(tmp): \(String(cString: strerror(errno)))") }
        fchmod(fd, mode)
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 { if errno == EINTR { continue }; let e = errno; close(fd); throw Failure(description: "cannot write \(tmp): \(String(cString: strerror(e)))") }
            off += n
        }
        fsync(fd); close(fd)
        guard rename(tmp, path) == 0 else { throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
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
            return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
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
