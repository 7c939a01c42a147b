import Foundation
import XCTest

/// `--wah-switch` end to end on a real JACK server (dummy backend): a sine from jack-play
/// through `replay --wah --wah-switch flick` into jack-record, while the phone demo's two
/// flicks (6.28 s and 6.98 s into the log) engage and bypass the wah.
final class JackWahSwitchTests: XCTestCase {
    func testFlickEngagesAndBypassesTheWahWithoutAClick() throws {
        try JackTest.requireJackTools(["jack-play", "jack-record"])
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("jack-switch")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        // 300 Hz, far below the toe's band where the flicks leave the pedal: the engaged wah is
        // clearly quieter than the sine, the bypassed one is the sine itself
        let amplitude = 0.25
        let sine = (0..<(rate * 30)).map { Float(amplitude * sin(2 * Double.pi * 300 * Double($0) / Double(rate))) }
        let sinePath = dir.appendingPathComponent("sine.wav").path
        try JackTest.writeWAV(sinePath, rate: rate, channels: [sine])
        let outPath = dir.appendingPathComponent("out.wav").path

        let server = try JackTest.Server(period: 256)
        let recorder = try server.run("jack-record", ["-n", "1", outPath])
        let recPort = try XCTUnwrap(server.waitForPort("^jack-record-\(recorder.pid):in_1$"), "jack-record has no port")
        let player = try server.run("jack-play", [sinePath])
        let playPort = try server.playerPort(player)

        let sw = try server.run(
            binary,
            [
                "replay", JackIntegrationTests.recording, "--wah", "--wah-switch", "flick", "--midi", "stdout",
                "--jack-connect", "in_1=\(playPort),out_1=\(recPort)"
            ])
        let status = sw.wait(timeout: 60)
        XCTAssertFalse(status.timedOut)
        XCTAssertEqual(status.status, 0, sw.stderr)
        recorder.stopRecording(outPath, rate: rate, channels: 1)
        player.signal(SIGTERM)
        player.wait(timeout: 5)
        XCTAssertTrue(sw.stderr.contains("2 connections made"), sw.stderr)

        // the switch events on stdout: engaged at the first flick, bypassed at the second
        var switches: [(t: Double, engaged: Bool)] = []
        for line in sw.stdout.split(separator: "\n") {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                obj["type"] as? String == "wah_switch", let t = obj["t"] as? Double, let on = obj["engaged"] as? Bool
            else { continue }
            switches.append((t, on))
        }
        XCTAssertEqual(switches.map(\.engaged), [true, false], "\(switches)")
        guard switches.count == 2 else { return }
        XCTAssertEqual(switches[0].t, 6.28, accuracy: 0.02)
        XCTAssertEqual(switches[1].t, 6.98, accuracy: 0.02)

        // the recording, 10 ms windows: silence before sensorwah connects and after it leaves,
        // the sine while bypassed, a much quieter wah while engaged
        let y = try JackTest.readWAV(outPath).channels[0]
        let w = rate / 100
        let rms: [Double] = stride(from: 0, to: y.count - w, by: w).map { s in
            (y[s..<(s + w)].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(w)).squareRoot()
        }
        enum Level { case silent, wah, sine }
        let full = amplitude / 2.0.squareRoot()
        let levels: [Level] = rms.map {
            $0 < 1e-4 ? .silent : abs($0 - full) < 0.01 * full ? .sine : $0 < 0.05 ? .wah : .silent
        }
        // runs of equal levels, ignoring the window that holds an edge
        var runs: [(level: Level, start: Int, count: Int)] = []
        for (i, l) in levels.enumerated() {
            if let last = runs.last, last.level == l { runs[runs.count - 1].count += 1 } else { runs.append((l, i, 1)) }
        }
        // what sensorwah played, between the silence before it connected and after it left
        // a dummy-backend xrun on a busy machine drops a window or two mid-run: runs of the same
        // level that only such a short blip separates are one run
        var long: [(level: Level, start: Int, count: Int)] = []
        for r in runs where r.count >= 20 {
            if let last = long.last, last.level == r.level {
                long[long.count - 1].count = r.start + r.count - last.start
            } else {
                long.append(r)
            }
        }
        while long.first?.level == .silent { long.removeFirst() }
        while long.last?.level == .silent { long.removeLast() }
        XCTAssertEqual(
            long.map(\.level), [.sine, .wah, .sine],
            "\(long.map { ($0.level, Double($0.start) / 100, Double($0.count) / 100) })")
        guard long.count == 3 else { return }
        print(
            "wah switch on JACK: sine \(Double(long[0].count) / 100) s, wah \(Double(long[1].count) / 100) s, sine \(Double(long[2].count) / 100) s"
        )
        // bypassed up to the first flick (6.28 s of replay) and engaged for the 0.70 s to the second.
        // The switches fall at wall-clock moments, the recording counts JACK frames: a late cycle
        // of the dummy backend (an xrun, which sensorwah counts on stderr) loses wall time that no
        // frame covers, so with xruns the engaged run may be shorter, never longer
        XCTAssertGreaterThan(long[0].count, 600, "bypassed for less than 6 s before the first flick")
        let engaged = Double(long[1].count) / 100, expected = switches[1].t - switches[0].t
        let xruns = sw.stderr.firstMatch(of: /JACK: (\d+) xruns? in/).flatMap { Int($0.1) }
        XCTAssertNotNil(xruns, "no JACK summary on stderr: \(sw.stderr)")
        if xruns == 0 {
            XCTAssertEqual(engaged, expected, accuracy: 0.05)
        } else {
            print("wah switch on JACK: \(xruns ?? -1) xruns in the run, the engaged run may lose their time")
            XCTAssertLessThanOrEqual(engaged, expected + 0.05)
            XCTAssertGreaterThanOrEqual(engaged, expected - 0.2)
        }
        XCTAssertGreaterThan(long[2].count, 400, "bypassed for less than 4 s after the second flick")

        // no click: around each switch the largest sample-to-sample step stays that of the sine
        // (a hard switch would jump by up to the wet-dry difference, ~0.25 here)
        let sineStep = amplitude * 2 * Double.pi * 300 / Double(rate)
        for edge in [long[1].start * w, (long[1].start + long[1].count) * w] {
            var worst = 0.0, at = 0
            for k in max(edge - rate / 20, 1)..<min(edge + rate / 20, y.count)
            where Double(abs(y[k] - y[k - 1])) > worst {
                worst = Double(abs(y[k] - y[k - 1])); at = k
            }
            XCTAssertLessThan(
                worst, sineStep * 1.2,
                "a step of \(worst) at \(Double(at) / Double(rate)) s (the sine's own is \(sineStep))")
        }
    }
}
