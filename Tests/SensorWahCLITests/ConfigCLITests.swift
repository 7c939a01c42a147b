import Foundation
import TestSupport
import XCTest

/// The configuration file: `init` writes the defaults exactly, `--config` loads it, typed
/// options override it, every error names the file, the line and the key, and `listen`
/// reloads it live without dropping a connection.
final class ConfigCLITests: XCTestCase {
    let recording = CLI.recording("wrist-wah-phone.csv")
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func file(_ name: String, _ text: String) throws -> String {
        let p = dir.appendingPathComponent(name).path
        try text.write(toFile: p, atomically: false, encoding: .utf8)
        return p
    }

    /// Every configuration seed and every input the config fuzzer crashed on
    /// (Tests/Fuzz/{Corpus,Regressions}/config, tools/fuzz config SECONDS) loads through the real
    /// command: it runs, or it is refused with a message; never a trap.
    func testFuzzCorpusAndRegressions() throws {
        let fuzz = CLI.repo.appendingPathComponent("Tests/Fuzz")
        let log = fuzz.appendingPathComponent("Corpus/parser/sensorlog.csv").path
        var count = 0
        for kind in ["Corpus", "Regressions"] {
            let folder = fuzz.appendingPathComponent("\(kind)/config")
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            where !name.hasPrefix(".") {
                let path = folder.appendingPathComponent(name).path
                let r = try CLI.run(["export", log, "--sources", "accel.x", "--config", path])
                // 0 ran, 1 refused the run, 64 a bad option, 78 a bad configuration file
                XCTAssertTrue([0, 1, 64, 78].contains(r.status), "\(kind)/\(name): status \(r.status)\n\(r.stderr)")
                if r.status != 0 { XCTAssertFalse(r.stderr.isEmpty, "\(kind)/\(name): refused without a message") }
                if r.status == 78 { XCTAssertTrue(r.stderr.contains(path), "\(kind)/\(name): \(r.stderr)") }
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 3)
    }

    func testInitWritesTheBuiltInDefaultsExactly() throws {
        let path = dir.appendingPathComponent("rig.yaml").path
        let i = try CLI.run(["init", path])
        XCTAssertEqual(i.status, 0, i.stderr)
        let again = try CLI.run(["init", path])
        XCTAssertEqual(again.status, 1, "init overwrote an existing file")
        for args in [["replay", recording, "--fast"], ["replay", recording, "--fast", "--map", "gyro.z cc=3"]] {
            let plain = try CLI.run(args)
            let configured = try CLI.run(args + ["--config", path])
            XCTAssertEqual(plain.status, 0)
            XCTAssertEqual(configured.status, 0, configured.stderr)
            XCTAssertEqual(configured.stdout, plain.stdout, "the init file does not reproduce the defaults for \(args)")
            XCTAssertFalse(plain.stdout.isEmpty)
        }
        // every mapping option the file writes parses back to the same mapping
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("mappings:"))
        XCTAssertTrue(text.contains("# "), "the file has no comments")
    }

    func testTypedOptionsOverrideTheFile() throws {
        let path = try file(
            "c.yaml",
            """
            mappings:
              - accel.x cc=21 ch=3
            playback:
              speed: 0.01
            """)
        // the file's mapping is used ...
        let a = try CLI.run(["replay", recording, "--fast", "--config", path])
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertTrue(a.stdout.contains("\"ch\":3,\"cc\":21"), a.stdout.prefix(200).description)
        // ... and a typed --map replaces the file's list; a typed --speed wins over the file's
        let b = try CLI.run(["replay", recording, "--speed", "1000", "--config", path, "--map", "accel.x cc=5"])
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertFalse(b.stdout.contains("\"cc\":21"))
        XCTAssertTrue(b.stdout.contains("\"cc\":5"))
    }

