import Foundation
import TestSupport
import XCTest

/// The live view (`--monitor`) in a real terminal: a detached tmux session of fixed size runs
/// `replay --loop --monitor`; the test reads the screen with `capture-pane`, presses keys with
/// `send-keys`, and checks the MIDI that left afterwards and the terminal mode after `q`.
final class MonitorCLITests: XCTestCase {
    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// One tmux server of our own (its own socket), killed at the end of the test.
    struct Tmux {
        // a server per test: the last one may still be ending
        let socket = "sensorwah-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        /// Runs tmux through the shell (`system`: waited for with waitpid; Foundation's Process
        /// would wait for the daemonised server too). With `output`, returns what it printed.
        @discardableResult
        func run(_ args: [String], output: Bool = false) -> String {
            func q(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-out").path
            let line =
                ([MonitorCLITests.tmux!, "-L", socket] + args).map(q).joined(separator: " ")
                + " </dev/null 2>/dev/null >" + (output ? q(file) : "/dev/null")
            _ = system(line)
            guard output else { return "" }
            defer { try? FileManager.default.removeItem(atPath: file) }
            return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
        func screen() -> String { run(["capture-pane", "-p", "-t", "view"], output: true) }
        /// Waits until the screen shows `text`; returns the screen.
        func waitFor(_ text: String, seconds: Double = 10) -> String {
            waitFor(seconds: seconds) { $0.contains(text) }
        }
        /// Waits until the screen satisfies `ok`; returns the last screen seen either way.
        func waitFor(seconds: Double = 10, _ ok: (String) -> Bool) -> String {
            var last = ""
            _ = try? waitUntil(
                "the screen", timeout: seconds, poll: 0.05,
                observe: {
                    last = screen(); return last
                }, ok)
            return last
        }
    }

    /// Waits until the shell has written `path` whole (`echo $? > path`: the redirect makes it
    /// empty first); its text, trimmed.
    static func awaitWritten(_ path: String, seconds: Double = 10) throws -> String {
        try waitUntil(
            "\(path) written", timeout: seconds, poll: 0.05,
            observe: { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        ) { $0.hasSuffix("\n") }
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testLiveViewInATerminal() throws {
        guard Self.tmux != nil else { throw XCTSkip("tmux is not installed (tools/install-deps installs it)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-monitor-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let midi = dir.appendingPathComponent("midi.jsonl").path
        let status = dir.appendingPathComponent("status").path
        let stty = dir.appendingPathComponent("stty").path
        let cmd =
            "'\(CLI.binary.path)' replay '\(CLI.recording("wrist-wah-phone.csv"))' --loop --monitor --midi stdout"
            + " --map 'accel.x cc=11' --map 'accel.y cc=12' > '\(midi)'; echo $? > '\(status)'; stty -a > '\(stty).part'; mv '\(stty).part' '\(stty)'; sleep 30"
        let t = Tmux()
        defer { t.run(["kill-server"]) }
        t.run(["new-session", "-d", "-s", "view", "-x", "120", "-y", "40", "-c", CLI.repo.path, cmd])

        // the mapping rows with bars, the sender line, tilt; values move between two looks
        let first = t.waitFor("accel.y -> CC 12")
        XCTAssertTrue(first.contains("sensorwah replay live view"), first)
        XCTAssertTrue(first.contains("wrist-wah-phone.csv"), first)
        XCTAssertTrue(first.contains("frames/s"), first)
        XCTAssertTrue(first.contains("accel.x -> CC 11"), first)
        XCTAssertTrue(first.contains("tilt      pitch"), first)
        XCTAssertTrue(first.contains("solo: all mappings send"), first)
        XCTAssertTrue(first.range(of: #"\[#*\.*\]"#, options: .regularExpression) != nil, "no bar:\n\(first)")
        func rows(_ s: String) -> [String] { s.split(separator: "\n").map(String.init).filter { $0.contains("-> CC") } }
        let second = t.waitFor(seconds: 5) { rows($0) != rows(first) }
        XCTAssertEqual(rows(second).count, 2, second)
        XCTAssertNotEqual(rows(first), rows(second), "the values did not change:\n\(first)\n\(second)")

        // s: only mapping 1 (CC 11) sends from now on
        t.run(["send-keys", "-t", "view", "s"])
        let solo = t.waitFor("solo: mapping 1 only", seconds: 3)
        XCTAssertTrue(solo.contains("solo: mapping 1 only"), solo)
        // a margin, not a condition: messages the pipeline made before the key took effect may
        // still be on their way into the file, and nothing outside says when the last one landed
        usleep(300_000)
        func midiLines() -> [String] {
            ((try? String(contentsOfFile: midi, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        let before = midiLines().count
        // most of a second of soloed MIDI (the take makes about 50 CC 11 messages a second)
        XCTAssertNoThrow(
            try waitUntil("40 messages while soloed", timeout: 10, poll: 0.05, observe: midiLines) {
                $0.count >= before + 40
            })
        let after = try String(contentsOfFile: midi, encoding: .utf8).split(separator: "\n").map(String.init)
        let since = after.dropFirst(before)
        XCTAssertGreaterThan(since.count, 3, "no MIDI while soloed")
        XCTAssertTrue(
            since.allSatisfy { $0.contains("\"cc\":11") },
            "another controller sent while mapping 1 was soloed:\n\(since.joined(separator: "\n"))")
        XCTAssertTrue(after.prefix(before).contains { $0.contains("\"cc\":12") }, "CC 12 never sent before solo")

        // q: the run ends with status 0 and the terminal is back in its cooked mode
        t.run(["send-keys", "-t", "view", "q"])
        // the stty file appears whole (written aside, then renamed): a redirect alone would make
        // it exist empty for a moment, and the test could read it then
        try waitUntil("\(stty) to appear", poll: 0.05) { FileManager.default.fileExists(atPath: stty) }
        XCTAssertEqual(
            try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "0")
        let mode = try String(contentsOfFile: stty, encoding: .utf8)
        XCTAssertTrue(mode.range(of: #"(^|\s)icanon"#, options: .regularExpression) != nil, mode)
        XCTAssertTrue(mode.range(of: #"(^|\s)echo(\s|$)"#, options: .regularExpression) != nil, mode)
        let end = t.screen()
        XCTAssertTrue(end.contains("messages sent"), "no summary after the view:\n\(end)")
    }

    /// `listen --config --monitor` with a phone simulator streaming: soloing mapping 2 shows
    /// mapping 1 as held; `c` traces mapping 2's range and writes it into the file; an edit
    /// of the file shows its new mappings in the view.
    func testCalibrateKeyHeldMarkAndReloadedLabels() throws {
        guard Self.tmux != nil else { throw XCTSkip("tmux is not installed (tools/install-deps installs it)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-monitor-cal-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = Loopback.freePort()
        let rig = dir.appendingPathComponent("rig.yaml").path
        let head = "# my rig\nlisten:\n  bind: 127.0.0.1\n  port: \(port)\nmappings:\n"
        try (head + "  - accel.y cc=7   # volume\n  - accel.x cc=11 bipolar range=-2..2   # the wah\n")
            .write(toFile: rig, atomically: true, encoding: .utf8)
        let status = dir.appendingPathComponent("status").path
        let cmd =
            "'\(CLI.binary.path)' listen --config '\(rig)' --monitor -q --midi stdout > /dev/null; echo $? > '\(status)'; sleep 30"
        let t = Tmux()
        defer { t.run(["kill-server"]) }
        t.run(["new-session", "-d", "-s", "view", "-x", "120", "-y", "40", "-c", CLI.repo.path, cmd])
        let first = t.waitFor("accel.x -> CC 11")
        XCTAssertTrue(first.contains("c calibrate"), first)
        let sender = try CLI.Running([
            "stream", CLI.recording("watch-sweeps.csv"), "--to", "127.0.0.1:\(port)", "--speed", "4", "--loop"
        ])
        defer { sender.interrupt(); _ = sender.wait(timeout: 10) }
        XCTAssertFalse(t.waitFor("frames/s").contains("(none yet)"), t.screen())

        // c with two mappings and no solo: which one? the view says how to choose
        t.run(["send-keys", "-t", "view", "c"])
        XCTAssertTrue(
            t.waitFor("choose the mapping first", seconds: 3).contains("choose the mapping first"), t.screen())

        // s s: mapping 2 soloed, mapping 1 visibly held
        t.run(["send-keys", "-t", "view", "s"])
        t.run(["send-keys", "-t", "view", "s"])
        let solo = t.waitFor("solo: mapping 2 only", seconds: 3)
        let row1 = solo.split(separator: "\n").first { $0.contains("accel.y -> CC 7") }.map(String.init) ?? ""
        XCTAssertTrue(
            row1.hasPrefix("H 1") && row1.contains("held (solo 2)"), "mapping 1 is not shown as held:\n\(solo)")
        let row2 = solo.split(separator: "\n").first { $0.contains("accel.x -> CC 11") }.map(String.init) ?? ""
        XCTAssertTrue(row2.hasPrefix("S 2") && !row2.contains("held"), solo)

        // c: trace mapping 2 (rest pose, then the range), written into its line of the file
        t.run(["send-keys", "-t", "view", "c"])
        XCTAssertTrue(
            t.waitFor("calibrate mapping 2 (accel.x)", seconds: 3).contains("calibrate mapping 2"), t.screen())
        let done = t.waitFor("written to", seconds: 20)
        XCTAssertTrue(done.contains("calibrate mapping 2 (accel.x): range="), done)
        let text = try String(contentsOfFile: rig, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# my rig") && text.contains("  - accel.y cc=7   # volume\n"), text)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("cc=11") }.map(String.init))
        XCTAssertTrue(line.contains("# the wah") && line.contains("centre="), line)
        let r = try XCTUnwrap(line.range(of: #"range=(-?[0-9.]+)\.\.(-?[0-9.]+)"#, options: .regularExpression))
        let ends = line[r].dropFirst("range=".count).components(separatedBy: "..").compactMap(Double.init)
        XCTAssertEqual(ends.count, 2, line)
        XCTAssertEqual(ends.first ?? 0, -0.9, accuracy: 0.2, line)
        XCTAssertEqual(ends.last ?? 0, 0.9, accuracy: 0.2, line)

        // an edit of the file: the view shows the new mappings, not the old labels
        t.run(["send-keys", "-t", "view", "a"])
        let edited =
            text.replacingOccurrences(of: "accel.y cc=7   # volume", with: "gyro.z cc=21   # volume now on the twist")
            + "  - accel.z cc=12\n"
        try edited.write(toFile: rig, atomically: true, encoding: .utf8)
        let reloaded = t.waitFor("accel.z -> CC 12", seconds: 5)
        XCTAssertTrue(reloaded.contains("gyro.z -> CC 21"), reloaded)
        XCTAssertFalse(reloaded.contains("accel.y -> CC 7"), "stale label after the reload:\n\(reloaded)")
        XCTAssertTrue(reloaded.contains(" 3 accel.z -> CC 12"), reloaded)

        t.run(["send-keys", "-t", "view", "q"])
        XCTAssertEqual(try Self.awaitWritten(status), "0")
    }

    /// Without a terminal, `--monitor` prints a plain status line on stderr every 5 s.
    func testPlainStatusLineWithoutATerminal() throws {
        let run = try CLI.Running([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--loop", "--monitor", "--midi", "stdout"
        ])
        let line = run.waitForStderr(#"sensorwah monitor: ([^\n]*)"#, seconds: 9)
        run.interrupt()
        let r = run.wait(timeout: 10)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNotNil(line, r.stderr)
        XCTAssertTrue(line?.contains("wrist-wah-phone.csv") ?? false, line ?? "")
        XCTAssertTrue(line?.range(of: #"[1-9][0-9]*\.[0-9] frames/s"#, options: .regularExpression) != nil, line ?? "")
        XCTAssertTrue(
            line?.contains("zero.x -> CC 11 on channel 1 raw") ?? false, "the default mapping: " + (line ?? ""))
        XCTAssertFalse(r.stderr.contains("\u{1B}["), "escape sequences without a terminal")
        // not asked for and no terminal: no view, no status line
        let quiet = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--fast"])
        XCTAssertFalse(quiet.stderr.contains("sensorwah monitor"), quiet.stderr)
    }
}
