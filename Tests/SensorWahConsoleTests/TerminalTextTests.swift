import XCTest
@testable import SensorWahConsole

/// Text from the network on a terminal, and the log's budget.
final class TerminalTextTests: XCTestCase {
    func testControlCharactersAreEscaped() {
        XCTAssertEqual(TerminalText.escaped("phone\u{1B}[2J\u{1B}]0;x\u{07}\nfake"), "phone\\e[2J\\e]0;x\\x07\\nfake")
        XCTAssertEqual(
            TerminalText.escaped("a\r\tb\u{7F}\u{9B}\u{2028}\u{202E}"), "a\\r\\tb\\x7f\\x9b\\u{2028}\\u{202e}")
        XCTAssertEqual(TerminalText.escaped("Gitarre – Ünïcödé 手"), "Gitarre – Ünïcödé 手")
        XCTAssertTrue(TerminalText.isPlain("tilt.x cc=11"))
        XCTAssertEqual(TerminalText.escaped(String(repeating: "x", count: 20), limit: 5), "xxxxx...(15 more)")
    }

    func testEachSiteGetsTenLinesASecondAndCountsTheRest() {
        let rate = LogRate()
        let site = LogRate.Site(file: "f", line: 1), other = LogRate.Site(file: "f", line: 2)
        let t0: UInt64 = 1_000_000_000_000
        var passed = 0
        for i in 0..<1000 {
            if rate.admit(site, text: "line \(i)", now: t0 + UInt64(i) * 500_000) != nil { passed += 1 }
        }
        XCTAssertEqual(passed, LogRate.burst)
        // another site has its own budget
        XCTAssertNotNil(rate.admit(other, text: "x", now: t0))
        // the next second's first line comes with the count of what was left out
        let next = rate.admit(site, text: "later", now: t0 + 1_500_000_000)
        XCTAssertEqual(next??.count, 990)
        XCTAssertEqual(next??.last, "line 999")
        XCTAssertTrue(rate.takeAll().isEmpty)
    }
}
