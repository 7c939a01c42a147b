import Foundation
import TestSupport
import XCTest

/// `sensorwah listen --osc` with a real OSC peer: liblo's `oscsend` (Debian: liblo-tools,
/// installed by tools/install-deps). The live CC stream must equal `sensorwah replay` of what
/// `--record` saved.
final class OSCListenCLITests: XCTestCase {
    func oscsend(_ port: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["oscsend", "127.0.0.1", port] + args
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "oscsend \(args) (is liblo-tools installed? tools/install-deps)")
    }

    func cc(_ lines: [String], _ n: Int) -> [String] { lines.filter { $0.contains("\"cc\":\(n),") } }
    func values(_ lines: [String]) -> [String] { lines.map { String($0[$0.range(of: "\"value\":")!.upperBound...]) } }

    func testOscsendIntoListenEqualsTheReplayOfItsRecording() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-cli-osc-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let maps = ["accel.x cc=11 smooth=20 speed=none", "quat.w cc=12 smooth=0", "roll cc=13 smooth=0"]
        let senderMaps = [
            "quat.w cc=14 smooth=0 sender=zigsim@127.0.0.1/dev1", "roll cc=15 smooth=0 sender=127.0.0.1",
            "roll cc=16 smooth=0 sender=zigsim"
        ]
        let l = try CLI.Running(
            ["listen", "--bind", "127.0.0.1", "--rest-after", "30", "--no-tcp", "--osc", "0", "--record", dir]
                + (maps + senderMaps).flatMap { ["--map", $0] })
        let port = try XCTUnwrap(l.waitForStderr(#"listening on osc\.udp://127\.0\.0\.1:(\d+)"#))
        // GyrOSC's attitude and acceleration, ZIG SIM's quaternion every fifth tick, an unknown address
        for i in 0..<25 {
            let x = sin(Double(i) / 4)
            try oscsend(port, ["/gyrosc/accel", "fff", "\(x)", "0", "-1"])
            try oscsend(port, ["/gyrosc/gyro", "fff", "0", "\(x / 2)", "0"])
            if i % 5 == 0 { try oscsend(port, ["/ZIGSIM/dev1/quaternion", "ffff", "0", "0", "0", "\(x)"]) }
            if i == 3 { try oscsend(port, ["/not/used", "s", "hello"]) }
        }
        try Loopback.awaitUDPRead(Int(port)!)
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        let live = CLI.lines(r.stdout)
        XCTAssertTrue(r.stderr.contains("OSC packets 56, messages 56, frames 55, refused as malformed 0"), r.stderr)
        XCTAssertTrue(r.stderr.contains("no built-in meaning or osc: mapping 1"), r.stderr)

        // one recording per sender (app and device), each replays to that sender's controllers
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(files.count, 2, "\(files)")
        let gyrosc = try XCTUnwrap(files.first { $0.contains("gyrosc") }),
            zig = try XCTUnwrap(files.first { $0.contains("zigsim") })
        func replay(_ f: String) throws -> [String] {
            let rp = try CLI.run(["replay", "\(dir)/\(f)", "--fast", "-q"] + maps.flatMap { ["--map", $0] })
            XCTAssertEqual(rp.status, 0, rp.stderr)
            return CLI.lines(rp.stdout)
        }
        let g = try replay(gyrosc), z = try replay(zig)
        for (n, rep) in [(11, g), (13, g), (12, z)] {
            let a = cc(live, n), b = cc(rep, n)
            XCTAssertGreaterThan(a.count, 3, "cc \(n)")
            // the last line is the rest value at the end of the run: its time is the run's, not the sender's
            XCTAssertEqual(Array(a.dropLast()), Array(b.dropLast()), "cc \(n)")
            XCTAssertEqual(values([a.last!]), values([b.last!]), "cc \(n)")
        }
        XCTAssertEqual(values(cc(z, 11)), ["64}"], "ZIG SIM sent no accelerometer: only the rest value")
        XCTAssertEqual(values(cc(g, 12)), ["64}"], "GyrOSC sent no quaternion: only the rest value")
        // sender= selects by name, by address (as before) and by app
        XCTAssertEqual(values(cc(live, 14)), values(cc(live, 12)))
        XCTAssertEqual(values(cc(live, 15)), values(cc(live, 13)))
        XCTAssertEqual(
            values(cc(live, 16)), ["64}"], "roll comes from GyrOSC, not ZIG SIM: only the rest value at the end")
    }

    func testDetectListsEachNewAddressOnceThenItsValues() throws {
        let l = try CLI.Running(["listen", "--bind", "127.0.0.1", "--no-tcp", "--osc", "0", "--detect"])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on osc\.udp://127\.0\.0\.1:(\d+)"#))
        try oscsend(port, ["/gyrosc/rrate", "fff", "0.5", "0", "0"])
        try oscsend(port, ["/my/fader", "if", "3", "0.25"])
        try l.awaitStdout("the fader's first value") { $0.contains("/my/fader 3 0.25") }
        // a duration, not a condition: --detect prints an address's values at most 5 times a
        // second, so the next value shows only when it comes more than 200 ms after this one
        usleep(300_000)
        try oscsend(port, ["/my/fader", "if", "3", "0.75"])
        try l.awaitStdout("the fader's second value") { $0.contains("/my/fader 3 0.75") }
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = CLI.lines(r.stdout)
        XCTAssertEqual(out.filter { $0.hasPrefix("new address") }.count, 2, r.stdout)
        XCTAssertTrue(
            out.contains {
                $0.hasPrefix("new address /gyrosc/rrate ,fff from gyrosc@127.0.0.1: gyrosc rate.x rate.y rate.z")
            }, r.stdout)
        XCTAssertTrue(
            out.contains {
                $0.hasPrefix(
                    "new address /my/fader ,if from gyrosc@127.0.0.1: use as osc:/my/fader ... osc:/my/fader[1]")
            }, r.stdout)
        XCTAssertTrue(out.contains("/my/fader 3 0.25"), r.stdout)
        XCTAssertTrue(out.contains("/my/fader 3 0.75"), r.stdout)
        XCTAssertFalse(r.stdout.contains("\"cc\""), "no MIDI in detect mode")
    }
}
