import Foundation
import TestSupport
import XCTest

/// The RTP-MIDI session announced over mDNS through a real Avahi daemon (tools/mdns-up starts
/// the system D-Bus and avahi-daemon where nothing did), found by avahi-browse; and without a
/// daemon, one clear line and a session that still accepts invitations by address.
final class RTPMDNSCLITests: XCTestCase {
    func run(_ program: String, _ args: [String], timeout: Double = 10) throws -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        let o = Pipe(), e = Pipe()
        p.standardOutput = o
        p.standardError = e
        try p.run()
        Children.stopAtTestEnd(p)
        if (try? waitUntil("\(program) to exit", timeout: timeout, { !p.isRunning })) == nil { p.terminate() }
        let out = String(decoding: o.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: e.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, out, err)
    }

    func testAvahiBrowseResolvesTheSession() throws {
        let (status, _, err) = try run(CLI.repo.appendingPathComponent("tools/mdns-up").path, [])
        XCTAssertEqual(status, 0, "tools/mdns-up could not start D-Bus and avahi-daemon: \(err)")
        let port = Loopback.freeUDPPortPair()
        let name = "SensorWah test \(getpid())"
        let s = try CLI.Running([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--loop", "--midi", "rtp",
            "--rtp-port", "\(port)", "--rtp-name", name
        ])
        XCTAssertNotNil(s.waitForStderr("announced as '\(name)'", seconds: 10), s.stderrSoFar)
        // -r resolves, -t stops when the cache is read, -p one ';'-separated line per record
        func browse() throws -> [String] {
            let (_, out, _) = try run("/usr/bin/avahi-browse", ["-rtp", "_apple-midi._udp"])
            return CLI.lines(out).filter {
                $0.hasPrefix("=;") && $0.contains(name.replacingOccurrences(of: " ", with: "\\032"))
            }
        }
        let resolved =
            (try? waitUntil("avahi-browse to resolve '\(name)'", poll: 0.3, observe: browse) { !$0.isEmpty }) ?? []
        XCTAssertFalse(resolved.isEmpty, "avahi-browse did not find '\(name)'")
        for line in resolved {
            let f = line.split(separator: ";", omittingEmptySubsequences: false)
            // =;IF;PROTO;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;TXT
            XCTAssertEqual(f.count >= 9 ? String(f[8]) : "", "\(port)", line)
        }
        s.interrupt()
        let r = s.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        // withdrawn at exit (the daemons' caches drop it once the goodbye is seen)
        let gone =
            (try? waitUntil(
                "'\(name)' withdrawn", timeout: 5, poll: 0.3,
                {
                    !(try run("/usr/bin/avahi-browse", ["-tp", "_apple-midi._udp"]).1).contains(
                        name.replacingOccurrences(of: " ", with: "\\032") + ";_apple-midi")
                })) != nil
        XCTAssertTrue(gone, "still announced 5 s after exit")
    }

    func testWithoutADaemonOneLineAndInvitationsByAddressStillWork() throws {
        let port = Loopback.freeUDPPortPair(), theirs = Loopback.freeUDPPortPair()
        // a system bus that is not there: the client library cannot reach any daemon
        let s = try CLI.Running(
            [
                "replay", CLI.recording("wrist-wah-phone.csv"), "--speed", "4", "--midi", "rtp", "--midi", "stdout",
                "--rtp-port", "\(port)", "--rtp-wait", "10"
            ],
            env: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/sensorwah-test-bus"])
        let initiator = try RTPMIDICLITests.Peer([
            "initiate", "--target", "127.0.0.1:\(port)", "--port", "\(theirs)", "--bye"
        ])
        let r = s.wait(timeout: 60)
        XCTAssertTrue(initiator.waitFor({ $0.contains { $0["handshake"] != nil } }, seconds: 20))
        initiator.stop()
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = CLI.lines(r.stderr).filter { $0.contains("mDNS") }
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(lines.first?.contains("no Avahi daemon to announce the session") == true, r.stderr)
        XCTAssertTrue(lines.first?.contains("peers invite it by address") == true, r.stderr)
        let result = initiator.lines.first { $0["handshake"] != nil }!
        XCTAssertEqual((result["handshake"] as! [[String: Any]]).map { $0["code"] as! String }, ["OK", "OK"])
        let events = (result["events"] as! [[Int]]).map { Array($0.dropFirst()) }
        XCTAssertEqual(events, RTPMIDICLITests.midiBytes(r.stdout))
    }
}
