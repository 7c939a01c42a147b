import Foundation
import XCTest

/// The JACK client for real, on a dummy-backend server each test starts itself
/// (tools/jack-dummy): audio through the wah, the JACK MIDI port, a missing server, a server
/// that dies and comes back. Black box: the sensorwah binary and stock JACK clients
/// (jack-play, jack-record, jack_midi_dump).
final class JackIntegrationTests: XCTestCase {
    static let recording = "Recordings/wrist-wah-phone.csv"

    // MARK: - Audio and MIDI through the server

    /// Noise (jack-play) -> sensorwah:in_1, sensorwah:out_1 -> jack-record, sensorwah:midi_out ->
    /// jack_midi_dump, while `replay --wah --midi jack --midi stdout` plays a gesture. The
    /// recording's spectral peak must follow the centre frequency the stdout pedal values give,
    /// and midi_out must carry the stdout stream event for event.
    func testReplayWahFollowsGestureAndMIDIOutEqualsStdout() throws {
        try JackTest.requireJackTools(["jack-play", "jack-record", "jack_midi_dump"])
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("jack-wah")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        let noisePath = dir.appendingPathComponent("noise.wav").path
        try JackTest.writeWAV(noisePath, rate: rate, channels: [JackTest.noise(rate * 40)])
        let outPath = dir.appendingPathComponent("out.wav").path

        let server = try JackTest.Server(period: 1024)
        let recorder = try server.run("jack-record", ["-n", "1", outPath])
        let recPort = try XCTUnwrap(server.waitForPort("^jack-record-\(recorder.pid):in_1$"), "jack-record has no port")
        let dumpName = "swdump\(getpid())"
        let dump = try server.run("jack_midi_dump", [dumpName])
        _ = try XCTUnwrap(server.waitForPort("^\(dumpName):input$"), "jack_midi_dump has no port")
        let player = try server.run("jack-play", [noisePath])
        let playPort = try server.playerPort(player)

        let sw = try server.run(
            binary,
            [
                "replay", Self.recording, "--wah", "--midi", "jack", "--midi", "stdout",
                "--jack-connect", "in_1=\(playPort),out_1=\(recPort),midi_out=\(dumpName):input"
            ])
        let status = sw.wait(timeout: 60)
        XCTAssertFalse(status.timedOut)
        XCTAssertEqual(status.status, 0, sw.stderr)
        let sent = JackTest.jsonEvents(sw.stdout).flatMap(JackTest.wireMessages).count
        _ = try? dump.awaitStdout("all \(sent) messages at jack_midi_dump") { JackTest.dumpMessages($0).count >= sent }
        dump.signal(SIGINT)
        dump.wait(timeout: 5)
        recorder.stopRecording(outPath, rate: rate, channels: 1)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        XCTAssertTrue(sw.stderr.contains("JACK: connected to server '\(server.name)'"), sw.stderr)
        XCTAssertTrue(sw.stderr.contains("3 connections made"), sw.stderr)

        // midi_out == --midi stdout, event for event
        let events = JackTest.jsonEvents(sw.stdout)
        XCTAssertGreaterThan(events.count, 100, "too few messages on stdout")
        let wanted = events.flatMap(JackTest.wireMessages)
        let got = JackTest.dumpMessages(dump.stdout)
        XCTAssertEqual(got.count, wanted.count, "jack_midi_dump saw \(got.count) messages, stdout has \(wanted.count)")
        XCTAssertTrue(
            got == wanted,
            "midi_out differs from the stdout stream (first difference at \(zip(got, wanted).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1))"
        )

        // spectral peak of out_1 vs the centre frequency of the pedal on stdout
        let (recRate, channels) = try JackTest.readWAV(outPath)
        XCTAssertEqual(recRate, rate)
        let best = JackTest.peakFollowsPedal(channels[0], rate: recRate, events: events)
        print(
            "wah spectral check: r = \(best.r) at lag \(best.lag) s over \(best.count) windows, median error \(best.median) octave"
        )
        XCTAssertGreaterThan(best.windows, 150, "the recording holds too little filtered audio")
        XCTAssertGreaterThan(best.r, 0.9, "the spectral peak does not follow the gesture")
        XCTAssertLessThan(best.median, 0.25, "the spectral peak is off the expected centre frequency")
        XCTAssertTrue((-0.5...7).contains(best.lag), "implausible lag \(best.lag) s between replay and recording")
    }

