import Foundation
import TestSupport
import XCTest

/// `--osc-out` with real OSC peers: liblo's `oscdump` (Debian: liblo-tools) over UDP, and
/// python-osc (PyPI, .venv-tools/) over UDP and over TCP with SLIP framing.
final class OSCOutCLITests: XCTestCase {
    static let args = [
        "replay", CLI.recording("wrist-wah-phone.csv"), "--speed", "8", "--midi", "stdout",
        "--map", "tilt.x zero cc=11", "--map", "flick note=60", "--map", "accel.y bend", "--map", "accel.z cc14=1 ch=2"
    ]

    struct Expected: Equatable { var address: String; var value: Double }

    /// What each stdout JSON line becomes in OSC: 0-1 values (bend -1...1), or the raw integers.
    static func expected(_ stdout: String, raw: Bool) -> [Expected] {
        CLI.lines(stdout).compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let type = o["type"] as? String, let ch = o["ch"] as? Int
            else { return nil }
            switch type {
            case "cc":
                let v = o["value"] as! Int;
                return Expected(
                    address: "/sensorwah/cc/\(ch)/\(o["cc"] as! Int)", value: raw ? Double(v) : Double(v) / 127)
            case "cc14":
                let v = o["value"] as! Int;
                return Expected(
                    address: "/sensorwah/cc14/\(ch)/\(o["cc"] as! Int)", value: raw ? Double(v) : Double(v) / 16383)
            case "pitchbend":
                let v = o["value"] as! Int;
                return Expected(
                    address: "/sensorwah/bend/\(ch)", value: raw ? Double(v) : max(-1, Double(v - 8192) / 8191))
            case "note_on":
                let v = o["velocity"] as! Int;
                return Expected(
                    address: "/sensorwah/note/\(ch)/\(o["note"] as! Int)", value: raw ? Double(v) : Double(v) / 127)
            case "note_off": return Expected(address: "/sensorwah/note/\(ch)/\(o["note"] as! Int)", value: 0)
            default: return nil
            }
        }
    }

    func testOscdumpReceivesEveryEventStdoutPrints() throws {
        let port = Loopback.freePort(.udp)
        let dump = try RTPMIDICLITests.Peer.custom("/usr/bin/oscdump", ["-L", "\(port)"])
        try waitUntil("oscdump bound to UDP \(port)") { Loopback.isBound(port, .udp) }
        let r = try CLI.run(Self.args + ["--osc-out", "127.0.0.1:\(port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let want = Self.expected(r.stdout, raw: false)
        _ = dump.waitFor({ _ in CLI.lines(dump.text).count >= want.count }, seconds: 10)
        dump.stop()
        let text = dump.text
        // oscdump: "[TIMETAG ]ADDRESS f VALUE"
        let got: [Expected] = CLI.lines(text).compactMap { line in
            let parts = line.split(separator: " ")
            guard let a = parts.firstIndex(where: { $0.hasPrefix("/") }), parts.count >= a + 3, parts[a + 1] == "f"
            else { return nil }
            return Expected(address: String(parts[a]), value: Double(parts[a + 2])!)
        }
        XCTAssertGreaterThan(want.count, 1000)
        XCTAssertEqual(got.count, want.count, "oscdump received another number of messages")
        for (g, w) in zip(got, want) {
            XCTAssertEqual(g.address, w.address)
            XCTAssertEqual(g.value, w.value, accuracy: 1e-5, g.address)
            if g.address != w.address || abs(g.value - w.value) > 1e-5 { break }
        }
        for kind in ["/sensorwah/cc/1/11", "/sensorwah/bend/1", "/sensorwah/note/1/60", "/sensorwah/cc14/2/1"] {
            XCTAssertTrue(got.contains { $0.address == kind }, "no \(kind)")
        }
        // several events due together travel in one bundle with one time tag (oscdump prints it first)
        let tagged = CLI.lines(text).filter {
            $0.range(of: #"^[0-9a-f]{8}\.[0-9a-f]{8} /"#, options: .regularExpression) != nil
        }
        XCTAssertGreaterThan(tagged.count, want.count / 2, "events due together were not bundled")
    }

    /// python-osc over UDP and over TCP (SLIP, OSC 1.1) at once, raw values; bundles' time
    /// tags are the wall clock at the send.
    func testPythonOscOverUDPAndTCPWithRawValues() throws {
        let python = RTPMIDICLITests.python
        let script = CLI.repo.appendingPathComponent("Tests/Tools/osc-receiver.py").path
        let udpPort = Loopback.freePort(.udp), tcpPort = Loopback.freePort(.tcp)
        let udp = try RTPMIDICLITests.Peer.custom(python, [script, "--udp", "\(udpPort)"])
        let tcp = try RTPMIDICLITests.Peer.custom(python, [script, "--tcp", "\(tcpPort)"])
        defer { udp.stop(); tcp.stop() }
        for p in [udp, tcp] { XCTAssertTrue(p.waitFor({ $0.contains { $0["listening"] != nil } }, seconds: 10)) }
        let before = Date().timeIntervalSince1970
        let r = try CLI.run(
            Self.args + ["--osc-out", "127.0.0.1:\(udpPort)", "--osc-out", "tcp:127.0.0.1:\(tcpPort)", "--osc-out-raw"])
        let after = Date().timeIntervalSince1970
        XCTAssertEqual(r.status, 0, r.stderr)
        let want = Self.expected(r.stdout, raw: true)
        for (p, what) in [(udp, "UDP"), (tcp, "TCP")] {
            XCTAssertTrue(
                p.waitFor({ $0.filter { $0["address"] != nil }.count >= want.count }, seconds: 10),
                "\(what): not everything arrived")
            let msgs = p.lines.filter { $0["address"] != nil }
            let got = msgs.map { Expected(address: $0["address"] as! String, value: Double(($0["args"] as! [Int])[0])) }
            XCTAssertEqual(got, want, "\(what): another stream than stdout's")
            let tags = msgs.compactMap { $0["bundle"] as? Double }
            XCTAssertGreaterThan(tags.count, want.count / 2, "\(what): events due together were not bundled")
            XCTAssertTrue(
                tags.allSatisfy { $0 >= before - 1 && $0 <= after + 1 }, "\(what): a time tag off the wall clock")
        }
    }

    func testBadTargetsAreRefusedWithTheirReason() throws {
        let r = try CLI.run(["replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--osc-out", "localhost"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("--osc-out 'localhost': expected HOST:PORT"), r.stderr)
        let r2 = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--midi", "rtp", "--rtp-connect", "mac:99999"
        ])
        XCTAssertNotEqual(r2.status, 0)
        XCTAssertTrue(r2.stderr.contains("'99999' is not a port number 1-65535"), r2.stderr)
    }
    /// `--osc-out-sources` on a replay: one time-tagged bundle per frame (tilt and gravity
    /// direction), and every gesture as it fires with its strength, as liblo's `oscdump` prints
    /// them; the gestures are exactly the ones mapped to notes on stdout.
    func testSourcesCarryEachFramesTiltAndEveryGesture() throws {
        let port = Loopback.freePort(.udp)
        let dump = try RTPMIDICLITests.Peer.custom("/usr/bin/oscdump", ["-L", "\(port)"])
        defer { dump.stop() }
        try waitUntil("oscdump bound to UDP \(port)") { Loopback.isBound(port, .udp) }
        let r = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--speed", "4", "--midi", "stdout",
            "--map", "flick note=60", "--map", "shake note=61", "--map", "tap note=62",
            "--osc-out", "127.0.0.1:\(port)", "--osc-out-sources"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let frames = try XCTUnwrap(r.stderr.firstCapture(#"frames used (\d+)"#).flatMap { Int($0) }, r.stderr)
        let base = "/sensorwah/source/wrist-wah-phone.csv/"
        // oscdump: "[TIMETAG ]ADDRESS TYPES ARG..."; a bundle's messages carry its time tag
        struct Line { var tagged: Bool; var address: String; var types: String; var args: [Double] }
        func parsed() -> [Line] {
            CLI.lines(dump.text).compactMap { line in
                let p = line.split(separator: " ").map(String.init)
                guard let a = p.firstIndex(where: { $0.hasPrefix("/") }), p.count >= a + 2 else { return nil }
                return Line(
                    tagged: a == 1, address: p[a], types: p[a + 1], args: p[(a + 2)...].compactMap { Double($0) })
            }
        }
        _ = try? waitUntil("\(frames) tilt messages at oscdump", poll: 0.05, observe: parsed) {
            $0.filter { $0.address == base + "tilt" }.count >= frames
        }
        let lines = parsed()
        let sources = lines.filter { $0.address.hasPrefix(base) }
        func args(_ name: String) -> [[Double]] { sources.filter { $0.address == base + name }.map(\.args) }
        let tilt = args("tilt"), gravity = args("gravity")
        XCTAssertEqual(tilt.count, frames, "one tilt message per frame")
        XCTAssertEqual(gravity.count, frames, "one gravity message per frame")
        for t in tilt { XCTAssertTrue(t.count == 2 && abs(t[0]) <= 90 && abs(t[1]) <= 180, "tilt \(t)") }
        for g in gravity {
            XCTAssertEqual(g.count, 3);
            XCTAssertEqual((g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).squareRoot(), 1, accuracy: 1e-3)
        }
        XCTAssertTrue(sources.allSatisfy { $0.tagged }, "sources travel in time-tagged bundles")
        XCTAssertTrue(
            sources.allSatisfy { $0.types == String(repeating: "f", count: $0.args.count) }, "float arguments")
        // each gesture: as many as its mapping's notes on stdout, each with a strength above 0
        let notes = CLI.lines(r.stdout).filter { $0.contains("note_on") }
        var fired = 0
        for (name, note) in [("flick", 60), ("shake", 61), ("tap", 62)] {
            let g = args(name)
            XCTAssertEqual(g.count, notes.filter { $0.contains("\"note\":\(note),") }.count, name)
            for a in g { XCTAssertTrue(a.count == 1 && a[0] > 0, "\(name) \(a)") }
            fired += g.count
        }
        XCTAssertGreaterThan(fired, 2, "the recording's gestures did not arrive")
        XCTAssertEqual(
            lines.filter { $0.address.hasPrefix("/sensorwah/note/") }.count, notes.count * 2,
            "the mapped notes (on and off)")
    }

    /// The same from `listen` (the frames' tap on the network thread): a `stream` sender's name
    /// (its dialect and address, "sensorlog@127.0.0.1") in the address.
    func testSourcesFromAListenedSender() throws {
        let port = Loopback.freePort(.udp)
        let peer = try RTPMIDICLITests.Peer.custom(
            RTPMIDICLITests.python,
            [CLI.repo.appendingPathComponent("Tests/Tools/osc-receiver.py").path, "--udp", "\(port)"])
        defer { peer.stop() }
        XCTAssertTrue(peer.waitFor({ $0.contains { $0["listening"] != nil } }, seconds: 10))
        let tcpPort = Loopback.freePort(.tcp)
        let listen = try CLI.Running([
            "listen", "--port", "\(tcpPort)", "--no-monitor", "--midi", "stdout",
            "--map", "tilt.x cc=11", "--osc-out", "127.0.0.1:\(port)", "--osc-out-sources"
        ])
        defer { listen.interrupt(); _ = listen.wait(timeout: 20) }
        XCTAssertNotNil(listen.waitForStderr("listening on tcp://[^ ]*:\(tcpPort)", seconds: 20), listen.stderrSoFar)
        let stream = try CLI.run([
            "stream", CLI.recording("wrist-wah-phone.csv"), "--to", "127.0.0.1:\(tcpPort)", "--speed", "8"
        ])
        XCTAssertEqual(stream.status, 0, stream.stderr)
        XCTAssertTrue(
            peer.waitFor(
                { $0.filter { ($0["address"] as? String)?.hasSuffix("/tilt") == true }.count >= 1000 }, seconds: 10),
            "tilt messages from the listener did not arrive")
        let tilts = peer.lines.compactMap { $0["address"] as? String }.filter { $0.hasSuffix("/tilt") }
        XCTAssertTrue(tilts.allSatisfy { $0 == "/sensorwah/source/sensorlog@127.0.0.1/tilt" }, tilts.first ?? "")
        XCTAssertTrue(
            peer.lines.contains { ($0["address"] as? String) == "/sensorwah/cc/1/11" }, "the mapped controller")
    }

    func testSourcesWithoutAUDPTargetAreRefused() throws {
        let r = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--osc-out", "tcp:127.0.0.1:9000",
            "--osc-out-sources"
        ])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("--osc-out-sources: needs an --osc-out HOST:PORT over UDP"), r.stderr)
    }
}
