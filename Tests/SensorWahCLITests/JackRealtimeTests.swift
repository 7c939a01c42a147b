import Foundation
import XCTest

/// Real-time safety of the JACK process callback, proven on a RELEASE build: `sensorwah-jack-check`
/// (test machinery, never installed) runs the very client of `sensorwah --wah` (SensorWahJack's
/// engine, outputs and callback) with a synthetic sweep, and the audit
/// library (tools/jack-rtaudit, LD_PRELOADed, SENSORWAH_RT_AUDIT=1) counts, on the process
/// thread and only inside the callback, allocations, locks, condition variables, semaphores,
/// libc I/O and sleeping calls, every system call (syscall user dispatch: the kernel traps them),
/// Swift retain/release and object allocation, exclusivity checks and lazy-global initialisation.
/// Thousands of callbacks run with a moving pedal, dense MIDI traffic on midi_out, stereo noise
/// input with NaN, infinity and denormal bursts, and a period-size change in the middle. Every
/// count must be zero from the first callback on. A canary run first proves the counters see
/// forbidden work on that very thread.
final class JackRealtimeTests: XCTestCase {

    func prerequisites() throws -> (binary: String, library: String) {
        try JackTest.requireJackTools(["jack-play", "jack_midi_dump", "jack_bufsize"])
        let binary = JackTest.releaseBinary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw XCTSkip(
                "no release binary at \(binary): `swift build -c release --product sensorwah` first (tools/test does), or set SENSORWAH_RELEASE_BINARY"
            )
        }
        let check = JackTest.checkTool(release: true)
        guard FileManager.default.isExecutableFile(atPath: check) else {
            XCTFail("no release \(check): `swift build -c release --product sensorwah-jack-check` (tools/test does)")
            throw XCTSkip("cannot run the audit without \(check)")
        }
        let dir = try JackTest.tempDir("rtaudit")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let build = try JackTest.sh(JackTest.repo.appendingPathComponent("tools/jack-rtaudit/build").path, [dir.path])
        XCTAssertEqual(build.status, 0, build.err)
        return (check, build.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs `sensorwah-jack-check` under the audit with noise (NaN/Inf/denormal bursts) on both inputs and
    /// a MIDI consumer on midi_out; changes the period half way. Returns the audit line and stderr.
    func auditedRun(
        binary: String, library: String, mode: String, seconds: Double, period: Int, voice: String = "svf",
        extra: [String] = []
    ) throws -> (JackTest.Audit?, String) {
        let dir = try JackTest.tempDir("rt-input")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        var x = JackTest.noise(rate * Int(seconds + 10))
        var t = rate
        while t + 5000 < x.count {  // a bad burst every second
            let kind = (t / rate) % 3
            for i in t..<(t + (kind == 2 ? 4800 : 64)) { x[i] = kind == 0 ? .nan : (kind == 1 ? .infinity : 1e-41) }
            t += rate
        }
        let inPath = dir.appendingPathComponent("bad.wav").path
        try JackTest.writeWAV(inPath, rate: rate, channels: [x, x.reversed()])

        let server = try JackTest.Server(period: period)
        let dumpName = "rtdump\(getpid())"
        let dump = try server.run("jack_midi_dump", [dumpName])
        _ = server.waitForPort("^\(dumpName):input$")
        let player = try server.run("jack-play", [inPath])
        let p1 = try server.playerPort(player)
        let p2 = try server.playerPort(player, 2)
        let sender = try JackTest.buildMIDISender(dir)
        // the run lasts `seconds` from its connection (SIGINT ends it; --seconds is a ceiling), so
        // the period change lands half way however long the start took on a busy machine
        let sw = try server.run(
            binary,
            [
                "--seconds", String(seconds + 60), "--rate", "1000", "--sweep-period", "0.5",
                "--wah", "--channels", "2", "--midi-jack", "--control-in", "--voice", voice,
                "--wah-mode", voice == "crybaby" ? "both" : "sensor",
                "--jack-connect",
                "in_1=\(p1),in_2=\(p2),out_1=system:playback_1,out_2=system:playback_2,midi_out=\(dumpName):input"
            ] + extra, extraEnv: ["LD_PRELOAD": library, "SENSORWAH_RT_AUDIT": mode])
        XCTAssertTrue(sw.waitForStderr("JACK: connected", seconds: 15), sw.stderr)
        // control_in hears what a DAW sends: Program Change among clock and controllers, 25 times
        // a second, over the first half (its control ring fills up: the drop path runs too)
        let burst = ["c0 01", "f8", "b0 07 40", "f8", "+40"]
        let control = try server.run(
            sender,
            ["rtpc\(getpid())", "sensorwah:control_in"]
                + Array(repeating: burst, count: Int(seconds * 0.5 * 25) - 2).flatMap { $0 })
        // durations: the audited run's two halves, before and after the period change
        usleep(UInt32(seconds * 0.5 * 1e6))
        let resize = try server.setPeriod(period * 2)
        XCTAssertEqual(resize.status, 0, "jack_bufsize failed: \(resize.err)")
        usleep(UInt32(seconds * 0.5 * 1e6))
        sw.signal(SIGINT)
        let status = sw.wait(timeout: 30)
        XCTAssertEqual(status.status, 0, sw.stderr)
        dump.signal(SIGINT)
        dump.wait(timeout: 5)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        XCTAssertEqual(control.wait(timeout: 10).status, 0, control.stderr)
        let programs = Int(sw.stderr.firstCapture("Program Change received (\\d+)") ?? "") ?? 0
        XCTAssertGreaterThan(programs, Int(seconds * 5), "too few Program Changes reached control_in:\n\(sw.stderr)")
        let messages = JackTest.dumpMessages(dump.stdout).count
        XCTAssertGreaterThan(messages, Int(seconds * 100), "too little MIDI reached midi_out (\(messages))")
        print(
            "---- \(mode) run, \(voice) voice, period \(period) -> \(period * 2):\n\(sw.stderr.split(separator: "\n").filter { $0.contains("rt-audit") || $0.contains("JACK") }.joined(separator: "\n"))"
        )
        return (JackTest.Audit(sw.stderr), sw.stderr)
    }

    /// The audit's verdict: its self-test passed, system calls were trapped, at least
    /// `minCallbacks` callbacks were all audited, and each count of forbidden work is zero.
    func assertClean(
        _ audit: JackTest.Audit, minCallbacks: Int, _ what: String, _ err: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(audit.values["selftest"], "ok", "the audit's self-test failed:\n\(err)", file: file, line: line)
        XCTAssertEqual(
            audit.values["syscall_dispatch"], "on", "system calls were not audited:\n\(err)", file: file, line: line)
        let callbacks = audit.int("callbacks")
        XCTAssertGreaterThan(callbacks, minCallbacks, "too few callbacks audited (\(what))", file: file, line: line)
        XCTAssertEqual(
            callbacks, audit.int("cycles"), "some callbacks were not audited (\(what))", file: file, line: line)
        for k in [
            "malloc", "free", "lock", "condvar", "semaphore", "libc_io", "syscalls",
            "retain", "release", "swift_alloc", "swift_access", "swift_once"
        ] {
            XCTAssertEqual(audit.int(k), 0, "\(k) in the process callback (\(what)):\n\(err)", file: file, line: line)
        }
    }

    func testProcessCallbackIsRealTimeSafeInReleaseBuild() throws {
        let (binary, library) = try prerequisites()

        // 1. the counters see forbidden work done inside the callback, on the JACK thread
        let (canaryAudit, canaryErr) = try auditedRun(
            binary: binary, library: library, mode: "canary", seconds: 3, period: 256)
        let canary = try XCTUnwrap(canaryAudit, "no rt-audit line:\n\(canaryErr)")
        let canaryCallbacks = canary.int("callbacks")
        XCTAssertGreaterThan(canaryCallbacks, 300)
        for k in ["malloc", "free", "retain", "release"] {
            XCTAssertEqual(canary.int(k), canaryCallbacks, "canary: \(k) not counted once per callback")
        }
        XCTAssertGreaterThanOrEqual(canary.int("syscalls"), canaryCallbacks, "canary: system calls not trapped")

        // 2. the real thing: zero of everything, over thousands of callbacks, for every voice (the
        // crybaby run also follows the envelope: --wah-mode both)
        for (voice, seconds) in [("svf", 16.0), ("crybaby", 10.0)] {
            let (auditResult, err) = try auditedRun(
                binary: binary, library: library, mode: "1", seconds: seconds, period: 128, voice: voice)
            let audit = try XCTUnwrap(auditResult, "no rt-audit line:\n\(err)")
            XCTAssertEqual(audit.int("threads"), 1)
            assertClean(audit, minCallbacks: Int(seconds * 180), voice, err)
            XCTAssertTrue(err.contains("period now 256 frames"), "the period change was not seen:\n\(err)")
        }
    }

    /// The same audit with the whole effect chain (fuzz, wah, tremolo, phaser, delay) instead of
    /// the wah alone: a mapping sweeping the delay's time (the delay line glides), a scene's
    /// change of chain every quarter second (both chains run during each crossfade), the CC the
    /// burst sends on control_in bound to a parameter (--fx-cc), transport's tempo read every
    /// cycle. Zero of everything from the first callback on.
    func testEffectChainAndSceneChangesAreRealTimeSafeInReleaseBuild() throws {
        let (binary, library) = try prerequisites()
        let seconds = 10.0
        let (auditResult, err) = try auditedRun(
            binary: binary, library: library, mode: "1", seconds: seconds, period: 128,
            extra: [
                "--fx",
                "fuzz drive=0.8 > wah > tremolo rate=5 depth=0.7 sync=1/8 > phaser > delay time=0.3 feedback=0.4 mix=0.3",
                "--fx-map", "tilt.y fx=delay.time to=0.05..0.6", "--fx-period", "0.7",
                "--scene-fx", "delay time=0.2 > tremolo > fuzz", "--scene-every", "0.25",
                "--fx-cc", "7=tremolo.depth"
            ])
        let audit = try XCTUnwrap(auditResult, "no rt-audit line:\n\(err)")
        assertClean(audit, minCallbacks: Int(seconds * 180), "effect chain", err)
        let ccs = Int(err.firstCapture("effect CCs applied (\\d+)") ?? "") ?? 0
        XCTAssertGreaterThan(ccs, Int(seconds * 5), "the bound CC did not reach the chain:\n\(err)")
        XCTAssertTrue(err.contains("period now 256 frames"), "the period change was not seen:\n\(err)")
    }

    /// The audit with the control page open in a browser and the mapping edited mid-stream:
    /// `sensorwah-jack-check --listen-web` feeds the engine from the real listener (a phone's
    /// lines over loopback TCP sweeping the pedal) with the `--web` control page; headless
    /// Chromium opens the page (its live socket pushes the state 30 times a second), and the
    /// mapping is replaced through the page and through the API while the callback is counted.
    /// Zero of everything, and the pedal followed the edited mapping.
    func testTheControlPageChangesNothingInTheCallback() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw XCTSkip("chromium is not installed (tools/install-deps installs it)")
        }
        let (binary, library) = try prerequisites()
        let data = try JackTest.tempDir("rt-web")
        defer { try? FileManager.default.removeItem(at: data) }
        // the run ends when the edits are done (SIGINT), not at a fixed time: on a busy machine
        // Chromium alone can take longer to start than a fixed run would last (the page's PUT
        // would come after the run had ended); --seconds is only the ceiling
        let ceiling = 120.0
        let server = try JackTest.Server(period: 128)
        let dumpName = "rtwebdump\(getpid())"
        let dump = try server.run("jack_midi_dump", [dumpName])
        _ = server.waitForPort("^\(dumpName):input$")
        let sw = try server.run(
            binary,
            [
                "--seconds", String(ceiling), "--wah", "--midi-jack", "--listen-web",
                "--map", "accel.x cc=11 range=-1..1 bipolar smooth=0",
                "--jack-connect", "out_1=system:playback_1,midi_out=\(dumpName):input"
            ], extraEnv: ["LD_PRELOAD": library, "SENSORWAH_RT_AUDIT": "1", "XDG_DATA_HOME": data.path])
        XCTAssertTrue(sw.waitForStderr("listen-web: tcp", seconds: 20), sw.stderr)
        let started = Date()
        let https = try XCTUnwrap(sw.stderr.firstCapture("listen-web: tcp \\d+ https (\\d+)"), sw.stderr)
        let token = try XCTUnwrap(sw.stderr.firstCapture("token ([0-9a-f]{40})"), sw.stderr)
        let page = try RTPMIDICLITests.Peer.custom(
            RTPMIDICLITests.python,
            [
                ControlCLITests.driver,
                "--url", "https://127.0.0.1:\(https)/control#\(token)", "--watch", "4", "--edit",
                "accel.x cc=11 range=-0.5..0.5 bipolar smooth=0"
            ])
        page.process.waitUntilExit()
        page.stop()
        XCTAssertEqual(page.process.terminationStatus, 0, page.text)
        XCTAssertEqual(page.lines.first { $0["event"] as? String == "loaded" }?["state"] as? String, "live", page.text)
        XCTAssertEqual(page.lines.first { $0["event"] as? String == "edited" }?["error"] as? String, "", page.text)
        let put = try WebCLITests.shell(
            "curl -sk -o /dev/null -w '%{http_code}' -X PUT -H 'Authorization: Bearer \(token)' --data '{\"text\": \"accel.x cc=11 range=-2..2 bipolar smooth=20\"}' https://127.0.0.1:\(https)/api/mappings/1"
        ).stdout
        XCTAssertEqual(put, "200")
        // the edited mapping drives the pedal for a while, still audited; at least 12 s in all
        usleep(UInt32(max(2, 12 - Date().timeIntervalSince(started)) * 1e6))
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, ceiling - 5, "the page and the API edit took the whole run")
        sw.signal(SIGINT)
        let status = sw.wait(timeout: 30)
        XCTAssertEqual(status.status, 0, sw.stderr)
        dump.signal(SIGINT)
        dump.wait(timeout: 5)
        let err = sw.stderr
        XCTAssertTrue(err.contains("control: mapping 1 is now accel.x cc=11 range=-0.5..0.5 bipolar smooth=0"), err)
        XCTAssertTrue(err.contains("control: mapping 1 is now accel.x cc=11 range=-2..2 bipolar smooth=20"), err)
        let messages = JackTest.dumpMessages(dump.stdout).count
        XCTAssertGreaterThan(messages, Int(seconds * 50), "too little MIDI reached midi_out (\(messages))")
        let audit = try XCTUnwrap(JackTest.Audit(err), "no rt-audit line:\n\(err)")
        print(
            "---- control page run:\n\(err.split(separator: "\n").filter { $0.contains("rt-audit") || $0.contains("control:") }.joined(separator: "\n"))"
        )
        assertClean(audit, minCallbacks: Int(seconds * 180), "the control page open", err)
    }
}
