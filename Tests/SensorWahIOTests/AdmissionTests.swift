import NIOCore
import XCTest
@testable import SensorWahIO

/// Who may play, as a table: each sender's address in turn and what `Admission` answers.
final class AdmissionTests: XCTestCase {
    func addr(_ ip: String) throws -> SocketAddress { try SocketAddress(ipAddress: ip, port: 5000) }

    func testTheLocalNetworksByDefaultAndTheAllowListWhenGiven() throws {
        var open = Admission(allow: [], pair: false, pairWith: nil)
        XCTAssertEqual(open.judge(try addr("192.168.1.20")), .admitted)
        XCTAssertEqual(open.judge(try addr("::1")), .admitted)
        XCTAssertEqual(open.judge(try addr("8.8.8.8")), .outsideAllow(ip: "8.8.8.8", firstTime: true))
        XCTAssertEqual(open.judge(try addr("8.8.8.8")), .outsideAllow(ip: "8.8.8.8", firstTime: false))
        XCTAssertEqual(open.judge(nil), .unknown)
        XCTAssertEqual(open.allowText, "not on a local network (--allow widens it)")

        var narrow = Admission(allow: [CIDR("10.1.0.0/16")!], pair: false, pairWith: nil)
        XCTAssertEqual(narrow.judge(try addr("10.1.2.3")), .admitted)
        XCTAssertEqual(narrow.judge(try addr("192.168.1.20")), .outsideAllow(ip: "192.168.1.20", firstTime: true))
        XCTAssertEqual(narrow.allowText, "not in --allow")
    }

    func testPairModeKeepsTheFirstSenderUntilRestart() throws {
        var a = Admission(allow: [], pair: true, pairWith: nil)
        let table: [(String, Admission.Verdict)] = [
            ("192.168.1.20", .pairedNow(ip: "192.168.1.20")),
            ("192.168.1.20", .admitted),
            ("192.168.1.21", .notPaired(ip: "192.168.1.21", firstTime: true)),
            ("192.168.1.21", .notPaired(ip: "192.168.1.21", firstTime: false)),
            ("8.8.8.8", .outsideAllow(ip: "8.8.8.8", firstTime: true)),
            ("192.168.1.20", .admitted)
        ]
        for (ip, want) in table { XCTAssertEqual(a.judge(try addr(ip)), want, ip) }
        XCTAssertEqual(a.paired, "192.168.1.20")
    }

    func testPairWithWaitsForTheNamedSender() throws {
        var a = Admission(allow: [], pair: true, pairWith: "192.168.1.30")
        XCTAssertEqual(a.judge(try addr("192.168.1.20")), .notPaired(ip: "192.168.1.20", firstTime: true))
        XCTAssertNil(a.paired)
        XCTAssertEqual(a.judge(try addr("192.168.1.30")), .pairedNow(ip: "192.168.1.30"))
        XCTAssertEqual(a.judge(try addr("192.168.1.20")), .notPaired(ip: "192.168.1.20", firstTime: false))
    }
}
