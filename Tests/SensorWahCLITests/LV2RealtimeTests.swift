import Foundation
import XCTest

/// Real-time safety of sensorwah.lv2's run(), inside a real host: jalv hosts the shipped bundle
/// (release build, nothing added) on a dummy JACK server, and the audit library
/// (tools/jack-rtaudit/build --lv2: rtaudit.c and lv2host.c, LD_PRELOADed into jalv only) wraps the
/// descriptor's run() that lilv hands to jalv and counts, on the thread calling it and only inside
/// it, allocations, locks, condition variables, semaphores, libc I/O and sleeping calls, every
/// system call (syscall user dispatch), and retain/release and object allocation in the Swift
/// runtime linked into the plugin. Noise with NaN, infinity and denormal bursts goes in, a dense
/// CC sweep from `sensorwah-jack-check --midi-jack` goes into midi_in, the controls (voice, mode,
/// frequencies, mix, bypass) change every second through jalv's console, and the period doubles
/// half way. Every count must be zero. A canary run first proves the counters see forbidden work
/// done inside run() on jalv's process thread, and every run starts with a self-test of the hooks.
final class LV2RealtimeTests: XCTestCase {

    struct Setup {
        var bundle: URL
        var library: String
        var check: String
    }

    func prerequisites() throws -> Setup {
        try JackTest.requireJackTools(["jalv", "jack-play", "jack_bufsize"])
        let check = JackTest.checkTool(release: true)
        guard FileManager.default.isExecutableFile(atPath: check) else {
            XCTFail("no release \(check): `swift build -c release --product sensorwah-jack-check` (tools/test does)")
            throw XCTSkip("no MIDI source for the audit")
        }
        let bundle = try LV2Test.bundle("lv2-rtaudit")
        addTeardownBlock { try? FileManager.default.removeItem(at: bundle) }
        let libDir = try JackTest.tempDir("lv2-rtaudit-lib")
        addTeardownBlock { try? FileManager.default.removeItem(at: libDir) }
        let build = try JackTest.sh(
            JackTest.repo.appendingPathComponent("tools/jack-rtaudit/build").path, ["--lv2", libDir.path])
        XCTAssertEqual(build.status, 0, build.err)
        return Setup(bundle: bundle, library: build.out.trimmingCharacters(in: .whitespacesAndNewlines), check: check)
    }

