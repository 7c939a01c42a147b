import Foundation
import TestSupport
import XCTest

/// `sensorwah stream` into `sensorwah listen` over each transport must give exactly the CC
/// stream `sensorwah replay` gives for the same file; and what `--record` saved replays the same.
final class StreamListenCLITests: XCTestCase {
    let recording = CLI.recording("wrist-wah-phone.csv")

    func replayStream(_ file: String) throws -> [String] {
        let r = try CLI.run(["replay", file, "--fast", "-q"])
        XCTAssertEqual(r.status, 0)
        return CLI.lines(r.stdout)
    }

    func listen(_ extra: [String]) throws -> CLI.Running {
        try CLI.Running(["listen", "--bind", "127.0.0.1", "--rest-after", "30"] + extra)
    }

    func testTCPClientMode() throws {
        let l = try listen(["--port", "0"])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
        let s = try CLI.run(["stream", recording, "--to", "127.0.0.1:\(port)", "--speed", "8"])
        XCTAssertEqual(s.status, 0, s.stderr)
        try l.awaitStderr("sender disconnected")  // listen has read the whole take
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(CLI.lines(r.stdout), try replayStream(recording))
    }

    func testTCPServerModeWithListenConnecting() throws {
        let server = try CLI.Running(["stream", recording, "--serve", "0", "--speed", "8"])
        let port = try XCTUnwrap(server.waitForStderr(#"serving .* on tcp://0\.0\.0\.0:(\d+)"#))
        let l = try listen(["--no-tcp", "--connect", "127.0.0.1:\(port)"])
        // one pass of the recording (12.5 s at speed 8 ≈ 1.6 s), then stop before a reconnect replays it again
        XCTAssertNotNil(l.waitForStderr("sender disconnected", seconds: 15))
        l.interrupt()
        let r = l.wait()
        server.interrupt()
        _ = server.wait()
        let want = try replayStream(recording)
        XCTAssertEqual(Array(CLI.lines(r.stdout).prefix(want.count - 1)), Array(want.prefix(want.count - 1)))
    }

    func testUDPMode() throws {
        let l = try listen(["--no-tcp", "--udp", "0"])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on udp://127\.0\.0\.1:(\d+)"#))
        let want = try replayStream(recording)
        let s = try CLI.run(["stream", recording, "--udp", "127.0.0.1:\(port)", "--speed", "8"])
        XCTAssertEqual(s.status, 0, s.stderr)
        // datagrams end no connection: listen has played the take when its stdout holds the
        // replay's stream (the rest values at the end come at the exit)
        _ = try? l.awaitStdout("the replay's stream", seconds: 5) {
            want.starts(with: CLI.lines($0)) && CLI.lines($0).count >= want.count - 1
        }
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(CLI.lines(r.stdout), want)
    }

    func testBesideAHostileSenderAndRecordThenReplay() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-cli-rec-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let l = try listen(["--port", "0", "--record", dir])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
        // the hostile sender: binary garbage, an endless line, while the phone streams
        let hostile = Thread {
            guard let c = try? Loopback.Client(.tcp, to: Int(port)!) else {
                return XCTFail("the hostile sender could not connect")
            }
            var rng = SystemRandomNumberGenerator()
            for _ in 0..<300 {
                c.send((0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) })
                usleep(5000)
            }
            c.close()
        }
        hostile.start()
        let s = try CLI.run(["stream", recording, "--to", "127.0.0.1:\(port)", "--speed", "8"])
        XCTAssertEqual(s.status, 0, s.stderr)
        // listen has read the phone's whole take: its connection (the one with SensorLog's header) ended
        let phone = try l.awaitStderr(#"(127\.0\.0\.1:\d+): header with sensorlog columns"#)
        try l.awaitStderr("sender disconnected: " + NSRegularExpression.escapedPattern(for: phone))
        l.interrupt()
        let r = l.wait()
        let want = try replayStream(recording)
        XCTAssertEqual(CLI.lines(r.stdout), want, "the phone's CC stream is unaffected by the hostile sender")
        XCTAssertTrue(r.stderr.contains("line skipped") || r.stderr.contains("rows skipped"), r.stderr)
        // the phone's recording replays to the same stream
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).map { "\(dir)/\($0)" }
        XCTAssertEqual(files.count, 2, "one file per connection")
        let phoneFile = try XCTUnwrap(
            files.first { (try? String(contentsOfFile: $0, encoding: .utf8))?.hasPrefix("loggingTime") == true })
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: phoneFile)), try Data(contentsOf: URL(fileURLWithPath: recording))
        )
        XCTAssertEqual(try replayStream(phoneFile), want)
    }

    /// A phone at its own 100 Hz: `listen --latency` says how often the output thread was
    /// awake before a line was due and for how long; the CC stream is the replay's either way,
    /// and `--no-anticipate` (or `no-anticipate: true` in the config) turns the waiting off.
    func testTheOutputThreadIsAwakeForASteadyPhoneUnlessTurnedOff() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-cli-anticipate-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // three seconds of the phone at its own pace
        let file = "\(dir)/phone-3s.csv"
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        try (lines.prefix(301).joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let config = "\(dir)/rig.yaml"
        try "listen:\n  no-anticipate: true\n".write(toFile: config, atomically: true, encoding: .utf8)
        let want = try replayStream(file)
        for extra in [[], ["--no-anticipate"], ["--config", config]] {
            let l = try listen(["--port", "0", "--latency"] + extra)
            let port = try XCTUnwrap(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
            let s = try CLI.run(["stream", file, "--to", "127.0.0.1:\(port)"])
            XCTAssertEqual(s.status, 0, s.stderr)
            try l.awaitStderr("sender disconnected")  // listen has read the whole take
            l.interrupt()
            let r = l.wait()
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(CLI.lines(r.stdout), want, "\(extra)")
            let awake = r.stderr.range(
                of: #"output thread awake before a due line: (\d+) times, (\d+) us in all"#, options: .regularExpression
            )
            .map { String(r.stderr[$0]) }
            if extra.isEmpty {
                let text = try XCTUnwrap(awake, r.stderr)
                let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                // how many depends on the machine's load (the sender is a normal process here);
                // OutputPumpTests asserts how many with a sender that keeps its pace
                XCTAssertGreaterThan(numbers[0], 0, text)
                XCTAssertLessThan(numbers[1], numbers[0] * 2_100, "each time at most the 2 ms window: \(text)")
            } else {
                XCTAssertNil(awake, "\(extra): \(r.stderr)")
            }
        }
    }
}
