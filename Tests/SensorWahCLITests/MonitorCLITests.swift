import Foundation
import XCTest

/// The live view (`--monitor`) in a real terminal: a detached tmux session of fixed size runs
/// `replay --loop --monitor`; the test reads the screen with `capture-pane`, presses keys with
/// `send-keys`, and checks the MIDI that left afterwards and the terminal mode after `q`.
final class MonitorCLITests: XCTestCase {
    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// One tmux server of our own (its own socket), killed at the end of the test.
    struct Tmux {
        let socket = "sensorwah-test-\(getpid())"
        /// Runs tmux through the shell (`system`: waited for with waitpid; Foundation's Process
        /// would wait for the daemonised server too). With `output`, returns what it printed.
        @discardableResult
        func run(_ args: [String], output: Bool = false) -> String {
            func q(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-out").path
            let line = ([MonitorCLITests.tmux!, "-L", socket] + args).map(q).joined(separator: " ")
                + " </dev/null 2>/dev/null >" + (output ? q(file) : "/dev/null")
            _ = system(line)
            guard output else { return "" }
            defer { try? FileManager.default.removeItem(atPath: file) }
            return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
        func screen() -> String { run(["capture-pane", "-p", "-t", "view"], output: true) }
        /// Waits until the screen shows `text`; returns the screen.
        func waitFor(_ text: String, seconds: Double = 10) -> String {
            let deadline = Date().addingTimeInterval(seconds)
            var s = ""
            while Date() < deadline {
                s = screen()
                if s.contains(text) { return s }
                usleep(50_000)
            }
            return s
        }
    }

    func testLiveViewInATerminal() throws {
        guard Self.tmux != nil else { throw XCTSkip("tmux is not installed (tools/install-deps installs it)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-monitor-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let midi = dir.appendingPathComponent("midi.jsonl").path
        let status = dir.appendingPathComponent("status").path
        let stty = dir.appendingPathComponent("stty").path
        let cmd = "'\(CLI.binary.path)' replay '\(CLI.recording("wrist-wah-phone.csv"))' --loop --monitor --midi stdout"
            + " --map 'accel.x cc=11' --map 'accel.y cc=12' > '\(midi)'; echo $? > '\(status)'; stty -a > '\(stty)'; sleep 30"
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
        usleep(600_000)
        let second = t.screen()
        XCTAssertEqual(rows(second).count, 2, second)
        XCTAssertNotEqual(rows(first), rows(second), "the values did not change:\n\(first)\n\(second)")

        // s: only mapping 1 (CC 11) sends from now on
        t.run(["send-keys", "-t", "view", "s"])
        let solo = t.waitFor("solo: mapping 1 only", seconds: 3)
        XCTAssertTrue(solo.contains("solo: mapping 1 only"), solo)
        usleep(300_000)
        let before = (try? String(contentsOfFile: midi, encoding: .utf8))?.split(separator: "\n").count ?? 0
        usleep(1_500_000)
        let after = try String(contentsOfFile: midi, encoding: .utf8).split(separator: "\n").map(String.init)
        let since = after.dropFirst(before)
        XCTAssertGreaterThan(since.count, 3, "no MIDI while soloed")
        XCTAssertTrue(since.allSatisfy { $0.contains("\"cc\":11") }, "another controller sent while mapping 1 was soloed:\n\(since.joined(separator: "\n"))")
        XCTAssertTrue(after.prefix(before).contains { $0.contains("\"cc\":12") }, "CC 12 never sent before solo")

        // q: the run ends with status 0 and the terminal is back in its cooked mode
        t.run(["send-keys", "-t", "view", "q"])
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: stty) && Date() < deadline { usleep(50_000) }
        usleep(100_000)
        XCTAssertEqual(try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "0")
        let mode = try String(contentsOfFile: stty, encoding: .utf8)
        XCTAssertTrue(mode.range(of: #"(^|\s)icanon"#, options: .regularExpression) != nil, mode)
        XCTAssertTrue(mode.range(of: #"(^|\s)echo(\s|$)"#, options: .regularExpression) != nil, mode)
        let end = t.screen()
        XCTAssertTrue(end.contains("messages sent"), "no summary after the view:\n\(end)")
    }

    /// Without a terminal, `--monitor` prints a plain status line on stderr every 5 s.
    func testPlainStatusLineWithoutATerminal() throws {
        let run = try CLI.Running(["replay", CLI.recording("wrist-wah-phone.csv"), "--loop", "--monitor", "--midi", "stdout"])
        let line = run.waitForStderr(#"sensorwah monitor: ([^\n]*)"#, seconds: 9)
        run.interrupt()
        let r = run.wait(timeout: 10)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNotNil(line, r.stderr)
        XCTAssertTrue(line?.contains("wrist-wah-phone.csv") ?? false, line ?? "")
        XCTAssertTrue(line?.range(of: #"[1-9][0-9]*\.[0-9] frames/s"#, options: .regularExpression) != nil, line ?? "")
        XCTAssertTrue(line?.contains("accel.x -> CC 11 on channel 1 raw") ?? false, line ?? "")
        XCTAssertFalse(r.stderr.contains("\u{1B}["), "escape sequences without a terminal")
        // not asked for and no terminal: no view, no status line
        let quiet = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--fast"])
        XCTAssertFalse(quiet.stderr.contains("sensorwah monitor"), quiet.stderr)
    }
}