    /// Noise with NaN, infinity and denormal bursts through the wah: every output sample finite,
    /// and the sound comes back after each burst (no poisoned filter).
    func testNaNAndDenormalsThroughJackDoNotPoisonTheWah() throws {
        try JackTest.requireJackTools(["jack-play", "jack-record", "jack_transport"])
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("jack-nan")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        var x = JackTest.noise(rate * 8)
        let bursts = [
            (rate * 2, Float.nan), (rate * 3, Float.infinity), (rate * 4, -Float.infinity), (rate * 5, Float(1e-40))
        ]
        for (at, v) in bursts { for i in at..<(at + (v.isFinite ? 4800 : 200)) { x[i] = v } }
        let inPath = dir.appendingPathComponent("bad.wav").path
        try JackTest.writeWAV(inPath, rate: rate, channels: [x])
        let outPath = dir.appendingPathComponent("out.wav").path

        let server = try JackTest.Server(period: 1024)
        // until the 8 s input has played to its end, bursts (at 2-5 s) included
        let recorder = try server.run("jack-record", ["-n", "2", outPath])
        let rec1 = try XCTUnwrap(server.waitForPort("^jack-record-\(recorder.pid):in_1$"))
        let rec2 = try XCTUnwrap(server.waitForPort("^jack-record-\(recorder.pid):in_2$"))
        let sw = try server.run(
            JackTest.checkTool(release: false),
            [
                "--seconds", "40", "--hold", "100", "--wah",
                "--jack-connect", "out_1=\(rec2)"
            ])
        XCTAssertTrue(sw.waitForStderr("JACK: connected", seconds: 10), sw.stderr)
        // jack-play follows JACK's transport (-t) and starts when it rolls, after both
        // connections: on a loaded machine they take seconds, and bursts played before them
        // would reach neither the wah nor the recorder
        let transport = try server.run("jack_transport", [], openStdin: true)
        defer {
            transport.send("quit")
            transport.closeStdin()
            transport.wait(timeout: 5)
        }
        let player = try server.run("jack-play", ["-t", inPath])
        let playPort = try server.playerPort(player)
        XCTAssertEqual(try JackTest.sh("jack_connect", [playPort, "sensorwah:in_1"], env: server.env).status, 0)
        XCTAssertEqual(try JackTest.sh("jack_connect", [playPort, rec1], env: server.env).status, 0)
        transport.send("play")
        // following the transport, jack-play does not end with its file: stopped once the 8 s
        // have played (the dummy backend runs in real time; jack_transport has been a client
        // since before jack-play started, so the transport rolls as the command is read)
        usleep(10_000_000)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        recorder.stopRecording(outPath, rate: rate, channels: 2)
        sw.signal(SIGINT)
        XCTAssertEqual(sw.wait(timeout: 10).status, 0, sw.stderr)

        let (_, ch) = try JackTest.readWAV(outPath)
        let input = ch[0], output = ch[1]
        XCTAssertTrue(output.allSatisfy { $0.isFinite }, "non-finite samples in the wah's output")
        // subnormal output only where the input itself was subnormal (the filter makes none of its own)
        func subnormal(_ v: Float) -> Bool { v != 0 && abs(v) < Float.leastNormalMagnitude }
        let made = output.indices.filter { i in
            subnormal(output[i]) && !(max(0, i - 2)...i).contains { subnormal(input[$0]) }
        }
        XCTAssertEqual(made.count, 0, "subnormal output samples the input did not have, first at \(made.first ?? -1)")
        // find the bursts in the recorded input, then compare the sound before and after each
        func rms(_ a: ArraySlice<Float>) -> Double {
            (a.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(a.count, 1))).squareRoot()
        }
        var checked = 0
        var i = 0
        while i < input.count {
            let v = input[i]
            if !v.isFinite || (v != 0 && abs(v) < 1e-30) {
                var j = i
                while j < input.count && (!input[j].isFinite || (input[j] != 0 && abs(input[j]) < 1e-30)) { j += 1 }
                let before = i - rate / 2, after = j + rate / 20
                if before > 0 && after + rate / 2 < output.count {
                    let r0 = rms(output[before..<(i - rate / 20)]), r1 = rms(output[after..<(after + rate / 2)])
                    XCTAssertGreaterThan(r0, 1e-3, "no sound before the burst at \(i)")
                    XCTAssertGreaterThan(
                        r1, 0.5 * r0, "the wah did not recover after the burst at sample \(i) (rms \(r0) -> \(r1))")
                    checked += 1
                }
                i = j
            }
            i += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 3, "the bad bursts did not reach the wah")
    }

    // MARK: - Robustness

    /// No server: one clear error line, and the stdout stream is exactly what it is without JACK.
    func testNoServerGivesOneErrorLineAndStdoutIsComplete() throws {
        let binary = JackTest.debugBinary
        let reference = try JackTest.sh(binary, ["replay", Self.recording, "--fast", "--midi", "stdout"])
        XCTAssertEqual(reference.status, 0)
        let env = JackTest.clientEnv(JackTest.uniqueName("nosuchserver"))
        let r = try JackTest.sh(
            binary, ["replay", Self.recording, "--fast", "--wah", "--midi", "jack", "--midi", "stdout"], env: env)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.out, reference.out, "the stdout stream changed when JACK is missing")
        let jackLines = r.err.split(separator: "\n").filter {
            $0.contains("JACK") || $0.lowercased().contains("jack server")
        }
        XCTAssertEqual(jackLines.count, 1, "expected one JACK line:\n\(r.err)")
        XCTAssertTrue(jackLines.first?.contains("no server") ?? false, r.err)
        XCTAssertTrue(jackLines.first?.contains("error") ?? false, r.err)
        XCTAssertFalse(r.err.contains("Cannot connect to server"), "libjack's own messages leak:\n\(r.err)")
        XCTAssertTrue(r.err.contains("messages sent"), "no summary:\n\(r.err)")
    }

    /// The server dies mid-run (SIGKILL) and comes back: stdout keeps flowing, the client logs the
    /// loss and reconnects, and the stdout stream is complete.
    func testServerKilledAndRestartedClientReconnects() throws {
        try JackTest.requireJackTools()
        let binary = JackTest.debugBinary
        let reference = try JackTest.sh(binary, ["replay", Self.recording, "--fast", "--midi", "stdout"])
        let server = try JackTest.Server(period: 1024)
        let sw = try server.run(binary, ["replay", Self.recording, "--wah", "--midi", "jack", "--midi", "stdout"])
        XCTAssertTrue(sw.waitForStderr("JACK: connected to server", seconds: 10), sw.stderr)
        // mid-run: the replay (537 messages over 12.5 s) well under way
        try sw.awaitStdout("100 messages") { $0.split(separator: "\n").count >= 100 }
        server.kill()
        let linesAtKill = sw.stdout.split(separator: "\n").count
        XCTAssertTrue(sw.waitForStderr("JACK: server .* shut down", seconds: 5), "no loss noticed:\n\(sw.stderr)")
        _ = try? sw.awaitStdout("more messages while the server is down", seconds: 5) {
            $0.split(separator: "\n").count > linesAtKill
        }
        let linesWhileDown = sw.stdout.split(separator: "\n").count
        XCTAssertTrue(sw.isRunning, "sensorwah stopped with the server")
        try server.start()
        XCTAssertTrue(sw.waitForStderr("JACK: reconnected to server", seconds: 6), "no reconnection:\n\(sw.stderr)")
        let status = sw.wait(timeout: 60)
        XCTAssertEqual(status.status, 0, sw.stderr)
        XCTAssertGreaterThan(linesWhileDown, linesAtKill, "stdout stalled while the server was down")
        XCTAssertEqual(sw.stdout, reference.out, "the stdout stream is not complete")
        XCTAssertTrue(sw.stderr.contains("server lost 1x"), sw.stderr)
    }

    /// The line-to-audio measurement (tools/jack-bench line-to-audio) sees every pedal change:
    /// lines over loopback TCP to the real listener, and a hook at the start of each process
    /// cycle that notes the first cycle whose pedal moved. Its timing is the benchmark's; here
    /// only that it works: every line's change reaches the wah, none is missed.
    func testLineToAudioSeesEveryPedalChange() throws {
        try JackTest.requireJackTools()
        let server = try JackTest.Server(period: 256)
        let check = try server.run(JackTest.checkTool(release: false), ["--line-to-audio", "--seconds", "3"])
        let r = check.wait(timeout: 30)
        XCTAssertEqual(r.status, 0, check.stderr)
        let out = check.stdout
        let re = try NSRegularExpression(
            pattern: #"line-to-audio, 256 frames at 48000 Hz .*: (\d+) pedal changes, p50 \d+ us .* missed (\d+);"#)
        let m = try XCTUnwrap(re.firstMatch(in: out, range: NSRange(out.startIndex..., in: out)), out + check.stderr)
        let changes = Int(out[Range(m.range(at: 1), in: out)!])!
        XCTAssertGreaterThan(changes, 100, out)
        XCTAssertEqual(out[Range(m.range(at: 2), in: out)!], "0", out)
    }
}
