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

    func testRenderShowsProgressOnATerminal() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-progress-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.wav").path, output = dir.appendingPathComponent("out.wav").path
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = ["-n", "-r", "48000", "-c", "1", "-b", "16", input, "synth", "20", "noise", "vol", "0.3"]
        try sox.run()
        sox.waitUntilExit()
        XCTAssertEqual(sox.terminationStatus, 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", "'\(CLI.binary.path)' render --pedal 64 '\(input)' '\(output)'", "/dev/null"]
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("render ["), "no progress line:\n\(text.debugDescription)")
        XCTAssertTrue(text.contains("rendered in"), text)
    }
}
