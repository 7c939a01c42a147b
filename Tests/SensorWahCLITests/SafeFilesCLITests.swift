import Foundation
import TestSupport
import XCTest

/// The configuration and gestures files of a running `listen --config` treated as a careful
/// daemon treats its files: a FIFO or a folder put in their place is refused without blocking
/// (SIGTERM still ends the run), a file rewritten in place is applied only once it holds still
/// and whole, and a list over the mapping cap is refused with the running configuration kept.
final class SafeFilesCLITests: XCTestCase {
    var dir: String!
    override func setUpWithError() throws {
        dir =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "sw-safe-\(getpid())-\(name.hashValue & 0xffff)"
            ).path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { if let d = dir { try? FileManager.default.removeItem(atPath: d) } }

    func config(_ ccs: [Int]) -> String {
        "listen:\n  bind: 127.0.0.1\n  port: 0\nmappings:\n"
            + ccs.map { "  - accel.x cc=\($0 % 120) ch=\($0 / 120 % 16 + 1)\n" }.joined()
    }

    /// Whether `condition` comes true within `seconds`.
    func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        (try? waitUntil("a condition", timeout: seconds, condition)) != nil
    }

    func count(_ s: String, _ part: String) -> Int { s.components(separatedBy: part).count - 1 }

    /// SIGTERM, then the run must end within `seconds`: its status and stderr.
    func terminate(_ l: CLI.Running, within seconds: Double = 5) -> CLI.Result? {
        let start = Date()
        l.signal(SIGTERM)
        guard eventually(seconds, { !l.process.isRunning }) else {
            l.signal(SIGKILL)
            _ = l.wait(timeout: 10)
            XCTFail("SIGTERM did not end listen within \(seconds) s:\n\(l.stderrSoFar)")
            return nil
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), seconds)
        return l.wait(timeout: 10)
    }

    /// The configuration and the gestures file replaced by FIFOs while listen runs: each is
    /// refused with what was seen (the run goes on with what it has), and SIGTERM ends the run
    /// at once; a FIFO or a folder given at the start is refused with the same message.
    func testAFIFOInPlaceOfTheFilesIsRefusedWithoutBlocking() throws {
        let path = dir + "/rig.yaml", moves = dir + "/moves.yaml"
        try config([11]).write(toFile: path, atomically: true, encoding: .utf8)
        let l = try CLI.Running(["listen", "--config", path, "--gestures", moves])
        XCTAssertNotNil(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#, seconds: 20), l.stderrSoFar)
        try FileManager.default.removeItem(atPath: path)
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        XCTAssertNotNil(
            l.waitForStderr("rig.yaml is a FIFO \\(named pipe\\), not a regular file.*kept", seconds: 5), l.stderrSoFar)
        XCTAssertEqual(mkfifo(moves, 0o600), 0)
        XCTAssertNotNil(
            l.waitForStderr("moves.yaml is a FIFO \\(named pipe\\), not a regular file.*kept", seconds: 5),
            l.stderrSoFar)
        // SIGHUP asks for a reload of the FIFO again: still no block
        l.signal(SIGHUP)
        XCTAssertTrue(eventually(5) { self.count(l.stderrSoFar, "rig.yaml is a FIFO") >= 2 }, l.stderrSoFar)
        guard let r = terminate(l) else { return }
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("stopping on SIGTERM"), r.stderr)

        for (what, make) in [
            ("a FIFO (named pipe)", { (p: String) in _ = mkfifo(p, 0o600) }),
            ("a directory", { (p: String) in _ = mkdir(p, 0o700) })
        ] {
            let p = dir + "/start.yaml"
            try? FileManager.default.removeItem(atPath: p)
            make(p)
            for args in [
                ["listen", "--config", p], ["replay", CLI.recording("accel-only-30hz.csv"), "--fast", "--config", p]
            ] {
                let r = try CLI.run(args, timeout: 10)
                XCTAssertNotEqual(r.status, 0)
                XCTAssertTrue(r.stderr.contains("start.yaml is \(what), not a regular file"), "\(args): \(r.stderr)")
            }
        }
    }

    /// A configuration rewritten in place in pieces (as a shell redirection does) is applied
    /// once, whole, after it holds still; a list over the cap and a file over the size cap are
    /// refused with the count and the cap, the running mappings kept; SIGTERM ends the run
    /// promptly while a change is still being written.
    func testAConfigIsAppliedOnlyWholeAndWithinTheCaps() throws {
        let path = dir + "/rig.yaml"
        try config([11]).write(toFile: path, atomically: true, encoding: .utf8)
        let l = try CLI.Running(["listen", "--config", path])
        XCTAssertNotNil(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#, seconds: 20), l.stderrSoFar)

        // 200 mappings written in place in 8 pieces, 60 ms apart: one reload, of all 200
        let whole = Array(config(Array(0..<200)).utf8)
        let fd = open(path, O_WRONLY | O_TRUNC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let piece = whole.count / 8 + 1
        for start in stride(from: 0, to: whole.count, by: piece) {
            let part = Array(whole[start..<min(start + piece, whole.count)])
            XCTAssertEqual(part.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, part.count)
            usleep(60_000)
        }
        close(fd)
        XCTAssertNotNil(l.waitForStderr("reloaded, 200 mappings now active", seconds: 5), l.stderrSoFar)
        XCTAssertEqual(count(l.stderrSoFar, "reloaded"), 1, "a half-written file was applied:\n\(l.stderrSoFar)")
        XCTAssertFalse(l.stderrSoFar.contains("is kept"), "a half-written file was read:\n\(l.stderrSoFar)")

        // over the mapping cap: refused, naming the count and the cap
        try config(Array(0..<300)).write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotNil(
            l.waitForStderr("rig.yaml:4: mappings: 300 mappings; a list holds at most 256.*kept", seconds: 5),
            l.stderrSoFar)
        // over the size cap
        let big = config([11]) + String(repeating: "# " + String(repeating: "x", count: 1000) + "\n", count: 4200)
        try big.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotNil(
            l.waitForStderr("rig.yaml is [0-9]+ bytes, over the 4194304 bytes.*kept", seconds: 5), l.stderrSoFar)
        XCTAssertEqual(count(l.stderrSoFar, "reloaded"), 1, l.stderrSoFar)

        // a writer that never stops: the reload waits, SIGTERM does not
        let stop = DispatchSemaphore(value: 0)
        let texts = (1...100).map { config([$0]) }
        let writer = Thread {
            var n = 0
            while stop.wait(timeout: .now() + .milliseconds(40)) == .timedOut {
                n += 1
                try? texts[n % 100].write(toFile: path, atomically: false, encoding: .utf8)
            }
        }
        writer.start()
        defer { stop.signal() }
        // a duration, not a condition: the file keeps changing for longer than the watch's
        // 250 ms settle, and what is tested is that no reload comes meanwhile
        usleep(500_000)
        let r = terminate(l, within: 3)
        stop.signal()
        guard let r else { return }
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(count(r.stderr, "reloaded"), 1, "a file still being written was applied:\n\(r.stderr)")
    }
}
