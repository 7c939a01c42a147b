import Foundation
import XCTest

/// The effect chain as a user drives it (issue #23): `--fx` / `--fx-preset`, `fx=` mapping
/// targets with their span, the configuration file's `chain:`, `fx-preset:`, `fx-cc:` and
/// scenes' chains, `render` through a chain, and the chain live on a JACK server (dummy
/// backend) with a replayed gesture moving the tremolo's rate, measured in the output.
final class EffectChainCLITests: XCTestCase {
    static let recording = "Recordings/wrist-wah-phone.csv"

    /// The fx events of `--midi stdout`: time and the parameter's value (its range given).
    static func effectEvents(_ text: String, slot: Int, lower: Double, upper: Double) -> [(t: Double, value: Double)] {
        text.split(separator: "\n").compactMap { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                obj["type"] as? String == "fx", obj["slot"] as? Int == slot,
                let t = obj["t"] as? Double, let p = obj["position"] as? Int
            else { return nil }
            return (t, lower + (upper - lower) * Double(p) / 65535)
        }
    }

    /// The tremolo's rate in `y` over time: the envelope (RMS of 5 ms blocks, 200 Hz), then in
    /// 1 s windows every 0.25 s the frequency (0.5-20 Hz, 0.05 Hz steps) where the envelope's
    /// Hann-windowed spectrum peaks. Windows without sound are left out.
    static func tremoloRates(_ y: [Float], rate: Int) -> [(t: Double, hz: Double)] {
        let block = rate / 200
        var env: [Double] = []
        var i = 0
        while i + block <= y.count {
            var s = 0.0
            for k in i..<(i + block) { s += Double(y[k]) * Double(y[k]) }
            env.append((s / Double(block)).squareRoot())
            i += block
        }
        var out: [(Double, Double)] = []
        var start = 0
        while start + 200 <= env.count {
            let w = Array(env[start..<(start + 200)])
            let mean = w.reduce(0, +) / 200
            if mean > 0.02 {
                var best = 0.0, bestHz = 0.0
                var hz = 0.5
                while hz <= 20 {
                    var re = 0.0, im = 0.0
                    for (k, v) in w.enumerated() {
                        let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / 199)
                        let a = 2 * Double.pi * hz * Double(k) / 200
                        re += (v - mean) * hann * cos(a); im += (v - mean) * hann * sin(a)
                    }
                    if re * re + im * im > best { best = re * re + im * im; bestHz = hz }
                    hz += 0.05
                }
                out.append((Double(start + 100) / 200, bestHz))
            }
            start += 50
        }
        return out
    }

    /// Measured rates against the rate the events set (the last event at or before each
    /// window's middle, minus `lag`), over the lags given: the best correlation, its lag and the
    /// median error in Hz.
    static func ratesFollow(
        _ measured: [(t: Double, hz: Double)], _ events: [(t: Double, value: Double)], rest: Double,
        lags: [Double]
    ) -> (r: Double, lag: Double, median: Double, count: Int) {
        var best = (r: -2.0, lag: 0.0, median: 99.0, count: 0)
        let last = events.last?.t ?? 0
        for lag in lags {
            var a: [Double] = [], b: [Double] = []
            var value = rest, next = 0
            for m in measured {
                let s = m.t - lag
                while next < events.count && events[next].t <= s { value = events[next].value; next += 1 }
                // the window must lie where the rate was set and had settled for a while
                if s < 1 || s > last { continue }
                a.append(m.hz); b.append(value)
            }
            guard a.count > 20 else { continue }
            let r = JackTest.pearson(a, b)
            if r > best.r {
                let errors = zip(a, b).map { abs($0 - $1) }.sorted()
                best = (r, lag, errors[errors.count / 2], a.count)
            }
        }
        return best
    }

    /// A steady 1 kHz tone: the tremolo's modulation is all the envelope does.
    static func tone(seconds: Int, rate: Int) -> [Float] {
        (0..<(seconds * rate)).map { Float(0.4 * sin(2 * Double.pi * 1000 * Double($0) / Double(rate))) }
    }

    func testMappingsListsTheEffectsAndBadTargetsAreRefused() throws {
        let help = try CLI.run(["mappings"])
        XCTAssertEqual(help.status, 0)
        for word in [
            "fx=EFFECT.PARAM", "to=LO..HI", "tremolo.rate", "0.05-20 Hz", "delay.bypass", "phaser.stages", "fuzz-wah"
        ] {
            XCTAssertTrue(help.stdout.contains(word), "mappings does not mention \(word)")
        }
        // a parameter not in the chain: the message lists the chain's parameters
        let missing = try CLI.run(["replay", Self.recording, "--fast", "--map", "tilt.y fx=tremolo.rate"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(
            missing.stderr.contains(
                "fx=tremolo.rate is not a parameter of the chain (wah); its parameters are: wah.bypass, wah.pedal"),
            missing.stderr)
        let span = try CLI.run([
            "replay", Self.recording, "--fast", "--fx", "wah > tremolo", "--map", "tilt.y fx=tremolo.rate to=1..50"
        ])
        XCTAssertNotEqual(span.status, 0)
        XCTAssertTrue(span.stderr.contains("outside tremolo.rate's range 0.05..20 Hz"), span.stderr)
        let chain = try CLI.run(["replay", Self.recording, "--fast", "--fx", "wah > tremolo rate=fast"])
        XCTAssertNotEqual(chain.status, 0)
        XCTAssertTrue(chain.stderr.contains("--fx \"wah > tremolo rate=fast\""), chain.stderr)
        let preset = try CLI.run(["replay", Self.recording, "--fast", "--fx-preset", "fuzzwah"])
        XCTAssertTrue(
            preset.stderr.contains("unknown effect preset 'fuzzwah': the presets are wah, fuzz-wah"), preset.stderr)
        let both = try CLI.run([
            "render", "--pedal", "10", "--fx", "wah", "--fx-preset", "fuzz-wah", "in.wav", "out.wav"
        ])
        XCTAssertTrue(both.stderr.contains("--fx and --fx-preset exclude each other"), both.stderr)
        let cc = try CLI.run(["replay", Self.recording, "--fast", "--fx", "wah", "--fx-cc", "20=delay.mix"])
        XCTAssertTrue(cc.stderr.contains("--fx-cc 20=delay.mix: not a parameter of the chain (wah)"), cc.stderr)
        let ccSyntax = try CLI.run(["replay", Self.recording, "--fast", "--fx", "wah", "--fx-cc", "200=wah.mix"])
        XCTAssertTrue(ccSyntax.stderr.contains("CC from 0 to 127"), ccSyntax.stderr)
        let learn = try CLI.run(["learn", "1", "--map", "tilt.y fx=wah.mix", "--seconds", "1"])
        XCTAssertNotEqual(learn.status, 0)
        XCTAssertTrue(
            learn.stderr.contains("mapping 1 moves the effect parameter wah.mix, not a MIDI controller"), learn.stderr)
        // the events: slot and position in the parameter's range, on stdout
        let run = try CLI.run([
            "replay", Self.recording, "--fast", "--midi", "stdout", "--fx", "wah > tremolo",
            "--map", "tilt.x zero fx=tremolo.rate to=2..12"
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let events = Self.effectEvents(run.stdout, slot: 9, lower: 0.05, upper: 20)
        XCTAssertGreaterThan(events.count, 100)
        XCTAssertTrue(events.allSatisfy { $0.value >= 1.999 && $0.value <= 12.001 }, "a value outside to=2..12")
        XCTAssertGreaterThan(events.map(\.value).max()! - events.map(\.value).min()!, 4, "the rate hardly moved")
    }

    /// `render` through a chain: the tremolo's rate in the output follows the rate the gesture
    /// sets (sample-exact offline: no lag), and `--fx-preset fuzz-wah` runs.
    func testRenderFollowsTheGestureThroughTheChain() throws {
        let dir = try JackTest.tempDir("fx-render")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        let input = dir.appendingPathComponent("tone.wav").path
        try JackTest.writeWAV(input, rate: rate, channels: [Self.tone(seconds: 26, rate: rate)])
        let map = "tilt.x zero fx=tremolo.rate to=2..12"
        let replay = try CLI.run([
            "replay", Self.recording, "--fast", "--midi", "stdout", "--fx", "tremolo depth=1", "--map", map
        ])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        let events = Self.effectEvents(replay.stdout, slot: 1, lower: 0.05, upper: 20)
        let out = dir.appendingPathComponent("trem.wav").path
        let r = try CLI.run([
            "render", "--recording", Self.recording, "--fx", "tremolo depth=1", "--map", map, input, out
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("effects: tremolo depth=1"), r.stderr)
        XCTAssertTrue(r.stderr.contains("effect parameter changes"), r.stderr)
        let y = try JackTest.readWAV(out).channels[0]
        let measured = Self.tremoloRates(y, rate: rate)
        let fit = Self.ratesFollow(measured, events, rest: 7, lags: [0])
        print("render tremolo: r = \(fit.r), median error \(fit.median) Hz over \(fit.count) windows")
        XCTAssertGreaterThan(fit.count, 35)
        XCTAssertGreaterThan(fit.r, 0.85, "the tremolo's rate does not follow the gesture")
        XCTAssertLessThan(fit.median, 0.6, "the tremolo's rate is off the rate the gesture set")

        // the classic preset: runs, and it is not the wah alone
        let guitar = dir.appendingPathComponent("fw.wav").path
        let wahOnly = dir.appendingPathComponent("w.wav").path
        let fw = try CLI.run(["render", "--recording", Self.recording, "--fx-preset", "fuzz-wah", input, guitar])
        XCTAssertEqual(fw.status, 0, fw.stderr)
        XCTAssertTrue(fw.stderr.contains("effects: fuzz drive=0.8 tone=0.6 level=0.4 > wah"), fw.stderr)
        XCTAssertEqual(try CLI.run(["render", "--recording", Self.recording, input, wahOnly]).status, 0)
        let a = try JackTest.readWAV(guitar).channels[0], b = try JackTest.readWAV(wahOnly).channels[0]
        XCTAssertEqual(a.count, b.count)
        XCTAssertTrue(a.allSatisfy { $0.isFinite })
        XCTAssertNotEqual(a, b)
        // plot --audio: the spectrogram with the wah's centre over it
        let svg = dir.appendingPathComponent("fw.svg").path
        let plot = try CLI.run(["plot", Self.recording, "--audio", guitar, "-o", svg])
        XCTAssertEqual(plot.status, 0, plot.stderr)
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(
            picture.hasPrefix("<svg") && picture.contains("<path d=\"M") && picture.contains("the wah's centre"),
            String(picture.prefix(300)))
        XCTAssertGreaterThan(picture.components(separatedBy: "<rect").count, 100)
        // the chain of the wah alone renders what the wah renders
        let chainWah = dir.appendingPathComponent("cw.wav").path
        XCTAssertEqual(try CLI.run(["render", "--recording", Self.recording, "--fx", "wah", input, chainWah]).status, 0)
        XCTAssertEqual(try JackTest.readWAV(chainWah).channels[0], b, "--fx wah differs from the wah alone")
    }

    /// The configuration file: `chain:` as a list, `fx-cc:`, a scene with its own chain, and the
    /// mistakes (a chain named twice, a scene's mapping to a parameter its chain lacks).
    func testConfigurationFileChainsAndTheirMistakes() throws {
        let dir = try JackTest.tempDir("fx-config")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        let input = dir.appendingPathComponent("tone.wav").path
        try JackTest.writeWAV(input, rate: rate, channels: [Self.tone(seconds: 3, rate: rate)])
        func write(_ name: String, _ text: String) throws -> String {
            let p = dir.appendingPathComponent(name).path
            try text.write(toFile: p, atomically: true, encoding: .utf8)
            return p
        }
        let good = try write(
            "good.yaml",
            """
            # my rig
            mappings:
              - tilt.x zero cc=11
              - tilt.y fx=delay.mix to=0..0.6   # the arm raises the echoes
            chain:
              - fuzz drive=0.7
              - wah
              - delay time=0.25
            fx-cc: { 20: delay.feedback, 21: wah.mix }
            scenes:
              verse: [tilt.x zero cc=11]
              solo:
                chain: wah > tremolo rate=6
                mappings:
                  - tilt.x zero cc=11
                  - tilt.y fx=tremolo.depth
            """)
        let r = try CLI.run([
            "render", "--config", good, "--recording", Self.recording, input, dir.appendingPathComponent("o.wav").path
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("effects: fuzz drive=0.7 > wah > delay time=0.25"), r.stderr)
        // the command line's chain wins over the file's
        let typed = try CLI.run([
            "render", "--config", good, "--fx", "wah > delay", "--recording", Self.recording, input,
            dir.appendingPathComponent("p.wav").path
        ])
        XCTAssertEqual(typed.status, 0, typed.stderr)
        XCTAssertTrue(typed.stderr.contains("effects: wah > delay\n"), typed.stderr)

        let twice = try write("twice.yaml", "chain: wah\nfx-preset: fuzz-wah\n")
        let t = try CLI.run([
            "render", "--config", twice, "--pedal", "3", input, dir.appendingPathComponent("q.wav").path
        ])
        XCTAssertNotEqual(t.status, 0)
        XCTAssertTrue(t.stderr.contains("twice.yaml:2: fx-preset: the file names a chain twice"), t.stderr)

        let badChain = try write("badchain.yaml", "# rig\nchain: wah > flanger\n")
        let b = try CLI.run([
            "render", "--config", badChain, "--pedal", "3", input, dir.appendingPathComponent("s.wav").path
        ])
        XCTAssertNotEqual(b.status, 0)
        XCTAssertTrue(
            b.stderr.contains("badchain.yaml:2: chain: --fx \"wah > flanger\": unknown effect 'flanger'"), b.stderr)

        let badScene = try write(
            "badscene.yaml",
            """
            scenes:
              solo:
                chain: wah
                mappings:
                  - tilt.y fx=tremolo.depth
            """)
        let s = try CLI.run(["listen", "--config", badScene, "--port", "0"], timeout: 20)
        XCTAssertNotEqual(s.status, 0)
        XCTAssertTrue(s.stderr.contains("badscene.yaml:2: scenes.solo: mapping \"tilt.y fx=tremolo.depth"), s.stderr)
        XCTAssertTrue(s.stderr.contains("is not a parameter of the chain (wah)"), s.stderr)

        // calibrate edits an fx= mapping's range in place and leaves the chain, fx-cc and every
        // comment as they were
        let cal = try write(
            "cal.yaml",
            """
            # my rig, hand-written
            mappings:
              - tilt.x zero cc=11        # the pedal
              - tilt.y fx=delay.mix to=0..0.6   # echoes on the arm
            chain:                        # fuzz first, as the pedalboard
              - fuzz drive=0.7
              - wah
              - delay time=0.25   # slapback-ish
            fx-cc: { 20: delay.feedback }   # the foot controller
            """)
        let c = try CLI.run(["calibrate", "2", "--config", cal, "--from", Self.recording])
        XCTAssertEqual(c.status, 0, c.stderr)
        let edited = try String(contentsOfFile: cal, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(edited.count, 9)
        XCTAssertNotNil(
            edited[3].range(
                of:
                    "^  - tilt.y fx=delay.mix to=0..0.6 range=-?[0-9.]+..[0-9.]+ centre=-?[0-9.]+   # echoes on the arm$",
                options: .regularExpression), edited[3])
        for (i, line) in [
            (0, "# my rig, hand-written"), (2, "  - tilt.x zero cc=11        # the pedal"),
            (4, "chain:                        # fuzz first, as the pedalboard"),
            (7, "  - delay time=0.25   # slapback-ish"), (8, "fx-cc: { 20: delay.feedback }   # the foot controller")
        ] {
            XCTAssertEqual(edited[i], line)
        }
        let after = try CLI.run([
            "render", "--config", cal, "--recording", Self.recording, input, dir.appendingPathComponent("c.wav").path
        ])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertTrue(after.stderr.contains("effects: fuzz drive=0.7 > wah > delay time=0.25"), after.stderr)

        // init's file names the chain keys (commented) and loads as it is
        let initPath = dir.appendingPathComponent("init.yaml").path
        XCTAssertEqual(try CLI.run(["init", initPath]).status, 0)
        let text = try String(contentsOfFile: initPath, encoding: .utf8)
        for key in ["# chain:", "# fx-preset:", "# fx-cc:", "fx=tremolo.rate"] {
            XCTAssertTrue(text.contains(key), "init lacks \(key)")
        }
        XCTAssertEqual(
            try CLI.run([
                "render", "--config", initPath, "--pedal", "3", input, dir.appendingPathComponent("i.wav").path
            ]).status, 0)
    }

    /// The chain live on JACK: a tone through `tremolo depth=1` while `replay` plays the wrist
    /// recording with the tremolo's rate on the wrist (`fx=tremolo.rate to=2..12`); the rate
    /// measured in what the server records follows the rate the stdout events set.
    func testChainOnJackFollowsTheReplayedGesture() throws {
        try JackTest.requireJackTools(["jack-play", "jack-record"])
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("fx-jack")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        let tonePath = dir.appendingPathComponent("tone.wav").path
        try JackTest.writeWAV(tonePath, rate: rate, channels: [Self.tone(seconds: 40, rate: rate)])
        let outPath = dir.appendingPathComponent("out.wav").path

        let server = try JackTest.Server(period: 1024)
        let recorder = try server.run("jack-record", ["-n", "1", outPath])
        let recPort = try XCTUnwrap(server.waitForPort("^jack-record-\(recorder.pid):in_1$"), "jack-record has no port")
        let player = try server.run("jack-play", [tonePath])
        let playPort = try server.playerPort(player)
        let sw = try server.run(
            binary,
            [
                "replay", Self.recording, "--midi", "stdout", "--monitor", "--fx", "tremolo depth=1",
                "--map", "tilt.x zero fx=tremolo.rate to=2..12",
                "--jack-connect", "in_1=\(playPort),out_1=\(recPort)"
            ])
        let status = sw.wait(timeout: 60)
        XCTAssertFalse(status.timedOut)
        XCTAssertEqual(status.status, 0, sw.stderr)
        XCTAssertTrue(sw.stderr.contains("effects: tremolo depth=1"), sw.stderr)
        // the live view (a status line on stderr without a terminal) shows the chain and each
        // parameter's value as the callback has it
        XCTAssertTrue(sw.stderr.contains("effects   tremolo"), sw.stderr)
        XCTAssertNotNil(
            sw.stderr.range(of: "tremolo +bypass off rate [0-9.]+ Hz depth 1 shape sine", options: .regularExpression),
            sw.stderr)
        recorder.stopRecording(outPath, rate: rate, channels: 1)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        let events = Self.effectEvents(sw.stdout, slot: 1, lower: 0.05, upper: 20)
        XCTAssertGreaterThan(events.count, 100, "too few fx events on stdout")
        let y = try JackTest.readWAV(outPath).channels[0]
        let measured = Self.tremoloRates(y, rate: rate)
        let fit = Self.ratesFollow(measured, events, rest: 7, lags: stride(from: -0.5, through: 8, by: 0.05).map { $0 })
        print("JACK tremolo: r = \(fit.r) at lag \(fit.lag) s, median error \(fit.median) Hz over \(fit.count) windows")
        XCTAssertGreaterThan(fit.count, 35, "the recording holds too little modulated sound")
        XCTAssertGreaterThan(fit.r, 0.85, "the tremolo's rate on JACK does not follow the gesture")
        XCTAssertLessThan(fit.median, 0.8, "the tremolo's rate on JACK is off the rate the gesture set")
    }

    /// `sync=` follows JACK transport's tempo: with jack_transport as timebase master at 240 BPM
    /// a tremolo synced to quarter notes runs at 4 Hz; at 150 BPM, 2.5 Hz (without a master it
    /// would run at 120 BPM, 2 Hz).
    func testSyncedTremoloFollowsJackTransportTempo() throws {
        try JackTest.requireJackTools(["jack-play", "jack-record", "jack_transport"])
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("fx-tempo")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        let tonePath = dir.appendingPathComponent("tone.wav").path
        try JackTest.writeWAV(tonePath, rate: rate, channels: [Self.tone(seconds: 30, rate: rate)])
        let outPath = dir.appendingPathComponent("out.wav").path
        let server = try JackTest.Server(period: 1024)
        let transport = try server.run("jack_transport", [], openStdin: true)
        transport.send("master")
        transport.send("tempo 240")
        transport.send("play")
        let recorder = try server.run("jack-record", ["-n", "1", "-t", "14", outPath])
        let recordingStarted = Date()
        let recPort = try XCTUnwrap(server.waitForPort("^jack-record-\(recorder.pid):in_1$"), "jack-record has no port")
        let player = try server.run("jack-play", [tonePath])
        let playPort = try server.playerPort(player)
        let sw = try server.run(
            binary,
            [
                "replay", Self.recording, "--fx", "tremolo depth=1 sync=1/4", "--map", "tilt.x zero cc=11",
                "--jack-connect", "in_1=\(playPort),out_1=\(recPort)"
            ])
        // the tempo changes 7 s into the recording (between the two windows compared),
        // however long the player and sensorwah took to start
        usleep(UInt32(max(0, 7 - Date().timeIntervalSince(recordingStarted)) * 1e6))
        transport.send("tempo 150")
        let status = sw.wait(timeout: 60)
        XCTAssertEqual(status.status, 0, sw.stderr)
        recorder.wait(timeout: 30)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        transport.send("quit")
        transport.closeStdin()
        transport.wait(timeout: 5)
        let y = try JackTest.readWAV(outPath).channels[0]
        let rates = Self.tremoloRates(y, rate: rate).filter { $0.t > 1 }
        let early = rates.filter { $0.t < 5 }.map(\.hz).sorted(),
            late = rates.filter { $0.t > 9 && $0.t < 13 }.map(\.hz).sorted()
        guard early.count > 5, late.count > 5 else {
            return XCTFail(
                "too little sound recorded: \(early.count) and \(late.count) tremolo periods; sensorwah said: \(sw.stderr)"
            )
        }
        let e = early[early.count / 2], l = late[late.count / 2]
        print("tremolo synced to 1/4: \(e) Hz at 240 BPM, \(l) Hz at 150 BPM")
        XCTAssertEqual(e, 4, accuracy: 0.15, "at 240 BPM")
        XCTAssertEqual(l, 2.5, accuracy: 0.15, "at 150 BPM")
    }

    /// `listen --config` reloads mappings while it runs, but the engine's chains are prepared at
    /// the start: a reload whose chain differs is refused (fx= targets would address the wrong
    /// parameters) and the running configuration kept; one with the same chain goes through.
    /// No JACK server is needed: the engine keeps retrying while the listener runs.
    func testReloadKeepsTheRunningChain() throws {
        let dir = try JackTest.tempDir("fx-reload")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("rig.yaml").path
        try "chain: wah > tremolo\nmappings:\n  - tilt.x zero cc=11\n  - tilt.y fx=tremolo.rate\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let l = try CLI.Running(["listen", "--config", path, "--port", "0", "--jack-server", "none\(getpid())"])
        XCTAssertNotNil(l.waitForStderr("effects: wah > tremolo", seconds: 15), l.stderrSoFar)
        // the rig's loop runs (its first look at the outputs finds JACK missing), so its watch has
        // taken the file as it was read: the edit below is a change
        try l.awaitStderr("every output has failed")
        try "chain: wah > delay\nmappings:\n  - tilt.x zero cc=11\n  - tilt.y fx=delay.mix\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotNil(
            l.waitForStderr(
                "the effect chains changed \\(wah > delay\\); chains are prepared at the start, so restart to use them; the running configuration is kept",
                seconds: 10), l.stderrSoFar)
        try "chain: wah > tremolo\nmappings:\n  - tilt.x zero cc=11\n  - tilt.y fx=tremolo.depth\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotNil(l.waitForStderr("reloaded, 2 mappings now active", seconds: 10), l.stderrSoFar)
        l.interrupt()
        _ = l.wait(timeout: 15)
    }
}