    /// Each broken file gives one error naming the file, the line and the key.
    func testErrorsNameTheFileTheLineAndTheKey() throws {
        let cases: [(String, String, Int, String)] = [
            ("listen:\n  prot: 3\n", "listen.prot", 2, "allowed in listen"),
            ("listne:\n  port: 3\n", "listne", 1, "unknown section"),
            ("# comment\nlisten:\n  port: many\n", "listen.port", 3, "expects a number"),
            ("listen:\n  bind: 0.0.0.0\n  port: 70000\n", "listen.port", 3, "--port must be 0-65535"),
            ("listen:\n  udp: [5555, 99999]\n", "listen.udp", 2, "--udp"),
            ("listen:\n  idle-timeout: -4\n", "listen.idle-timeout", 2, "--idle-timeout"),
            ("listen:\n  playout: later\n", "listen.playout", 2, "--playout"),
            ("wah:\n  mix: 3\n", "wah.mix", 2, "--mix"),
            ("jack:\n  wah: maybe\n", "jack.wah", 2, "true or false"),
            ("mappings:\n  - accel.x cc=11\n  - accel.y cc=300\n", "mappings", 3, "cc needs a whole number 0-127"),
            ("mappings:\n  - accel.x cc=11\n  - elbow.z cc=3\n", "mappings", 3, "unknown source"),
            ("input:\n  format: excel\n", "input.format", 2, "--format"),
            ("listen:\n  port: [1\n", "", 0, "not valid YAML")
        ]
        for (n, (text, key, line, message)) in cases.enumerated() {
            let path = try file("bad\(n).yaml", text)
            let r = try CLI.run(["listen", "--config", path])
            XCTAssertNotEqual(r.status, 0, "\(text) was accepted")
            let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
            XCTAssertEqual(errors.count, 1, r.stderr)
            let e = String(errors.first ?? "")
            if line > 0 {
                XCTAssertTrue(e.contains("\(path):\(line): \(key)"), "expected \(path):\(line): \(key) in: \(e)")
            } else {
                XCTAssertTrue(e.contains(path), e)
            }
            XCTAssertTrue(e.contains(message), "expected '\(message)' in: \(e)")
            XCTAssertFalse(r.stderr.contains("Usage:"), "a file's error printed a usage line: \(r.stderr)")
        }
    }

