import Foundation
import XCTest

/// A configuration file that is not valid YAML is reported at the line and column where the
/// mistake is, with that line's text: not where libyaml gave up (the next line, or the end of
/// the file).
final class ConfigSyntaxErrorTests: XCTestCase {
    /// The file `sensorwah init` writes, with line `n` (from 1) replaced by `text`.
    func brokenFile(_ name: String, line n: Int, _ text: String) throws -> (path: String, original: String) {
        let dir = try JackTest.tempDir("config-syntax")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(name).path
        let r = try CLI.run(["init", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        XCTAssertGreaterThan(lines.count, n)
        let original = lines[n - 1]
        lines[n - 1] = text
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return (path, original)
    }

    func error(_ path: String) throws -> String {
        let r = try CLI.run(["replay", CLI.recording("watch-sweeps.csv"), "--fast", "--config", path])
        XCTAssertNotEqual(r.status, 0, "a broken file was accepted")
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        XCTAssertEqual(errors.count, 1, r.stderr)
        return String(errors.first ?? "")
    }

    /// The line of the `port:` key in `listen:` of the file `init` writes.
    func portLine() throws -> Int {
        let (path, _) = try brokenFile("probe.yaml", line: 1, "# probe")
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        return try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  port:") }) + 1
    }

    func testAKeyWithoutItsColonIsReportedOnItsOwnLine() throws {
        let n = try portLine()
        let (path, _) = try brokenFile("colon.yaml", line: n, "  port 56204")
        let e = try error(path)
        XCTAssertTrue(e.contains("\(path):\(n):3: not valid YAML:"), "expected line \(n), column 3: \(e)")
        XCTAssertTrue(e.contains("`port 56204`"), "expected the offending text: \(e)")
    }

    func testAnUnclosedQuoteIsReportedWhereItOpensNotAtTheEndOfTheFile() throws {
        let n = try portLine()
        let (path, _) = try brokenFile("quote.yaml", line: n, "  port: \"56204")
        let e = try error(path)
        XCTAssertTrue(e.contains("\(path):\(n):9: not valid YAML:"), "expected line \(n), column 9: \(e)")
        XCTAssertTrue(e.contains("`port: \"56204`"), "expected the offending text: \(e)")
    }

    func testATabIsReportedWhereItIs() throws {
        let n = try portLine()
        let (path, _) = try brokenFile("tab.yaml", line: n, "\tport: 56204")
        let e = try error(path)
        XCTAssertTrue(e.contains("\(path):\(n):"), "expected line \(n): \(e)")
        XCTAssertTrue(e.contains("`port: 56204`"), "expected the offending text: \(e)")
    }
}

extension ConfigSyntaxErrorTests {
    /// A section name without its colon: the section's line, not its first key's.
    func testASectionWithoutItsColonIsReportedOnItsOwnLine() throws {
        let dir = try JackTest.tempDir("config-syntax")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("section.yaml").path
        try "# my rig\nmappings:\n  - accel.x cc=11\n\nlisten\n  port: 56204\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let e = try error(path)
        XCTAssertTrue(e.contains("\(path):5:1: not valid YAML:"), "expected line 5, column 1: \(e)")
        XCTAssertTrue(e.contains("`listen`"), "expected the offending text: \(e)")
    }
}

extension ConfigSyntaxErrorTests {
    /// A value that starts with '-' (the rest-gravity a re-zero saves, a negative centre) is the
    /// key's value, not read as an option ("Missing value for '--rest-gravity'").
    func testAValueStartingWithAMinusIsAValue() throws {
        let dir = try JackTest.tempDir("config-syntax")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("minus.yaml").path
        try "motion:\n  rest-gravity: -0.1,0.2,-0.97\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLI.run(["replay", CLI.recording("watch-sweeps.csv"), "--fast", "--config", path])
        XCTAssertEqual(r.status, 0, r.stderr)
    }
}

extension ConfigSyntaxErrorTests {
    /// A key indented one space too far: the message names both lines and their indentation.
    func testKeysIndentedApartNameBothLines() throws {
        let n = try portLine()
        let (path, _) = try brokenFile("indent.yaml", line: n, "   port: 56204")
        let e = try error(path)
        XCTAssertTrue(e.contains("\(path):\(n + 1):"), "expected line \(n + 1): \(e)")
        XCTAssertTrue(e.contains("line \(n) is indented by 3 spaces and this one by 2"), e)
    }
}