    /// jalv under the audit for `seconds`, fed as described above; returns the audit line and
    /// jalv's stderr.
    func auditedHost(_ setup: Setup, mode: String, seconds: Int, period: Int) throws -> (JackTest.Audit?, String) {
        let rate = 48_000
        var x = JackTest.noise(rate * (seconds + 10), amplitude: 0.5)
        var t = rate
        while t + 5000 < x.count {  // a bad burst every second
            let kind = (t / rate) % 3
            for i in t..<(t + (kind == 2 ? 4800 : 64)) { x[i] = kind == 0 ? .nan : (kind == 1 ? .infinity : 1e-41) }
            t += rate
        }
        let audio = try JackTest.tempDir("lv2-rt-input")  // not in LV2_PATH: lilv reads every entry there
        defer { try? FileManager.default.removeItem(at: audio) }
        let inPath = audio.appendingPathComponent("bad.wav").path
        try JackTest.writeWAV(inPath, rate: rate, channels: [x])

        let server = try JackTest.Server(period: period)
        let host = try server.run(
            "jalv", [LV2Test.uri],
            extraEnv: [
                "LV2_PATH": setup.bundle.path, "LD_PRELOAD": setup.library, "SENSORWAH_RT_AUDIT": mode
            ], openStdin: true)
        _ = try XCTUnwrap(server.waitForPort("^SensorWah:midi_in$"), "jalv has no midi_in: \(host.stderr)")
        let player = try server.run("jack-play", [inPath])
        let playPort = try server.playerPort(player)
        for (from, to) in [(playPort, "SensorWah:in"), ("SensorWah:out", "system:playback_1")] {
            let c = try JackTest.sh("jack_connect", [from, to], env: server.env)
            XCTAssertEqual(c.status, 0, "jack_connect \(from) \(to): \(c.err)")
        }
        let midi = try server.run(
            setup.check,
            [
                "--seconds", String(seconds), "--rate", "1000", "--sweep-period", "0.5", "--midi-jack",
                "--jack-connect", "midi_out=SensorWah:midi_in"
            ])
        XCTAssertTrue(midi.waitForStderr("1 connection made", seconds: 15), midi.stderr)

        // every control the plugin reads, changed while it runs (cc stays 11: the sweep's controller)
        let changes = [
            "voice = 1", "mode = 2", "heel_hz = 300", "toe_hz = 3000", "mix = 0.5", "bypass = 1",
            "heel_q = 4", "bypass = 0", "mode = 1", "attack = 20", "release = 300", "sensitivity = 5",
            "voice = 0", "mode = 0", "toe_q = 1", "mix = 1", "cc = 11", "pedal = 90"
        ]
        for second in 0..<seconds {
            host.send(changes[second % changes.count])
            if second == seconds / 2 {
                let resize = try server.setPeriod(period * 2)
                XCTAssertEqual(resize.status, 0, "jack_bufsize failed: \(resize.err)")
            }
            usleep(1_000_000)  // a duration: one change a second is the audited run's script
        }
        XCTAssertEqual(midi.wait(timeout: 30).status, 0, midi.stderr)
        host.closeStdin()
        let status = host.wait(timeout: 20)
        XCTAssertEqual(status.status, 0, host.stderr)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        print(
            "---- jalv \(mode) run, period \(period) -> \(period * 2):\n\(host.stderr.split(separator: "\n").filter { $0.contains("rt-audit") }.joined(separator: "\n"))"
        )
        return (JackTest.Audit(host.stderr), host.stderr)
    }

    func testPluginRunIsRealTimeSafeInJalvInReleaseBuild() throws {
        let setup = try prerequisites()

        // 1. the counters see forbidden work done inside run(), on jalv's process thread
        let (canaryAudit, canaryErr) = try auditedHost(setup, mode: "canary", seconds: 3, period: 256)
        let canary = try XCTUnwrap(canaryAudit, "no rt-audit line:\n\(canaryErr)")
        XCTAssertEqual(canary.values["install"], "ok", canaryErr)
        let canaryCallbacks = canary.int("callbacks")
        XCTAssertGreaterThan(canaryCallbacks, 300)
        for k in ["malloc", "free", "retain", "release"] {
            XCTAssertEqual(canary.int(k), canaryCallbacks, "canary: \(k) not counted once per run()")
        }
        XCTAssertGreaterThanOrEqual(canary.int("syscalls"), canaryCallbacks, "canary: system calls not trapped")

        // 2. the real thing: zero of everything over thousands of run() calls
        let seconds = 12
        let (auditResult, err) = try auditedHost(setup, mode: "1", seconds: seconds, period: 128)
        let audit = try XCTUnwrap(auditResult, "no rt-audit line:\n\(err)")
        XCTAssertEqual(audit.values["install"], "ok", "the audit's hooks are not in place:\n\(err)")
        XCTAssertEqual(audit.values["selftest"], "ok", "the audit's self-test failed:\n\(err)")
        XCTAssertEqual(audit.values["syscall_dispatch"], "on", "system calls were not audited:\n\(err)")
        XCTAssertEqual(audit.int("threads"), 1)
        let callbacks = audit.int("callbacks")
        XCTAssertGreaterThan(callbacks, seconds * 180, "too few run() calls audited")
        // jalv skips run() only in the first cycles, before the plugin is activated
        XCTAssertGreaterThanOrEqual(callbacks, audit.int("cycles") - 50, "some run() calls were not audited")
        for k in [
            "malloc", "free", "lock", "condvar", "semaphore", "libc_io", "syscalls", "retain", "release", "swift_alloc"
        ] {
            XCTAssertEqual(audit.int(k), 0, "\(k) in the plugin's run():\n\(err)")
        }
    }

