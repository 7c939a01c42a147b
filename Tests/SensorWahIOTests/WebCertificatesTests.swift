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
        let first = try WebCertificates.load(folder: dir, names: ["stage.local", "localhost", "127.0.0.1", "192.168.1.20"])
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
        let later = try WebCertificates.load(folder: dir, names: ["stage.local"], now: Date().addingTimeInterval(Double(WebCertificates.serverDays - 20) * 86_400))
        XCTAssertTrue(later.issued)
        for f in ["web-ca-key.pem", "web-server-key.pem"] {
            let a = try FileManager.default.attributesOfItem(atPath: dir + "/" + f)
            XCTAssertEqual((a[.posixPermissions] as? NSNumber)?.intValue, 0o600, f)
        }
    }
}
