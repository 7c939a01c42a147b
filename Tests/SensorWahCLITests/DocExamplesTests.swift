import Foundation
import TestSupport
import XCTest

/// Docs that run: every shell example line in README.md and docs/*.md that starts with
/// `sensorwah` (inside a ```sh block) is run against the bundled recordings with the binary built
/// with this test bundle, so an example the command no longer takes (a renamed flag, a removed
/// command) fails here.
///
/// - Each page runs in a fresh folder of its own, holding `Recordings` (the repository's, linked)
///   and `guitar.wav` (two seconds of a plucked note: the docs' stand-in for your own guitar), in
///   the order the page gives its examples (so `sensorwah init rig.yaml` makes the file the later
///   ones read); the line runs through `sh -c 'exec LINE'`, so redirections and comments work.
/// - A command that is still running after `runSeconds` (listen, learn, a replay with its
///   original timing, stream) is stopped and passes: it did not fail before then. One that ended
///   must have ended with status 0. A command that has written nothing yet is given up to
///   `startSeconds` (the debug binary takes 1.3-1.7 s to report an unknown option, longer
///   on a busy machine), and any command half a second more to end once `runSeconds` are up.
/// - A JACK server of the test's own (tools/jack-dummy, as the JACK tests start it) is the one
///   every example reaches, for `--wah` and `--midi jack`.
/// - A line whose comment says `doc-test: skip (REASON)` is not run (a phone on the LAN, the ALSA
///   sequencer that only the qemu guest has); the reason must be given.
final class DocExamplesTests: XCTestCase {
    struct Example: CustomStringConvertible {
        let file: String
        let line: Int
        let command: String
        let skip: String?
        var description: String { "\(file):\(line): \(command)" }
    }

    static let marker = "doc-test: skip"
    static let runSeconds = 1.5, startSeconds = 15.0

