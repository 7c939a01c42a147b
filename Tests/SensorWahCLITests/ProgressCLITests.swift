import Foundation
import XCTest

/// `replay --fast` on a terminal shows a progress line on stderr (and clears it); off a
/// terminal it prints none. The terminal is a real pseudo-terminal from util-linux `script`.
final class ProgressCLITests: XCTestCase {
    func testProgressLineOnlyOnATerminal() throws {
        let rec = CLI.recording("wrist-wah-phone.csv")
        let bin = CLI.binary.path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // stdout to /dev/null so only the progress line and the summary reach the terminal
        p.arguments = ["-qec", "'\(bin)' replay '\(rec)' --fast --midi stdout > /dev/null", "/dev/null"]
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("replay ["), "no progress line on a terminal:\n\(text.debugDescription)")
        XCTAssertTrue(text.range(of: #"\] [0-9]+%"#, options: .regularExpression) != nil, text)
        XCTAssertTrue(text.contains("\u{1B}[2K"), "the progress line was not cleared")
        XCTAssertTrue(text.contains("messages sent"), "no summary:\n\(text)")
        // not a terminal: no progress line
        let plain = try CLI.run(["replay", rec, "--fast"])
        XCTAssertFalse(plain.stderr.contains("replay ["), plain.stderr)
    }
}