    /// The chain plugin (fuzz, wah, tremolo, phaser, delay in one) under the same audit in jalv:
    /// noise with NaN/infinity/denormal bursts, a control of each effect changed every second
    /// (the delay's time glides, bypasses crossfade, the phaser's stages switch), the period
    /// doubling half way. Zero of everything over thousands of run() calls.
    func testChainPluginRunIsRealTimeSafeInJalvInReleaseBuild() throws {
        let setup = try prerequisites()
        let seconds = 10, period = 128, rate = 48_000
        var x = JackTest.noise(rate * (seconds + 10), amplitude: 0.5)
        var t = rate
        while t + 5000 < x.count {
            let kind = (t / rate) % 3
            for i in t..<(t + (kind == 2 ? 4800 : 64)) { x[i] = kind == 0 ? .nan : (kind == 1 ? .infinity : 1e-41) }
            t += rate
        }
        let audio = try JackTest.tempDir("lv2-rt-chain-input")
        defer { try? FileManager.default.removeItem(at: audio) }
        let inPath = audio.appendingPathComponent("bad.wav").path
        try JackTest.writeWAV(inPath, rate: rate, channels: [x])
        let server = try JackTest.Server(period: period)
        let host = try server.run(
            "jalv", ["-n", "swchain", LV2Test.chainURI],
            extraEnv: [
                "LV2_PATH": setup.bundle.path, "LD_PRELOAD": setup.library, "SENSORWAH_RT_AUDIT": "1"
            ], openStdin: true)
        _ = try XCTUnwrap(server.waitForPort("^swchain:in$"), "jalv has no in port: \(host.stderr)")
        let player = try server.run("jack-play", [inPath])
        let playPort = try server.playerPort(player)
        for (from, to) in [(playPort, "swchain:in"), ("swchain:out", "system:playback_1")] {
            let c = try JackTest.sh("jack_connect", [from, to], env: server.env)
            XCTAssertEqual(c.status, 0, "jack_connect \(from) \(to): \(c.err)")
        }
        let changes = [
            "fuzz_drive = 0.9", "wah_pedal = 0.8", "tremolo_rate = 9", "phaser_stages = 8", "delay_time = 0.05",
            "delay_feedback = 0.8", "tremolo_shape = 2", "fuzz_bypass = 1", "wah_voice = 1", "delay_time = 1.5",
            "phaser_feedback = 0.7", "tremolo_sync = 3", "fuzz_bypass = 0", "delay_tone = 0.2"
        ]
        for second in 0..<seconds {
            host.send(changes[second % changes.count])
            if second == seconds / 2 {
                let resize = try server.setPeriod(period * 2)
                XCTAssertEqual(resize.status, 0, "jack_bufsize failed: \(resize.err)")
            }
            usleep(1_000_000)  // a duration: one change a second is the audited run's script
        }
        host.closeStdin()
        let status = host.wait(timeout: 20)
        XCTAssertEqual(status.status, 0, host.stderr)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        print(
            "---- jalv chain run:\n\(host.stderr.split(separator: "\n").filter { $0.contains("rt-audit") }.joined(separator: "\n"))"
        )
        let audit = try XCTUnwrap(JackTest.Audit(host.stderr), "no rt-audit line:\n\(host.stderr)")
        XCTAssertEqual(audit.values["install"], "ok", host.stderr)
        XCTAssertEqual(audit.values["selftest"], "ok", host.stderr)
        XCTAssertEqual(audit.values["syscall_dispatch"], "on", host.stderr)
        let callbacks = audit.int("callbacks")
        XCTAssertGreaterThan(callbacks, seconds * 180, "too few run() calls audited")
        for k in [
            "malloc", "free", "lock", "condvar", "semaphore", "libc_io", "syscalls", "retain", "release", "swift_alloc"
        ] {
            XCTAssertEqual(audit.int(k), 0, "\(k) in the chain plugin's run():\n\(host.stderr)")
        }
    }
}
