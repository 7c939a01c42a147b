import Foundation
import XCTest

/// Scenes switched by MIDI Program Change on the JACK input `control_in`: a real dummy JACK
/// server, `listen --midi jack` fed by `stream` over loopback, a real JACK MIDI client
/// (Tests/Tools/jack-midi-send.c) sending Program Change wrapped in clock, notes and
/// controllers, and jack_midi_dump recording `midi_out`. (The ALSA input is tested in the
/// qemu guest: tools/alsa-guest-test, case `scenes`.)
final class SceneProgramChangeTests: XCTestCase {
    /// A channel outside 1-16 is refused in one line, pointing at the file's line when it came
    /// from there.
    func testSceneChannelOutOfRangeIsOneClearError() throws {
        let r = try CLI.run(["listen", "--scene-channel", "17"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--scene-channel 17: a MIDI channel is 1 to 16"), r.stderr)
        let dir = try JackTest.tempDir("scene-channel")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("rig.yaml").path
        try "listen:\n  port: 0\n  scene-channel: 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        let f = try CLI.run(["listen", "--config", path])
        XCTAssertEqual(f.status, 64, f.stderr)
        XCTAssertTrue(
            f.stderr.contains("\(path):3: listen.scene-channel: --scene-channel 0: a MIDI channel is 1 to 16"), f.stderr
        )
    }

    func testProgramChangeOnControlInSwitchesSceneAndRestsTheOldOne() throws {
        try JackTest.requireJackTools(["jack_midi_dump"])
        let dir = try JackTest.tempDir("scene-pc")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let sender = try JackTest.buildMIDISender(dir)
        let config = dir.appendingPathComponent("rig.yaml").path
        // verse drives CC 11 and holds a note (a tap starts it, it would sound a minute);
        // solo drives CC 20 and CC 21 on channel 2. Program Change only on channel 2.
        try """
        listen:
          bind: 127.0.0.1
          port: 0
          rest-after: 30
          scene-channel: 2
        output:
          midi: [jack, stdout]
        scene: verse
        scenes:
          verse:
            - accel.x cc=11
            - tap note=60 length=60000
          solo:
            - accel.x cc=20
            - accel.y cc=21 ch=2
        """.write(toFile: config, atomically: true, encoding: .utf8)

        let server = try JackTest.Server(period: 256)
        let dumpName = "scdump\(getpid())"
        let dump = try server.run("jack_midi_dump", [dumpName])
        _ = try XCTUnwrap(server.waitForPort("^\(dumpName):input$"), "jack_midi_dump has no port")
        let listen = try server.run(
            JackTest.debugBinary,
            [
                "listen", "--config", config, "--no-monitor",
                "--jack-connect", "midi_out=\(dumpName):input"
            ])
        XCTAssertTrue(listen.waitForStderr("JACK: connected.*control_in", seconds: 15), listen.stderr)
        XCTAssertTrue(
            listen.waitForStderr(
                "Program Change \\(channel 2\\) on JACK sensorwah:control_in selects a scene: 0 verse, 1 solo",
                seconds: 5), listen.stderr)
        let port = try XCTUnwrap(listen.stderr.firstCapture(#"listening on tcp://127\.0\.0\.1:(\d+)"#), listen.stderr)
        let control = try XCTUnwrap(server.waitForPort(":control_in$"), "no control_in port")

        let stream = try JackTest.Proc(
            JackTest.debugBinary,
            ["stream", ALSAGuestTests.recording, "--to", "127.0.0.1:\(port)", "--loop", "--speed", "2"])
        func waitForStdout(_ text: String, seconds: Double = 10) -> Bool {
            (try? listen.awaitStdout(text, seconds: seconds) { $0.contains(text) }) != nil
        }
        XCTAssertTrue(waitForStdout("\"cc\":11,"), "verse does not play:\n\(listen.stderr)")
        XCTAssertTrue(waitForStdout("\"note_on\""), "the tap note never sounded:\n\(listen.stderr)")

        // what a DAW sends around the switch: clock, start, a controller, a note; then Program
        // Change 7 (no such scene), Program Change 1 on channel 1 (not ours), and the real one
        var steps: [String] =
            Array(repeating: "f8", count: 48) + ["fa", "b0 07 64", "90 40 64", "80 40 00", "c1 07", "c0 01"]
        steps += ["+400"] + Array(repeating: "f8", count: 24) + ["c1 01"] + Array(repeating: "f8", count: 24)
        let send = try server.run(sender, ["scsend\(getpid())", control] + steps)
        XCTAssertEqual(send.wait(timeout: 20).status, 0, send.stderr)
        XCTAssertTrue(send.stdout.contains("sent \(steps.filter { !$0.hasPrefix("+") }.count) messages"), send.stdout)
        XCTAssertTrue(listen.waitForStderr("scene 'solo' \\(2 of 2\\)", seconds: 5), listen.stderr)
        XCTAssertTrue(waitForStdout("\"ch\":2,\"cc\":21,"), "the solo scene does not play")
        // what is checked below has reached midi_out: solo's CC 21 on channel 2, and more than 20 messages
        _ = try? dump.awaitStdout("solo's CC 21 on channel 2 and more than 20 messages at jack_midi_dump") { text in
            let got = JackTest.dumpMessages(text)
            return got.count > 20 && got.contains { $0.count == 3 && $0[0] == 0xB1 && $0[1] == 21 }
        }
        stream.signal(SIGINT)
        stream.wait(timeout: 10)
        listen.signal(SIGINT)
        XCTAssertEqual(listen.wait(timeout: 20).status, 0, listen.stderr)
        dump.signal(SIGINT)
        dump.wait(timeout: 5)
        let err = listen.stderr

        // Program Change 7 is logged and changes nothing; channel 1 is not listened to
        XCTAssertTrue(
            err.contains(
                "Program Change 7 (channel 2): there is no scene 7 (the scenes are 0 verse, 1 solo); scene 'verse' stays"
            ), err)
        XCTAssertFalse(err.contains("(channel 1)"), "a Program Change on channel 1 was taken:\n\(err)")
        XCTAssertEqual(err.components(separatedBy: "scene 'solo' (2 of 2)").count - 1, 1, err)
        XCTAssertTrue(
            err.contains("Program Change received 3"),
            "control_in did not count the three Program Changes (clock, notes and CC are not counted):\n\(err)")
        let noScene = try XCTUnwrap(err.range(of: "there is no scene 7"))
        let switched = try XCTUnwrap(err.range(of: "scene 'solo' (2 of 2)"))
        XCTAssertLessThan(noScene.lowerBound, switched.lowerBound)

        // midi_out, as jack_midi_dump received it
        let got = JackTest.dumpMessages(dump.stdout)
        XCTAssertGreaterThan(got.count, 20, "too little reached midi_out:\n\(dump.stderr)")
        let firstSolo = try XCTUnwrap(
            got.firstIndex { $0.count == 3 && $0[0] == 0xB0 && $0[1] == 20 }, "no CC 20 on midi_out")
        let before = got[..<firstSolo], after = got[firstSolo...]
        // the hand-over: CC 11 went to rest and the note ended, before solo played
        let lastCC11 = try XCTUnwrap(
            before.last { $0.count == 3 && $0[0] == 0xB0 && $0[1] == 11 }, "verse's CC 11 never reached midi_out")
        XCTAssertEqual(lastCC11[2], 64, "CC 11 left at \(lastCC11[2]) instead of its rest value")
        let lastNote = try XCTUnwrap(
            before.last { $0.count == 3 && ($0[0] == 0x90 || $0[0] == 0x80) && $0[1] == 60 },
            "no note 60 before the switch")
        XCTAssertEqual(lastNote[0], 0x80, "note 60 left sounding: the last message for it before solo is \(lastNote)")
        // solo alone afterwards: no CC 11, no note 60
        XCTAssertFalse(
            after.contains { $0.count == 3 && $0[0] == 0xB0 && $0[1] == 11 }, "CC 11 still sent after the switch")
        XCTAssertFalse(
            after.contains { $0.count == 3 && $0[0] == 0x90 && $0[1] == 60 }, "note 60 played after the switch")
        XCTAssertTrue(
            after.contains { $0.count == 3 && $0[0] == 0xB1 && $0[1] == 21 }, "no CC 21 on channel 2 after the switch")
        // nothing received came back out: no Program Change, clock, start, CC 7, note 64
        for m in got {
            XCTAssertFalse(m[0] & 0xF0 == 0xC0 || m[0] >= 0xF0, "echoed \(m) to midi_out")
            XCTAssertFalse(
                m.count == 3 && (m[0] & 0xF0 == 0x90 || m[0] & 0xF0 == 0x80) && m[1] == 0x40,
                "echoed the note \(m) to midi_out")
            XCTAssertFalse(m.count == 3 && m[0] == 0xB0 && m[1] == 7, "echoed CC 7 to midi_out")
        }
        // the stdout stream tells the same story
        let lines = CLI.lines(listen.stdout)
        let firstSoloLine = try XCTUnwrap(lines.firstIndex { $0.contains("\"cc\":20,") })
        let lastNoteLine = try XCTUnwrap(lines[..<firstSoloLine].last { $0.contains("\"note\":60") })
        XCTAssertTrue(lastNoteLine.contains("note_off"), lastNoteLine)
    }
}

extension String {
    /// The first capture group of `pattern`, or nil.
    func firstCapture(_ pattern: String) -> String? {
        let re = try! NSRegularExpression(pattern: pattern)
        guard let m = re.firstMatch(in: self, range: NSRange(startIndex..., in: self)), m.numberOfRanges > 1,
            let r = Range(m.range(at: 1), in: self)
        else { return nil }
        return String(self[r])
    }
}
