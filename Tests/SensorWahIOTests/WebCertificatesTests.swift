import Foundation
import XCTest
@testable import SensorWahIO

/// The local authority and the page's certificate (`listen --web`): made once, kept, issued
/// again for new addresses, and never kept from an authority that is no longer there.
final class WebCertificatesTests: XCTestCase {
    func testIssuedAgainOnlyWhenNeeded() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-certs-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try WebCertificates.load(
            folder: dir, names: ["stage.local", "localhost", "127.0.0.1", "192.168.1.20"])
        XCTAssertTrue(first.issued)
        XCTAssertEqual(first.names, ["stage.local", "localhost", "127.0.0.1", "192.168.1.20"])
        let again = try WebCertificates.load(folder: dir, names: ["stage.local", "127.0.0.1"])
        XCTAssertFalse(again.issued, "the same names: kept")
        XCTAssertEqual(again.serverChainPEM, first.serverChainPEM)
        let moved = try WebCertificates.load(folder: dir, names: ["stage.local", "192.168.1.31"])
        XCTAssertTrue(moved.issued, "a new address")
        XCTAssertEqual(moved.authorityPEM, first.authorityPEM, "the same authority")
        // the authority moved away (as its error message says to do): a new one, and the page's
        // certificate from it, not the old authority's
        for f in ["web-ca.pem", "web-ca-key.pem"] { try FileManager.default.removeItem(atPath: dir + "/" + f) }
        let fresh = try WebCertificates.load(folder: dir, names: ["stage.local", "192.168.1.31"])
        XCTAssertNotEqual(fresh.authorityPEM, first.authorityPEM)
        XCTAssertTrue(fresh.issued, "issued by the new authority")
        // a certificate 30 days from its end is issued again
        let later = try WebCertificates.load(
            folder: dir, names: ["stage.local"],
            now: Date().addingTimeInterval(Double(WebCertificates.serverDays - 20) * 86_400))
        XCTAssertTrue(later.issued)
        for f in ["web-ca-key.pem", "web-server-key.pem"] {
            let a = try FileManager.default.attributesOfItem(atPath: dir + "/" + f)
            XCTAssertEqual((a[.posixPermissions] as? NSNumber)?.intValue, 0o600, f)
        }
    }

    func tempFolder(_ tag: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-certs-\(tag)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        return dir
    }

    func mode(_ path: String) throws -> Int {
        try XCTUnwrap((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    /// `openssl verify -CAfile ca.pem cert.pem`: its status and what it said.
    func opensslVerify(ca: String, cert: String, in dir: String) throws -> (status: Int32, output: String) {
        try ca.write(toFile: dir + "/check-ca.pem", atomically: true, encoding: .utf8)
        try cert.write(toFile: dir + "/check-cert.pem", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = ["verify", "-CAfile", dir + "/check-ca.pem", dir + "/check-cert.pem"]
        let out = Pipe()
        p.standardOutput = out; p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Whatever loosened them, every load makes the data folder the user's alone (0700) and the
    /// authority's key, the server's key and the control token readable by the user only (0600).
    func testTheFolderAndTheKeysAreTightenedAtEveryLoad() throws {
        let dir = tempFolder("modes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try WebCertificates.load(folder: dir, names: ["stage.local", "127.0.0.1"])
        _ = try ControlToken.load(folder: dir)
        let keys = ["web-ca-key.pem", "web-server-key.pem", "control-token"]
        chmod(dir, 0o755)
        for k in keys { chmod(dir + "/" + k, 0o644) }
        _ = try WebCertificates.load(folder: dir, names: ["stage.local", "127.0.0.1"])
        XCTAssertEqual(try mode(dir), 0o700)
        for k in keys { XCTAssertEqual(try mode(dir + "/" + k), 0o600, k) }
        // the token's own load tightens too
        chmod(dir, 0o777)
        chmod(dir + "/control-token", 0o666)
        _ = try ControlToken.load(folder: dir)
        XCTAssertEqual(try mode(dir), 0o700)
        XCTAssertEqual(try mode(dir + "/control-token"), 0o600)
        XCTAssertEqual(try mode(dir + "/web-ca.pem"), 0o644, "the certificates are public")
        // a key that is not a regular file: refused with a clear error
        try FileManager.default.removeItem(atPath: dir + "/web-server-key.pem")
        try FileManager.default.createDirectory(atPath: dir + "/web-server-key.pem", withIntermediateDirectories: false)
        XCTAssertThrowsError(try WebCertificates.load(folder: dir, names: ["stage.local"])) { e in
            XCTAssertTrue("\(e)".contains("is a directory"), "\(e)")
        }
    }

    /// The authority signs only for local names and private addresses (a critical name
    /// constraint that openssl enforces), lives 825 days, and the page's certificate 90; names
    /// it may not sign for are left out of the page's certificate with a notice.
    func testTheAuthorityIsConstrainedToLocalNames() throws {
        let dir = tempFolder("constraints")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let c = try WebCertificates.load(
            folder: dir,
            names: [
                "stage.local", "localhost", "127.0.0.1", "192.168.1.20", "10.1.2.3",
                "fd00::5", "8.8.8.8", "2001:db8::1", "example.com"
            ])
        XCTAssertEqual(c.names, ["stage.local", "localhost", "127.0.0.1", "192.168.1.20", "10.1.2.3", "fd00::5"])
        XCTAssertEqual(c.notices.count, 1, "\(c.notices)")
        XCTAssertTrue(c.notices[0].contains("8.8.8.8, 2001:db8::1, example.com left out"), c.notices[0])
        XCTAssertTrue(WebCertificates.constrained(pem: c.authorityPEM))
        XCTAssertEqual(try WebCertificates.validityDays(c.authorityPEM), 825, accuracy: 0.1)
        let server =
            c.serverChainPEM.components(separatedBy: "-----END CERTIFICATE-----")[0] + "-----END CERTIFICATE-----\n"
        XCTAssertEqual(try WebCertificates.validityDays(server), 90, accuracy: 0.1)
        let ok = try opensslVerify(ca: c.authorityPEM, cert: server, in: dir)
        XCTAssertEqual(ok.status, 0, ok.output)
        XCTAssertTrue(ok.output.contains(": OK"), ok.output)
        // what a leaked key could sign: refused by a verifier trusting the authority
        for names in [["example.com"], ["8.8.8.8"], ["stage.local", "bank.example"], ["localhost.evil.com"]] {
            let forged = try WebCertificates.signWithStoredAuthority(folder: dir, names: names)
            let r = try opensslVerify(ca: c.authorityPEM, cert: forged, in: dir)
            XCTAssertNotEqual(r.status, 0, "\(names): \(r.output)")
            XCTAssertTrue(r.output.contains("subtree violation"), "\(names): \(r.output)")
        }
        for (name, allowed) in [
            ("x.lan", true), ("pi.home.arpa", true), ("box.internal", true), ("local", true),
            ("lan.example.com", false),
            ("172.16.0.1", true), ("172.32.0.1", false), ("100.64.1.1", true), ("169.254.9.9", true), ("fe80::1", true),
            ("::1", true), ("::2", false)
        ] {
            XCTAssertEqual(WebCertificates.permitted(name), allowed, name)
        }
    }

    /// An authority made without the name constraints is replaced at load, once, with a notice
    /// saying the phones must trust the new one; the page's certificate comes from the new one.
    func testAnUnconstrainedAuthorityIsReplaced() throws {
        let dir = tempFolder("old-ca")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try WebCertificates.writeUnconstrainedAuthority(folder: dir)
        let old = try String(contentsOfFile: dir + "/web-ca.pem", encoding: .utf8)
        XCTAssertFalse(WebCertificates.constrained(pem: old))
        let c = try WebCertificates.load(folder: dir, names: ["stage.local", "192.168.1.20"])
        XCTAssertNotEqual(c.authorityPEM, old)
        XCTAssertTrue(WebCertificates.constrained(pem: c.authorityPEM))
        XCTAssertEqual(c.notices.count, 1, "\(c.notices)")
        XCTAssertTrue(c.notices[0].contains("/ca.crt"), c.notices[0])
        XCTAssertTrue(c.issued)
        let again = try WebCertificates.load(folder: dir, names: ["stage.local", "192.168.1.20"])
        XCTAssertEqual(again.notices, [], "replaced once")
        XCTAssertFalse(again.issued)
        XCTAssertEqual(again.authorityPEM, c.authorityPEM)
    }
}