    /// The pages whose examples run: README.md and every docs/*.md.
    static func pages() throws -> [URL] {
        let docs = CLI.repo.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }
            .sorted()
        return [CLI.repo.appendingPathComponent("README.md")] + names.map { docs.appendingPathComponent($0) }
    }

    /// The `sensorwah` lines of the ```sh blocks of `text` (a line ending in `\` goes on).
    static func examples(in text: String, file: String) -> [Example] {
        var out: [Example] = []
        var inSh = false
        var pending: (line: Int, text: String)? = nil
        for (i, raw) in text.components(separatedBy: "\n").enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inSh = !inSh && (line == "```sh" || line == "```bash" || line == "```shell")
                pending = nil
                continue
            }
            guard inSh else { continue }
            var current: (line: Int, text: String)
            if let p = pending { current = (p.line, p.text + " " + line) } else { current = (i + 1, line) }
            if current.text.hasSuffix("\\") {
                current.text.removeLast()
                pending = current
                continue
            }
            pending = nil
            guard current.text.hasPrefix("sensorwah ") || current.text == "sensorwah" else { continue }
            var skip: String? = nil
            if let r = current.text.range(of: marker) {
                let rest = current.text[r.upperBound...].trimmingCharacters(in: .whitespaces)
                skip =
                    rest.hasPrefix("(") && rest.hasSuffix(")") && rest.count > 2
                    ? String(rest.dropFirst().dropLast()) : ""
            }
            out.append(Example(file: file, line: current.line, command: current.text, skip: skip))
        }
        return out
    }

    /// A page's working folder: the bundled recordings and a guitar file.
    static func workspace(_ label: String) throws -> URL {
        let dir = try JackTest.tempDir("doc-\(label)")
        try FileManager.default.createSymbolicLink(
            at: dir.appendingPathComponent("Recordings"),
            withDestinationURL: CLI.repo.appendingPathComponent("Recordings"))
        try writeGuitar(dir.appendingPathComponent("guitar.wav"))
        return dir
    }

    /// Two seconds of a decaying 110 Hz note with harmonics, 48 kHz mono 16-bit WAV.
    /// A 16-bit mono guitar at 48 kHz: six harmonics of 110 Hz plucked every half second, at
    /// 0.3 of full scale, or with its largest sample at `peak` (1: full scale).
    static func writeGuitar(_ url: URL, seconds: Double = 2, peak: Double? = nil) throws {
        let rate = 48_000, n = Int(Double(rate) * seconds)
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + n * 2)); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(1); u32(UInt32(rate)); u32(UInt32(rate * 2));
        u16(2); u16(16)
        d.append(contentsOf: Array("data".utf8)); u32(UInt32(n * 2))
        var raw = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let t = Double(i) / Double(rate)
            var s = 0.0
            for h in 1...6 { s += sin(2 * Double.pi * 110 * Double(h) * t) / Double(h) }
            raw[i] = s * exp(-1.5 * t.truncatingRemainder(dividingBy: 0.5))
        }
        let scale = peak.map { $0 / max(raw.map(abs).max() ?? 1, 1e-9) } ?? 0.3
        for x in raw {
            let v = Int16(max(-32767, min(32767, scale * x * 32767)))
            withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) }
        }
        try d.write(to: url)
    }

    struct Outcome { let ok: Bool; let stoppedAfterTimeout: Bool; let status: Int32; let stderr: String }

    /// Runs one example line in `dir` with the built binary first on the PATH.
    static func run(_ command: String, in dir: URL, env: [String: String]) throws -> Outcome {
        let bin = CLI.binary.deletingLastPathComponent().path
        var e = env
        e["PATH"] = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let p = try JackTest.Proc("/bin/sh", ["-c", "exec " + command], env: e, cwd: dir)
        // it ends, or it has run `runSeconds` and said something, or `startSeconds` pass
        let started = Wait.now()
        _ = try? waitUntil("'\(command)' to end or speak", timeout: startSeconds, poll: 0.01) {
            !p.isRunning || (Wait.now() - started >= runSeconds && !(p.stdout.isEmpty && p.stderr.isEmpty))
        }
        // a command that has just written its error is about to exit: half a second more to see
        // it end (the debug binary's unknown-option message can take over a second to come, and
        // a command caught between writing it and exiting would be stopped and pass)
        _ = try? waitUntil("'\(command)' to exit", timeout: 0.5, poll: 0.01) { !p.isRunning }
        if p.isRunning {
            // ran until stopped, as listen, learn and a timed replay do: it did not fail before
            p.signal(SIGINT)
            p.wait(timeout: 3)
            return Outcome(ok: true, stoppedAfterTimeout: true, status: 0, stderr: p.stderr)
        }
        let r = p.wait(timeout: 1)
        return Outcome(ok: r.status == 0, stoppedAfterTimeout: false, status: r.status, stderr: p.stderr)
    }

    func testEveryShellExampleInTheDocsRuns() throws {
        try JackTest.requireJackTools()
        let server = try JackTest.Server()
        let started = Date()
        var ran = 0, stopped = 0, alsaRefused = 0
        var skipped: [String] = []
        for page in try Self.pages() {
            let name = page.path.replacingOccurrences(of: CLI.repo.path + "/", with: "")
            let examples = Self.examples(in: try String(contentsOf: page, encoding: .utf8), file: name)
            guard !examples.isEmpty else { continue }
            let dir = try Self.workspace(page.deletingPathExtension().lastPathComponent)
            defer { try? FileManager.default.removeItem(at: dir) }
            for ex in examples {
                if let reason = ex.skip {
                    XCTAssertFalse(reason.isEmpty, "\(ex): a skipped example says why: `\(Self.marker) (REASON)`")
                    skipped.append("\(ex.file):\(ex.line) (\(reason))")
                    continue
                }
                let o = try Self.run(ex.command, in: dir, env: server.env)
                ran += 1
                if o.stoppedAfterTimeout { stopped += 1 }
                // this machine has no ALSA sequencer (ALSAGuestTests has one, in the qemu guest):
                // an example whose only output is ALSA must end at once, saying so
                if !o.ok, ex.command.contains("--midi alsa"), !FileManager.default.fileExists(atPath: "/dev/snd/seq") {
                    XCTAssertEqual(o.status, 1, "\(ex)")
                    XCTAssertTrue(
                        o.stderr.contains("no ALSA sequencer") && o.stderr.contains("No output could start"),
                        "\(ex)\nexited with status \(o.status):\n\(o.stderr.suffix(1500))")
                    alsaRefused += 1
                    continue
                }
                XCTAssertTrue(o.ok, "\(ex)\nexited with status \(o.status):\n\(o.stderr.suffix(1500))")
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "doc examples: \(ran) run (\(stopped) stopped after \(Self.runSeconds) s, \(alsaRefused) refused for want of an ALSA sequencer), \(skipped.count) skipped: \(skipped.joined(separator: "; ")); \(String(format: "%.1f", seconds)) s"
        )
        XCTAssertGreaterThan(ran, 20, "the README and docs/ should have their examples in ```sh blocks")
    }

    /// The runner tells a broken example from a working one: the same line with a renamed flag
    /// fails, a missing file fails, and a skip marker without a reason is seen as one.
    func testARenamedFlagOrAMissingFileFails() throws {
        let dir = try Self.workspace("self-check")
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = "sensorwah replay Recordings/wrist-wah-phone.csv --fast --midi stdout > cc.jsonl"
        XCTAssertTrue(try Self.run(good, in: dir, env: [:]).ok)
        let renamed = try Self.run(good.replacingOccurrences(of: "--fast", with: "--fastest"), in: dir, env: [:])
        XCTAssertFalse(renamed.ok, "a renamed flag must fail")
        XCTAssertFalse(renamed.stoppedAfterTimeout)
        XCTAssertFalse(try Self.run("sensorwah replay Recordings/no-such-take.csv --fast", in: dir, env: [:]).ok)

        let text =
            "```sh\nsensorwah ports   # doc-test: skip (needs the ALSA sequencer)\nsensorwah ports  # doc-test: skip\nsensorwah replay \\\n  Recordings/wrist-wah-phone.csv --fast\necho sensorwah\n```\n```\nsensorwah not-shell\n```\n"
        let ex = Self.examples(in: text, file: "t.md")
        XCTAssertEqual(
            ex.map(\.command),
            [
                "sensorwah ports   # doc-test: skip (needs the ALSA sequencer)",
                "sensorwah ports  # doc-test: skip",
                "sensorwah replay  Recordings/wrist-wah-phone.csv --fast"
            ])
        XCTAssertEqual(ex.map(\.skip), ["needs the ALSA sequencer", "", nil])
        XCTAssertEqual(ex.map(\.line), [2, 3, 4])
    }
}
