import Foundation
import TestSupport
import XCTest

/// A hostile guest on the venue's network beside a performer, and outputs and senders that
/// fail: issue #40's rows, each against the real binary over loopback.
final class AttackTests: XCTestCase {
    /// `tools/attack`: attacks A-D at once for 60 s (A: WebSocket text-frame flood, B:
    /// pipelined GETs on the web and push ports, C: ping floods on /ws and /api/live, D: 64
    /// slow TLS connections and 16 slow line connections), F (escapes in a web batch and an OSC
    /// device name) and E (stderr's rate) beside a 100 Hz performer. The tool fails when the
    /// performer's CC stream is not exactly its replay, listen's peak RSS is over 100 MB, the
    /// phone page, a phone's WebSocket, the control page or a second line sender does not get
    /// through during D, raw escapes reach stderr, or stderr runs over 40 lines a second.
    func testAHostileGuestCannotStopTheShow() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("no python3") }
        // the attackers use other loopback addresses (127.0.0.2-6): Linux answers all of 127/8
        let (status, text) = try CLI.tool(
            "attack",
            ["--seconds", "60", "--binary", CLI.binary.path]
                + (CLI.memoryBoundsHold ? [] : ["--max-rss-mb", "100000"]))
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("identical to `replay` of its file"), text)
        // every attack really ran: bytes sent, and the slow connections opened
        for attack in [
            "A text frames to /ws bytes", "B pipelined GET / on the web port bytes",
            "B pipelined GET / on the push port bytes",
            "C pings to /ws bytes", "C pings to /api/live bytes", "D slow TLS on the web port connections",
            "D slow lines on the line port connections"
        ] {
            XCTAssertNotNil(
                text.range(of: "  \(attack): [1-9]", options: .regularExpression), "\(attack) did not run: \(text)")
        }
        XCTAssertNotNil(text.range(of: "during D, phone WebSocket batch: ok [1-9]", options: .regularExpression), text)
    }

    /// Row I: `listen --midi stdout | head -n 5`. The only output's reader goes away: listen
    /// says so once, counts what it could not deliver and exits 1.
    func testADeadStdoutIsNotASilentSuccess() throws {
        let listen = Process()
        listen.executableURL = CLI.binary
        listen.arguments = [
            "listen", "--bind", "127.0.0.1", "--port", "0", "--no-monitor", "--midi", "stdout", "--rest-after", "0"
        ]
        let out = Pipe(), err = Pipe()
        listen.standardOutput = out
        listen.standardError = err
        listen.standardInput = FileHandle.nullDevice
        try listen.run()
        Children.stopAtTestEnd(listen, "sensorwah listen --midi stdout (its reader gone)")
        // the reader is gone at once: the first write finds a broken pipe
        try out.fileHandleForReading.close()
        final class Collected: @unchecked Sendable {
            private var text = ""
            private let lock = NSLock()
            func add(_ d: Data) { lock.lock(); text += String(decoding: d, as: UTF8.self); lock.unlock() }
            var now: String { lock.lock(); defer { lock.unlock() }; return text }
        }
        let collected = Collected()
        let done = DispatchSemaphore(value: 0)
        let handle = err.fileHandleForReading
        DispatchQueue.global().async {
            while true {
                let d = handle.availableData
                if d.isEmpty { break }
                collected.add(d)
            }
            done.signal()
        }
        func stderrNow() -> String { collected.now }
        let p = try waitUntil(
            "listen's port on its stderr", timeout: 20,
            observe: {
                stderrNow().firstCapture(#"tcp://127\.0\.0\.1:(\d+)"#) ?? stderrNow()
            }
        ) { Int($0) != nil }
        let stream = try CLI.run([
            "stream", CLI.recording("wrist-wah-phone.csv"), "--to", "127.0.0.1:\(p)", "--fast", "-q"
        ])
        XCTAssertEqual(stream.status, 0, stream.stderr)
        // the output thread writes as the messages come; the error comes once
        _ = try? waitUntil("'every output has failed' on listen's stderr", observe: stderrNow) {
            $0.contains("every output has failed")
        }
        kill(listen.processIdentifier, SIGINT)
        listen.waitUntilExit()
        done.wait()
        let text = stderrNow()
        XCTAssertEqual(listen.terminationStatus, 1, text)
        XCTAssertEqual(text.components(separatedBy: "every output has failed: stdout: Broken pipe").count - 1, 1, text)
        let n =
            text.range(
                of: #"messages delivered nowhere, every output having failed: (\d+)"#, options: .regularExpression
            )
            .map { Int(text[$0].split(separator: " ").last!) ?? 0 } ?? 0
        XCTAssertGreaterThan(n, 400, "the summary does not count what was lost: \(text)")
    }

    /// Row I with JACK: `--midi jack` the only output and no JACK server: said once, counted,
    /// exit 1.
    func testJackMIDIWithNoServerIsNotASilentSuccess() throws {
        let env = ["JACK_DEFAULT_SERVER": "sensorwah-none-\(getpid())", "JACK_NO_START_SERVER": "1"]
        let listen = try CLI.Running(
            ["listen", "--bind", "127.0.0.1", "--port", "0", "--no-monitor", "--midi", "jack", "--rest-after", "0"],
            env: env)
        let port = try XCTUnwrap(
            listen.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#, seconds: 20), listen.stderrSoFar)
        let stream = try CLI.run([
            "stream", CLI.recording("wrist-wah-phone.csv"), "--to", "127.0.0.1:\(port)", "--fast", "-q"
        ])
        XCTAssertEqual(stream.status, 0, stream.stderr)
        XCTAssertNotNil(listen.waitForStderr("every output has failed: JACK: no server connected"), listen.stderrSoFar)
        listen.interrupt()
        let r = listen.wait()
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "every output has failed").count - 1, 1, r.stderr)
        XCTAssertNotNil(
            r.stderr.range(
                of: #"messages delivered nowhere, every output having failed: [1-9]\d* \(JACK: no server connected"#,
                options: .regularExpression), r.stderr)
    }

    /// Row D's line port and its sender: a sender the port has no room for is told why, and
    /// `sensorwah stream` exits 1 with the reason.
    func testARefusedSenderIsToldAndStreamExitsNonZero() throws {
        let listen = try CLI.Running([
            "listen", "--bind", "127.0.0.1", "--port", "0", "--no-monitor", "--midi", "stdout",
            "--max-connections", "1"
        ])
        let port = try XCTUnwrap(
            listen.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#, seconds: 20), listen.stderrSoFar)
        // the performer holds the one slot, sending readings at its real pace
        let performer = try CLI.Running([
            "stream", CLI.recording("wrist-wah-phone.csv"), "--to", "127.0.0.1:\(port)", "-q"
        ])
        XCTAssertNotNil(listen.waitForStderr(#"sender connected"#), listen.stderrSoFar)
        let refused = try CLI.run([
            "stream", CLI.recording("wrist-wah-phone.csv"), "--to", "127.0.0.1:\(port)", "--fast", "-q"
        ])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertNotNil(
            refused.stderr.range(of: #"refused the stream after \d+ of 1257 lines"#, options: .regularExpression),
            refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("already 1 connection, every one in use (--max-connections 1)"), refused.stderr)
        performer.interrupt()
        _ = performer.wait()
        listen.interrupt()
        let r = listen.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("senders accepted 1, refused 1"), r.stderr)
    }
}
