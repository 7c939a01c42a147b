import Foundation
import XCTest

/// What a new user trips over in the first hour (issue #42): no silent failure, no file that
/// is not what its name says.
final class FirstHourTests: XCTestCase {
    /// `--midi alsa` on a machine without a sequencer (this one: no sound in the kernel): when
    /// ALSA is the only output, replay and learn refuse at once with the reason and exit 1,
    /// instead of playing the take into nothing and reporting the messages as sent.
    func testALSAAsTheOnlyOutputWithoutASequencerIsRefused() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/snd/seq") else {
            throw XCTSkip("this machine has an ALSA sequencer")
        }
        for args in [
            ["replay", CLI.recording("wrist-wah-phone.csv"), "--midi", "alsa", "--fast"],
            ["learn", "1", "--midi", "alsa"]
        ] {
            let r = try CLI.run(args, timeout: 20)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.components(separatedBy: "no ALSA sequencer").count - 1, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("No output could start, so nothing would be delivered"), r.stderr)
            XCTAssertFalse(r.stderr.contains("messages sent"), r.stderr)
            XCTAssertEqual(r.stdout, "")
        }
    }

    /// Beside an output that works, the one that cannot start is one error line and the run
    /// goes on in full.
    func testAnALSAOutputThatCannotStartBesideAnotherIsOneLine() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/snd/seq") else {
            throw XCTSkip("this machine has an ALSA sequencer")
        }
        let r = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--midi", "alsa", "--midi", "stdout", "--fast"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "no ALSA sequencer").count - 1, 1, r.stderr)
        XCTAssertGreaterThan(CLI.lines(r.stdout).count, 500)
    }

    /// `plot -o take.png` would be SVG in a .png: refused before anything is read or written.
    func testPlotRefusesAPictureNamedForAnotherFormat() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-plot-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("take.png").path
        let r = try CLI.run(["plot", CLI.recording("wrist-wah-phone.csv"), "-o", png])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("plot writes SVG, not PNG; name the file \(dir.path)/take.svg"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: png))
        let svg = dir.appendingPathComponent("take.svg").path
        let ok = try CLI.run(["plot", CLI.recording("wrist-wah-phone.csv"), "-o", svg])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue((try String(contentsOfFile: svg, encoding: .utf8)).contains("<svg"))
    }

    /// A `listen:` setting `listen` would refuse is refused by every command that reads the
    /// file, at its line; a tab in the indentation is named as such.
    func testEveryCommandChecksTheWholeFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-cfg-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = dir.appendingPathComponent("port.yaml").path, tab = dir.appendingPathComponent("tab.yaml").path
        try "mappings:\n  - tilt.x zero cc=11\nlisten:\n  port: 99999\n".write(
            toFile: port, atomically: true, encoding: .utf8)
        try "listen:\n\tport: 9000\n".write(toFile: tab, atomically: true, encoding: .utf8)
        let take = CLI.recording("wrist-wah-phone.csv")
        for args in [
            ["replay", take, "--fast"], ["plot", take, "-o", dir.appendingPathComponent("p.svg").path], ["learn", "1"]
        ] {
            let r = try CLI.run(args + ["--config", port], timeout: 20)
            XCTAssertEqual(r.status, 78, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\(port):4: listen.port: --port must be 0-65535"), r.stderr)
            XCTAssertTrue(r.stderr.contains("listen would refuse this file"), r.stderr)
            let t = try CLI.run(args + ["--config", tab], timeout: 20)
            XCTAssertEqual(t.status, 78, t.stderr)
            XCTAssertTrue(
                t.stderr.contains("\(tab):2:1: a tab in the indentation: YAML indents with spaces only"), t.stderr)
        }
        let l = try CLI.run(["listen", "--config", port], timeout: 20)
        XCTAssertNotEqual(l.status, 0)
        XCTAssertTrue(l.stderr.contains("\(port):4: listen.port: --port must be 0-65535"), l.stderr)
    }

    /// Mistyped words get the nearest right one: a command, a mapping's source and option; a
    /// negative speed is named as out of range, not as a missing value.
    func testMistakesGetTheNearestRightWord() throws {
        let take = CLI.recording("wrist-wah-phone.csv")
        let cases: [([String], String)] = [
            (["replya", take], "Unknown command 'replya'. Did you mean 'replay'?"),
            (["replay", take, "--map", "tlit.x cc=11"], "unknown source 'tlit.x' (did you mean 'tilt.x'?"),
            (
                ["replay", take, "--map", "tilt.x cc=11 smoth=40"],
                "unknown option 'smoth' in 'smoth=40' (did you mean 'smooth'?)"
            ),
            (["replay", take, "--speed", "-2"], "--speed must be a number from 0.01 to 1000")
        ]
        for (args, want) in cases {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(want), "\(args): \(r.stderr)")
        }
    }

    /// Texts shared by several commands say what is true for each: `--solo` and `--gestures` in
    /// render's and plot's help, and the gesture settings' pointer to the right flag.
    func testSharedHelpTextsFitEveryCommand() throws {
        for command in ["render", "plot", "replay", "listen"] {
            let help = try CLI.run([command, "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
                .replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
            XCTAssertFalse(help.contains("listen reloads it"), command)
            XCTAssertFalse(help.contains("export --gestures"), command)
            if help.contains("--gesture-setting") { XCTAssertTrue(help.contains("export --list-gestures"), command) }
            if help.contains("--solo") { XCTAssertTrue(help.contains("with MIDI out, a DAW's MIDI learn"), command) }
        }
    }

    /// A file in the wrong place or with columns that do not fit is named for what it is.
    func testWrongFilesAreNamedForWhatTheyAre() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-files-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let take = CLI.recording("wrist-wah-phone.csv")
        let render = try CLI.run(["render", "--recording", take, take, dir.appendingPathComponent("out.wav").path])
        XCTAssertNotEqual(render.status, 0)
        XCTAssertTrue(render.stderr.contains("is not a sound file: it reads as text (a sensor log?)"), render.stderr)
        let four = dir.appendingPathComponent("four.csv").path
        try "1,2,3,4\n2,3,4,5\n".write(toFile: four, atomically: true, encoding: .utf8)
        let r = try CLI.run(["replay", four, "--columns", "time,ax,ay", "--fast"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(
            r.stderr.contains("--columns names 3 columns (time,ax,ay) but the rows have 4 (1,2,3,4)"), r.stderr)
    }

    /// The default mapping is described one way: `--help` and the guide name `tilt.x zero
    /// cc=11`, `init` writes it in full, and the full text plays exactly what no `--map` plays.
    func testTheDefaultMappingIsOneThing() throws {
        let take = CLI.recording("wrist-wah-phone.csv")
        let help = try CLI.run(["--help"]).stdout
        XCTAssertTrue(help.contains("tilt.x zero cc=11"), help)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-default-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rig = dir.appendingPathComponent("rig.yaml").path
        XCTAssertEqual(try CLI.run(["init", rig]).status, 0)
        let written = try String(contentsOfFile: rig, encoding: .utf8).components(separatedBy: "\n")
            .first { $0.hasPrefix("  - ") }.map { String($0.dropFirst(4)) }
        let full = "zero.x cc=11 ch=1 range=-1..1 bipolar smooth=40 beta=0.5 reject=1.5 speed=none"
        XCTAssertEqual(written, full)
        let guide = try String(contentsOf: CLI.repo.appendingPathComponent("docs/guide.md"), encoding: .utf8)
        XCTAssertTrue(guide.contains("**Default:** `tilt.x zero cc=11`") && guide.contains(full))
        let none = try CLI.run(["replay", take, "--fast", "-q", "--midi", "stdout"])
        let given = try CLI.run(["replay", take, "--fast", "-q", "--midi", "stdout", "--map", full])
        let short = try CLI.run(["replay", take, "--fast", "-q", "--midi", "stdout", "--map", "tilt.x zero cc=11"])
        XCTAssertGreaterThan(CLI.lines(none.stdout).count, 500)
        XCTAssertEqual(none.stdout, given.stdout)
        XCTAssertEqual(none.stdout, short.stdout)
    }

    /// Every command's examples fit 80 columns (ArgumentParser's width without a terminal): a
    /// long one goes on over lines ending in a backslash, its words whole, never wrapped into
    /// the text.
    func testHelpExamplesAreNeverWrappedMidCommand() throws {
        for command in [
            "", "init", "replay", "inspect", "listen", "stream", "render", "export", "ports", "learn", "calibrate",
            "teach", "plot"
        ] {
            let help = try CLI.run(command.isEmpty ? ["--help"] : [command, "--help"]).stdout
            let lines = help.components(separatedBy: "\n")
            for (a, b) in zip(lines, lines.dropFirst())
            where a.hasPrefix("  sensorwah ") || a.hasPrefix("      ") && a.hasSuffix("\\") {
                XCTAssertTrue(
                    b.isEmpty || b.hasPrefix(" "), "sensorwah \(command) --help wraps an example:\n\(a)\n\(b)")
            }
        }
    }

    /// Long help comes in sections, each option under the one it belongs to.
    func testHelpIsGroupedInSections() throws {
        let help = try CLI.run(["replay", "--help"]).stdout
        let sections = help.components(separatedBy: "\n").filter {
            $0.range(of: #"^[A-Z][A-Z ]+:$"#, options: .regularExpression) != nil
        }
        XCTAssertEqual(
            sections,
            [
                "ARGUMENTS:", "PLAYBACK:", "INPUT:", "MAPPING:", "MIDI OUT:", "JACK AND THE WAH:", "NETWORK OUTPUTS:",
                "LIVE VIEW:", "GENERAL:", "OPTIONS:"
            ], help)
        func section(of option: String) -> String? {
            var current: String?
            for line in help.components(separatedBy: "\n") {
                if line.range(of: #"^[A-Z][A-Z ]+:$"#, options: .regularExpression) != nil { current = line }
                if line.hasPrefix("  \(option) ") || line == "  \(option)" { return current }
            }
            return nil
        }
        XCTAssertEqual(section(of: "--midi <OUTPUT>"), "MIDI OUT:")
        XCTAssertEqual(section(of: "--wah"), "JACK AND THE WAH:")
        XCTAssertEqual(section(of: "--osc-out <[tcp:]HOST:PORT>"), "NETWORK OUTPUTS:")
        XCTAssertEqual(section(of: "--speed <speed>"), "PLAYBACK:")
    }

    static func number(_ text: String, after label: String) -> Double? {
        guard let r = text.range(of: label + #" (-?[0-9.]+|-inf)"#, options: .regularExpression) else { return nil }
        return Double(text[r].split(separator: " ").last!)
    }

    /// render never writes a clipped file without saying so, says the level against the input,
    /// can match it, and keeps a delay's tail.
    func testRenderSaysWhatItClipsAndKeepsTheTail() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-render-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let hot = dir.appendingPathComponent("hot.wav").path
        try DocExamplesTests.writeGuitar(URL(fileURLWithPath: hot), peak: 1)
        let take = CLI.recording("wrist-wah-phone.csv")
        // a full-scale tone at the heel's centre (450 Hz), where the svf voice's make-up gain and
        // level law lift it by 12.5 dB: past full scale in a 16-bit output, clipped, and said
        let tone = dir.appendingPathComponent("tone.wav").path
        try JackTest.writeWAV(
            tone, rate: 48_000, channels: [(0..<48_000).map { Float(sin(2 * Double.pi * 450 * Double($0) / 48_000)) }])
        let out = dir.appendingPathComponent("heel.wav").path
        let heel = try CLI.run(["render", "--pedal", "0", "--sample-format", "pcm16", tone, out])
        XCTAssertEqual(heel.status, 0, heel.stderr)
        let peak = try XCTUnwrap(Self.number(heel.stderr, after: "output peak"), heel.stderr)
        XCTAssertGreaterThan(peak, 10, heel.stderr)
        XCTAssertNotNil(
            heel.stderr.range(
                of:
                    #"warning: [1-9][0-9]* samples \([0-9.]+ %\) went past full scale and were clipped in the pcm16 output"#,
                options: .regularExpression), heel.stderr)
        // the gain it names leaves nothing clipped
        let down = try XCTUnwrap(
            heel.stderr.range(of: #"--gain -[0-9]+"#, options: .regularExpression).map {
                String(heel.stderr[$0].dropFirst(7))
            })
        let lower = try CLI.run(["render", "--pedal", "0", "--sample-format", "pcm16", "--gain", down, tone, out])
        XCTAssertFalse(lower.stderr.contains("clipped"), lower.stderr)
        XCTAssertLessThanOrEqual(try XCTUnwrap(Self.number(lower.stderr, after: "output peak")), 0, lower.stderr)
        // level matched to the input (RMS), within a tenth of a dB
        let matched = try CLI.run([
            "render", "--recording", take, "--match-level", "--sample-format", "float", hot,
            dir.appendingPathComponent("m.wav").path
        ])
        XCTAssertEqual(matched.status, 0, matched.stderr)
        let against = try XCTUnwrap(
            matched.stderr.range(of: #"\((-?[0-9.]+) dB against the input\)"#, options: .regularExpression)
                .map { Double(matched.stderr[$0].dropFirst().split(separator: " ").first!) ?? 99 }, matched.stderr)
        XCTAssertLessThan(abs(against), 0.1, matched.stderr)
        // half a second in, a 0.4 s delay: its repeats go on after the input
        let short = dir.appendingPathComponent("short.wav").path
        try DocExamplesTests.writeGuitar(URL(fileURLWithPath: short), seconds: 0.5, peak: 0.5)
        let d = try CLI.run([
            "render", "--pedal", "64", "--fx", "delay time=0.4", short, dir.appendingPathComponent("d.wav").path
        ])
        XCTAssertEqual(d.status, 0, d.stderr)
        let seconds = try XCTUnwrap(
            d.stderr.range(of: #"= [0-9.]+ s of audio"#, options: .regularExpression)
                .map { Double(d.stderr[$0].split(separator: " ")[1]) ?? 0 })
        XCTAssertGreaterThan(seconds, 1.3, d.stderr)
        XCTAssertTrue(d.stderr.contains("after the input: the delay's repeats dying away"), d.stderr)
        let cut = try CLI.run([
            "render", "--pedal", "64", "--fx", "delay time=0.4", "--tail", "0", short,
            dir.appendingPathComponent("c.wav").path
        ])
        XCTAssertTrue(cut.stderr.contains("= 0.500 s of audio"), cut.stderr)
    }

    /// Each voice is as loud as bypass on plucked strings across the neck: tools/wah-level
    /// (sox's plucked notes E2 to E5, low, high, bright, dark and a chord, through full pedal
    /// sweeps and the wrist recording; the table in docs/effects.md) run on the built binary
    /// finds every voice's RMS within 1.5 dB of the input's on every material.
    func testEveryVoiceIsAsLoudAsBypassOnPluckedStrings() throws {
        guard JackTest.have("sox") else { throw XCTSkip("no sox (tools/install-deps installs it)") }
        let r = try JackTest.sh(
            CLI.repo.appendingPathComponent("tools/wah-level").path, ["--binary", CLI.binary.path], timeout: 300)
        XCTAssertEqual(r.status, 0, r.err)
        print(r.out)
        let rows = CLI.lines(r.out)
        let header = try XCTUnwrap(rows.first { $0.hasPrefix("voice ") }, r.out).split(separator: " ").map(String.init)
        XCTAssertEqual(header, ["voice", "low", "high", "range", "bright", "dark", "chord", "spread", "wrist"], r.out)
        for voice in ["svf", "crybaby"] {
            let cells = try XCTUnwrap(rows.first { $0.hasPrefix(voice + " ") }, r.out).split(separator: " ").dropFirst()
                .map { Double($0) }
            XCTAssertEqual(cells.count, header.count - 1, r.out)
            for (name, value) in zip(header.dropFirst(), cells) where name != "spread" {
                let db = try XCTUnwrap(value, "\(voice) \(name): \(r.out)")
                XCTAssertLessThanOrEqual(abs(db), 1.5, "\(voice) on \(name): \(db) dB against bypass\n\(r.out)")
            }
        }
    }

    /// The wah is as loud as bypass without --match-level, in the docs' own example: `render`
    /// of the wrist recording over the riff tools/setup plays (sox's plucked E2 B2 E3 G3 every
    /// 0.4 s, -3 dBFS peak) reports each voice's RMS within 1.5 dB of the input's, in the
    /// input's 16-bit encoding, nothing clipped.
    func testTheWahIsAsLoudAsBypass() throws {
        guard JackTest.have("sox") else { throw XCTSkip("no sox (tools/install-deps installs it)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-level-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let riff = dir.appendingPathComponent("guitar.wav").path
        let sox = try JackTest.sh(
            "sox",
            [
                "-q", "-V1", "-n", "-r", "48000", "-c", "1", "-b", "16", riff, "synth", "0.4", "pluck", "E2", "pluck",
                "B2",
                "pluck", "E3", "pluck", "G3", "repeat", "31", "fade", "0", "12.6", "0.2", "norm", "-3"
            ])
        XCTAssertEqual(sox.status, 0, sox.err)
        var report: [String] = []
        for voice in [nil, "svf", "crybaby"] {
            let r = try CLI.run(
                ["render", "--recording", CLI.recording("wrist-wah-phone.csv")] + (voice.map { ["--voice", $0] } ?? [])
                    + [riff, dir.appendingPathComponent("out.wav").path])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertFalse(r.stderr.contains("clipped"), r.stderr)
            let against = try XCTUnwrap(
                r.stderr.range(of: #"\((-?[0-9.]+) dB against the input\)"#, options: .regularExpression)
                    .map { Double(r.stderr[$0].dropFirst().split(separator: " ").first!) ?? 99 }, r.stderr)
            report.append("\(voice ?? "default") \(against) dB")
            XCTAssertLessThanOrEqual(abs(against), 1.5, "\(voice ?? "the default voice"): \(r.stderr)")
        }
        print("render against the input: " + report.joined(separator: ", "))
    }

    /// `replay LOG --midi stdout | head -n 1`: the only output's reader goes away in the middle
    /// of the run. replay says so once, stops there (nothing could be delivered any more),
    /// counts what went nowhere and exits 1, instead of playing the rest of the take into a
    /// closed pipe and calling it a success.
    func testReplaySaysWhenItsOnlyOutputDiesMidRun() throws {
        let take = CLI.recording("wrist-wah-phone.csv")
        let reference = try CLI.run(["replay", take, "--fast", "--midi", "stdout"])
        let total = CLI.lines(reference.stdout).count
        XCTAssertGreaterThan(total, 400)
        let replay = Process()
        replay.executableURL = CLI.binary
        replay.arguments = ["replay", take, "--midi", "stdout"]  // the take's own timing: 12 s
        let out = Pipe(), err = Pipe()
        replay.standardOutput = out
        replay.standardError = err
        replay.standardInput = FileHandle.nullDevice
        let started = Date()
        try replay.run()
        // the reader takes the first line and goes, as `head -n 1` does
        var got = Data()
        while !got.contains(0x0A) {
            let d = out.fileHandleForReading.availableData
            if d.isEmpty { break }
            got += d
        }
        try out.fileHandleForReading.close()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        replay.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        let text = String(decoding: stderrData, as: UTF8.self)
        let read = String(decoding: got, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).count
        XCTAssertGreaterThanOrEqual(read, 1, text)
        XCTAssertEqual(replay.terminationStatus, 1, text)
        XCTAssertEqual(text.components(separatedBy: "every output has failed: stdout: Broken pipe").count - 1, 1, text)
        XCTAssertTrue(text.contains("nothing can be delivered any more, so the replay stops"), text)
        let n = try XCTUnwrap(
            text.range(
                of: #"messages delivered nowhere, every output having failed: (\d+)"#, options: .regularExpression
            )
            .map { Int(text[$0].split(separator: " ").last!) ?? 0 }, text)
        XCTAssertGreaterThan(n, 0, text)
        XCTAssertLessThanOrEqual(n, total - read, "more counted as lost than the take has left: \(text)")
        XCTAssertTrue(text.contains("the replay stopped there"), text)
        XCTAssertLessThan(seconds, 8, "it played on into the closed pipe: \(text)")
    }

    /// `replay LOG --midi jack` and the JACK server dies in the middle (SIGKILL): replay says so
    /// once, goes on (the client reconnects when a server returns, as listen does), and ends
    /// with exit status 1 and the count of messages delivered nowhere.
    func testReplaySaysWhenTheJackServerDiesMidRun() throws {
        try JackTest.requireJackTools(["jack_midi_dump"])
        let server = try JackTest.Server(period: 1024)
        // a reader on midi_out shows the replay under way
        let dumpName = "fhdump\(getpid())"
        let dump = try server.run("jack_midi_dump", [dumpName])
        try server.awaitPort("^\(dumpName):input$")
        let sw = try server.run(
            CLI.binary.path,
            [
                "replay", CLI.recording("wrist-wah-phone.csv"), "--midi", "jack",
                "--jack-connect", "midi_out=\(dumpName):input"
            ])
        XCTAssertTrue(sw.waitForStderr("JACK: connected to server", seconds: 10), sw.stderr)
        // mid-run: the replay (537 messages over 12.5 s) well under way
        try dump.awaitStdout("80 messages at jack_midi_dump") { JackTest.dumpMessages($0).count >= 80 }
        server.kill()
        XCTAssertTrue(sw.waitForStderr("every output has failed: JACK: no server connected", seconds: 5), sw.stderr)
        XCTAssertTrue(sw.isRunning, "replay stopped with the server: \(sw.stderr)")
        let status = sw.wait(timeout: 60)
        let text = sw.stderr
        XCTAssertFalse(status.timedOut, text)
        XCTAssertEqual(status.status, 1, text)
        XCTAssertEqual(text.components(separatedBy: "every output has failed").count - 1, 1, text)
        XCTAssertTrue(text.contains("the replay goes on, and ends with exit status 1"), text)
        XCTAssertNotNil(
            text.range(
                of: #"messages delivered nowhere, every output having failed: [1-9]\d* \(JACK: no server connected"#,
                options: .regularExpression), text)
        XCTAssertFalse(text.contains("the replay stopped there"), text)
    }

    /// A folder of unrelated takes, or two takes named on the command line, play one after
    /// another in the order given, the time going on from one to the next (never a jump to
    /// the other's clock).
    func testUnrelatedTakesPlayOneAfterAnother() throws {
        let a = CLI.recording("wrist-wah-phone.csv"), b = CLI.recording("watch-sweeps.csv")
        let r = try CLI.run(["replay", a, b, "--fast", "--midi", "stdout"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(
            r.stderr.contains(
                "2 takes (files whose times do not overlap) played one after another, half a second apart: wrist-wah-phone.csv; then watch-sweeps.csv"
            ), r.stderr)
        XCTAssertFalse(r.stderr.contains("merged on their time column"), r.stderr)
        let times = CLI.lines(r.stdout).compactMap { l in
            l.range(of: #""t":[0-9.]+"#, options: .regularExpression).map { Double(l[$0].dropFirst(4)) ?? -1 }
        }
        XCTAssertEqual(times, times.sorted())
        XCTAssertLessThan(times.max() ?? 1e9, 200, "the time jumped to the other take's clock")
        let folder = try CLI.run(["replay", CLI.repo.appendingPathComponent("Recordings").path, "--fast"])
        XCTAssertEqual(folder.status, 0, folder.stderr)
        XCTAssertTrue(
            folder.stderr.contains("4 takes (files whose times do not overlap) played one after another"), folder.stderr
        )
    }

    /// The README's flick demo is heard: every flick's note has a velocity of 40 or more.
    func testTheFlickDemoIsHeard() throws {
        let r = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--map", "flick note=60", "--fast", "--midi", "stdout"
        ])
        let velocities = CLI.lines(r.stdout).filter { $0.contains("note_on") }
            .compactMap { l in
                l.range(of: #""velocity":\d+"#, options: .regularExpression).map {
                    Int(l[$0].split(separator: ":")[1]) ?? 0
                }
            }
        XCTAssertEqual(velocities.count, 2, r.stdout)
        XCTAssertTrue(velocities.allSatisfy { $0 >= 40 }, "\(velocities)")
    }

    /// Installed, the command finds the bundled recordings from any folder, as the docs'
    /// examples name them (`Recordings/wrist-wah-phone.csv`).
    func testTheInstalledCommandFindsTheBundledRecordings() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("sw-prefix-\(getpid())")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let bin = prefix.appendingPathComponent("bin"),
            data = prefix.appendingPathComponent("share/sensorwah/Recordings")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.binary, to: bin.appendingPathComponent("sensorwah"))
        try FileManager.default.copyItem(
            atPath: CLI.recording("wrist-wah-phone.csv"),
            toPath: data.appendingPathComponent("wrist-wah-phone.csv").path)
        let p = Process()
        p.executableURL = bin.appendingPathComponent("sensorwah")
        p.arguments = ["replay", "Recordings/wrist-wah-phone.csv", "--fast", "--midi", "stdout"]
        p.currentDirectoryURL = URL(fileURLWithPath: "/")
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertGreaterThan(CLI.lines(text).filter { $0.contains(#""type":"cc""#) }.count, 500)
    }
}
