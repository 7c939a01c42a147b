import Foundation
import XCTest

/// The flood, short: `tools/flood` for 10 s with 6 senders at full speed (2 TCP, 2 UDP, 2 OSC)
/// beside the 100 Hz performer, against the binary built with the tests. The performer's CC
/// stream must be exactly its replay, its own latency reported apart from the flood's, and
/// listen's memory must stay flat. The full run
/// (`tools/flood`, 32 senders, 60 s, release build) gives the figures in docs/reliability.md.
final class FloodTests: XCTestCase {
    func testPerformerBesideAFloodIsUntouched() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("no python3") }
        let (status, text) = try CLI.tool(
            "flood",
            ["--seconds", "10", "--senders", "6", "--binary", CLI.binary.path]
                + (CLI.memoryBoundsHold ? ["--max-rss-mb", "128"] : []))
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("identical to `replay` of its file"), text)
        // the performer's own latency is reported apart from the crowd's (tools/flood fails when
        // its count is not the messages the performer's lines caused)
        XCTAssertNotNil(
            text.range(
                of: #"performer's latency socket->output: p50 \d+ us, p99 \d+ us, max \d+ us over [1-9]\d* messages"#,
                options: .regularExpression), text)
        XCTAssertTrue(text.contains("flood's latency socket->output from hyperimu@127.0.0.1"), text)
        // memory: the peak no more than 32 MB over what listen held before the flood began
        let m = try XCTUnwrap(
            text.range(of: #"listen RSS: (\d+) kB at start, .* peak \(VmHWM\) (\d+) kB"#, options: .regularExpression)
                .map { String(text[$0]) })
        let numbers = m.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        let start = try XCTUnwrap(numbers.first), peak = try XCTUnwrap(numbers.last)
        if CLI.memoryBoundsHold {
            XCTAssertLessThan(peak - start, 32 << 10, "listen grew from \(start) kB to \(peak) kB under the flood")
        }
        // the flood really flowed: thousands of lines and OSC packets
        let lines =
            text.range(of: #"lines received (\d+)"#, options: .regularExpression).map {
                Int(text[$0].split(separator: " ").last!) ?? 0
            } ?? 0
        XCTAssertGreaterThan(lines, 5_000, text)
    }
}