    /// listen reloads its file when it changes and on SIGHUP: new mappings take over, controllers
    /// only the old ones drove go to rest, the sender stays connected; a broken edit is reported
    /// and the running configuration kept.
    func testListenReloadsLiveWithoutDroppingTheSender() throws {
        func config(_ cc: Int) -> String {
            "listen:\n  bind: 127.0.0.1\n  port: 0\n  rest-after: 30\nmappings:\n  - accel.x cc=\(cc) ch=1\n"
        }
        let path = try file("live.yaml", config(11))
        let l = try CLI.Running(["listen", "--config", path])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
        let sender = try CLI.Running(["stream", recording, "--to", "127.0.0.1:\(port)", "--loop", "--speed", "2"])
        defer { sender.interrupt(); _ = sender.wait() }
        XCTAssertNoThrow(try l.awaitStdout("CC 11") { $0.contains("\"cc\":11,") }, "no CC 11 before the reload")
        // (no pause for a new modification time: a file written aside and renamed is a new inode,
        // and the watch compares the inode, size and both times to the nanosecond)
        try config(20).write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotNil(l.waitForStderr("reloaded, (1) mapping", seconds: 10), l.stderrSoFar)
        XCTAssertNoThrow(try l.awaitStdout("CC 20") { $0.contains("\"cc\":20,") }, "the new mapping does not send")
        // a broken edit: reported at its line, the running configuration (CC 20) kept
        try "listen:\n  bind: 127.0.0.1\nmappings:\n  - accel.x cc=999\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotNil(
            l.waitForStderr("(\(NSRegularExpression.escapedPattern(for: path)):4: mappings).*kept", seconds: 10),
            l.stderrSoFar)
        let countAfterBreak = l.stdoutSoFar.components(separatedBy: "\"cc\":20,").count
        XCTAssertNoThrow(
            try l.awaitStdout("5 more CC 20") { $0.components(separatedBy: "\"cc\":20,").count > countAfterBreak + 5 },
            "CC 20 stopped after a broken edit")
        // SIGHUP reloads too (the file is unchanged: the same error is reported again)
        let reportsBefore = l.stderrSoFar.components(separatedBy: "is kept").count
        l.signal(SIGHUP)
        XCTAssertNoThrow(
            try waitUntil("another 'is kept' on stderr", observe: { l.stderrSoFar }) {
                $0.components(separatedBy: "is kept").count > reportsBefore
            },
            "SIGHUP did not reload:\n\(l.stderrSoFar)")
        XCTAssertTrue(l.process.isRunning, "SIGHUP ended listen")
        XCTAssertFalse(l.stderrSoFar.contains("disconnected"), "the sender was dropped by a reload:\n\(l.stderrSoFar)")
        sender.interrupt()
        _ = sender.wait()
        try l.awaitStderr("sender disconnected")
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        // CC 11 was sent its rest value when CC 20 took over, after its last moving value
        let lines = CLI.lines(r.stdout)
        let firstCC20 = try XCTUnwrap(lines.firstIndex { $0.contains("\"cc\":20,") })
        let lastCC11 = try XCTUnwrap(lines.lastIndex { $0.contains("\"cc\":11,") })
        XCTAssertLessThan(lastCC11, firstCC20)
        XCTAssertTrue(lines[lastCC11].contains("\"value\":64"), "CC 11 left at \(lines[lastCC11])")
    }

    /// Scenes: named sets of mappings in the file; SIGUSR2 moves to the next; a switch sends
    /// the old scene's controllers their rest values and never drops the sender.
    func testScenesSwitchLiveWithoutLeavingAControllerStuck() throws {
        let path = try file(
            "scenes.yaml",
            """
            listen:
              bind: 127.0.0.1
              port: 0
              rest-after: 30
            scene: verse
            scenes:
              verse:
                - accel.x cc=11
              solo:
                - accel.x cc=20
                - accel.x cc=21 ch=2
            """)
        let l = try CLI.Running(["listen", "--config", path])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
        XCTAssertNotNil(l.waitForStderr("scene 'verse' of verse, solo", seconds: 5), l.stderrSoFar)
        let sender = try CLI.Running(["stream", recording, "--to", "127.0.0.1:\(port)", "--loop", "--speed", "2"])
        defer { sender.interrupt(); _ = sender.wait() }
        XCTAssertNoThrow(try l.awaitStdout("CC 11") { $0.contains("\"cc\":11,") })
        l.signal(SIGUSR2)
        XCTAssertNotNil(l.waitForStderr("scene 'solo' \\(2 of 2\\)", seconds: 5), l.stderrSoFar)
        XCTAssertNoThrow(
            try l.awaitStdout("CC 21 on channel 2") { $0.contains("\"ch\":2,\"cc\":21,") },
            "the solo scene does not play")
        l.signal(SIGUSR2)
        XCTAssertNotNil(l.waitForStderr("scene 'verse' \\(1 of 2\\)", seconds: 5), l.stderrSoFar)
        // the sender plays on into verse: CC 11 again after solo's first CC 20
        XCTAssertNoThrow(
            try l.awaitStdout("CC 11 after solo") { out in
                let lines = CLI.lines(out)
                guard let solo = lines.firstIndex(where: { $0.contains("\"cc\":20,") }) else { return false }
                return lines[solo...].contains { $0.contains("\"cc\":11,") }
            })
        XCTAssertFalse(l.stderrSoFar.contains("disconnected"), "a scene switch dropped the sender")
        sender.interrupt()
        _ = sender.wait()
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = CLI.lines(r.stdout)
        // into solo: CC 11 rested before CC 20 played; back to verse: CC 20 and 21 rested
        let firstSolo = try XCTUnwrap(lines.firstIndex { $0.contains("\"cc\":20,") })
        let lastVerseBefore = try XCTUnwrap(lines[..<firstSolo].lastIndex { $0.contains("\"cc\":11,") })
        XCTAssertTrue(lines[lastVerseBefore].contains("\"value\":64"), lines[lastVerseBefore])
        let backToVerse = try XCTUnwrap(lines.indices.first { $0 > firstSolo && lines[$0].contains("\"cc\":11,") })
        let lastSolo = try XCTUnwrap(lines[..<backToVerse].lastIndex { $0.contains("\"cc\":20,") })
        XCTAssertTrue(lines[lastSolo].contains("\"value\":64"), lines[lastSolo])
        // a wrong scene name is one clear error
        let bad = try CLI.run(["listen", "--config", path, "--scene", "chorus"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("verse, solo"), bad.stderr)
    }

    /// Re-zero while listening (SIGUSR1) saves the rest orientation into the file, and the next
    /// start reads it back.
    func testReZeroIsSavedToTheConfiguration() throws {
        let path = try file(
            "zero.yaml",
            """
            # my rig
            listen:
              bind: 127.0.0.1
              port: 0
              rest-after: 30
            mappings:
              - tilt.x cc=11 bipolar zero
            """)
        let l = try CLI.Running(["listen", "--config", path])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
        let sender = try CLI.Running(["stream", recording, "--to", "127.0.0.1:\(port)", "--loop", "--speed", "2"])
        defer { sender.interrupt(); _ = sender.wait() }
        try l.awaitStdout("CC 11") { $0.contains("\"cc\":11,") }
        // the rest taken at the start (the stream's first tilt) is not written into the file
        XCTAssertFalse(
            try String(contentsOfFile: path, encoding: .utf8).contains("rest-gravity"), "saved before any re-zero")
        XCTAssertFalse(l.stderrSoFar.contains("rest orientation captured"), l.stderrSoFar)
        l.signal(SIGUSR1)
        XCTAssertNotNil(l.waitForStderr("rest orientation captured and saved to", seconds: 10), l.stderrSoFar)
        sender.interrupt()
        _ = sender.wait()
        l.interrupt()
        _ = l.wait()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# my rig"), text)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("rest-gravity:") }, text)
        let numbers = line.split(separator: ":")[1].split(separator: "#")[0].split(separator: ",")
            .compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        XCTAssertEqual(numbers.count, 3, String(line))
        XCTAssertEqual(sqrt(numbers.reduce(0) { $0 + $1 * $1 }), 1, accuracy: 0.05, "not a direction: \(line)")
        // the next start reads it
        let r = try CLI.run(["replay", recording, "--fast", "--config", path])
        XCTAssertEqual(r.status, 0, r.stderr)
    }
}
