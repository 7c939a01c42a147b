import Foundation
import TestSupport
import XCTest

/// Teaching while `listen` runs (issue #29's live mode): a phone's lines arrive over real TCP
/// on loopback, the control page's API (curl over HTTPS) or the live view's keys (a real
/// terminal in tmux) mark the movements, and what is taught is written to the `--gestures`
/// file and recognised in the stream at once, with no restart.
/// (An extension of `ControlCLITests`: its rig, data folder and API calls.)
extension ControlCLITests {
    /// The take's lines (header first) up to sensor time `until` (seconds from its first row),
    /// from line `from`; returns them and where the next one starts.
    static func takeLines(_ csv: [Substring], from: Int, until: Double) -> (text: String, next: Int) {
        var i = from, out = ""
        while i < csv.count {
            let cols = csv[i].split(separator: ",", maxSplits: 2)
            if i > 0, cols.count > 1, let t = Double(cols[1]), t - 5000 > until { break }
            out += csv[i] + "\n"
            i += 1
        }
        return (out, i)
    }

    static func message(_ s: [String: Any]) -> String { (s["message"] as? [String: Any])?["text"] as? String ?? "" }

    /// A performer starts `listen --web --gestures moves.yaml` with no such file, chooses Teach
    /// "swing" on the control page, swings three times pressing Mark just after each, and
    /// presses Finish: the file is written with three examples, `gesture:swing` can be mapped
    /// at once, and the next take's six swings play six notes (one each, none on the chops and
    /// wrist turns) with no restart. Errors on the way say what to do.
    func testTeachAGestureThroughTheControlPageAndPlayItAtOnce() throws {
        let model = data + "/moves.yaml"
        let rig = try start(["--gestures", model, "--map", "accel.x cc=11"])
        // said on the log, which may come after the addresses the rig waited for
        XCTAssertNoThrow(try rig.listen.awaitStderr("does not exist yet"))

        // a mark with nothing being taught, a bad name: told, nothing written
        XCTAssertEqual(try api(rig, "POST", "teach", ["name": "two words"]).code, 400)
        XCTAssertEqual(try api(rig, "POST", "teach/mark").code, 202)
        XCTAssertTrue(
            Self.message(try waitForState(rig) { Self.message($0).contains("nothing is being taught") }).contains(
                "nothing is being taught"))
        // gesture:swing cannot be mapped before it is taught
        let early = try api(rig, "POST", "mappings", ["text": "gesture:swing note=60"])
        XCTAssertEqual(early.code, 400)
        XCTAssertTrue(
            (early.json["error"] as? String ?? "").contains("gesture:swing: no gesture 'swing' (it has none)"),
            "\(early.json)")

        XCTAssertEqual(try api(rig, "POST", "teach", ["name": "swing"]).code, 202)
        let teaching = try waitForState(rig) { $0["teach"] as? String == "swing" }
        XCTAssertEqual(teaching["teach"] as? String, "swing", "\(teaching)")
        XCTAssertTrue(
            Self.message(teaching).contains("press space during or just after each one"), Self.message(teaching))

        let teach = TeachCLITests.take(hz: 100, seed: 42)
        let csv = teach.csv.split(separator: "\n")
        let phone = try Loopback.Client(.tcp, to: rig.tcp, from: "127.0.0.1")
        var next = 0
        let swings = teach.events.filter { $0.kind == "swing" }.prefix(3)
        for (i, s) in swings.enumerated() {
            // the phone's lines up to 0.3 s after the swing ends, then the press
            let part = Self.takeLines(csv, from: next, until: s.start + s.duration + 0.3)
            XCTAssertTrue(phone.send(part.text))
            next = part.next
            // (a press is put at the last reading's time plus the time since it arrived: the
            // test's phone pauses here, so the press comes as soon as listen has read the lines)
            try phone.awaitReadByPeer()
            XCTAssertEqual(try api(rig, "POST", "teach/mark").code, 202)
            _ = try waitForState(rig) { Self.message($0).contains("teach swing: \(i + 1) marked") }
        }
        // a little stillness after the last swing (the look after a press), then Finish
        let tail = Self.takeLines(csv, from: next, until: swings.last!.start + swings.last!.duration + 1.0)
        XCTAssertTrue(phone.send(tail.text))
        try phone.awaitReadByPeer()
        XCTAssertEqual(try api(rig, "POST", "teach/finish").code, 202)
        let done = try waitForState(rig) { Self.message($0).contains("written to") }
        phone.close()
        XCTAssertTrue(
            Self.message(done).contains(
                "teach swing: 3 of 3 taught, written to \(model); gesture:swing now has 3 examples"), Self.message(done)
        )
        XCTAssertTrue(done["teach"] is NSNull, "\(done)")
        XCTAssertEqual((done["taught"] as? [String: Any])?["gestures"] as? [String], ["swing"], "\(done)")
        let file = try String(contentsOfFile: model, encoding: .utf8)
        XCTAssertEqual(file.components(separatedBy: "from: \"live ").count - 1, 3, file)
        // teach reads it back as any file
        let report = try CLI.run(["teach", model])
        XCTAssertTrue(report.stdout.contains("gesture:swing: 3 examples"), report.stdout)

        // map it now, and the next take plays
        let added = try api(rig, "POST", "mappings", ["text": "gesture:swing note=60"])
        XCTAssertEqual(added.code, 201, "\(added.json)")
        let other = TeachCLITests.take(hz: 100, seed: 9)
        let otherPath = data + "/other.csv"
        try other.csv.write(toFile: otherPath, atomically: true, encoding: .utf8)
        let s = try CLI.run(["stream", otherPath, "--to", "127.0.0.1:\(rig.tcp)", "--speed", "4"])
        XCTAssertEqual(s.status, 0, s.stderr)
        // the page's Gestures counts it under its name (once listen has read the whole take)
        let counted = try waitForState(rig) { ($0["gestures"] as? [String: Any])?["gesture:swing"] as? Int ?? 0 >= 6 }
        XCTAssertEqual(
            (counted["gestures"] as? [String: Any])?["gesture:swing"] as? Int, 6, "\(counted["gestures"] ?? "")")
        rig.listen.interrupt()
        let r = rig.listen.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        let ons = TeachCLITests.noteOns(r.stdout)[60] ?? []
        // the notes' times are the sender's sensor times from its first frame
        let sc = TeachCLITests.score(ons, other.events.filter { $0.kind == "swing" })
        print("ControlCLITests (teach): swing notes at \(ons) \(ons.count) \(sc)")
        XCTAssertEqual(ons.count, 6, "notes \(ons)")
        XCTAssertEqual(sc.hits, 6, "notes \(ons)")
        XCTAssertEqual(sc.falseAlarms, 0, "notes \(ons)")
    }

    /// The gestures file taught again while `listen` runs (here by `sensorwah teach` from
    /// another take) is reloaded at once: the page lists the new gesture, it can be mapped, and
    /// a file that breaks is reported with the running gestures kept.
    func testTheGesturesFileIsReloadedWhenItChanges() throws {
        let take = TeachCLITests.take(hz: 100, seed: 42)
        let takePath = data + "/teach.csv"
        try take.csv.write(toFile: takePath, atomically: true, encoding: .utf8)
        func marks(_ kind: String) throws -> String {
            let p = data + "/\(kind).txt"
            try take.events.filter { $0.kind == kind }.prefix(3).map {
                String(format: "%.2f \(kind)\n", $0.start + $0.duration / 2)
            }.joined()
                .write(toFile: p, atomically: true, encoding: .utf8)
            return p
        }
        let model = data + "/moves.yaml"
        XCTAssertEqual(try CLI.run(["teach", model, takePath, "--marks", try marks("swing")]).status, 0)
        let rig = try start(["--gestures", model, "--map", "gesture:swing note=60"])
        XCTAssertEqual(
            (try api(rig, "GET", "state").json["taught"] as? [String: Any])?["gestures"] as? [String], ["swing"])
        XCTAssertEqual(try api(rig, "POST", "mappings", ["text": "gesture:chop note=62"]).code, 400)
        XCTAssertEqual(try CLI.run(["teach", model, takePath, "--marks", try marks("chop")]).status, 0)
        let after = try waitForState(rig) {
            ($0["taught"] as? [String: Any])?["gestures"] as? [String] == ["swing", "chop"]
        }
        XCTAssertEqual((after["taught"] as? [String: Any])?["gestures"] as? [String], ["swing", "chop"], "\(after)")
        XCTAssertTrue(Self.message(after).contains("moves.yaml: reloaded, 2 gestures, 0 poses"), Self.message(after))
        XCTAssertEqual(try api(rig, "POST", "mappings", ["text": "gesture:chop note=62"]).code, 201)
        // a broken file: said, and the running gestures stay
        try "version: 1\ngestures:\n  - name: [oops\n".write(toFile: model, atomically: true, encoding: .utf8)
        try rig.listen.awaitStderr("moves.yaml:.*the running gestures are kept")
        let kept = try api(rig, "GET", "state").json
        XCTAssertEqual((kept["taught"] as? [String: Any])?["gestures"] as? [String], ["swing", "chop"], "\(kept)")
        rig.listen.interrupt()
        let r = rig.listen.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("moves.yaml:") && r.stderr.contains("the running gestures are kept"), r.stderr)
    }

}

/// Teaching with the live view's keys in a real terminal (tmux): `t`, a name, Enter, space at
/// each pose, Enter.
final class TeachKeysCLITests: XCTestCase {
    /// Two poses taught with the keys while a phone's lines arrive over TCP: `t wah=1 Enter`,
    /// the wrist rolled right, space, Enter; `t wah=0 Enter`, rolled left, space, Enter. The
    /// file then holds pose:wah with the two values at the two orientations; a bad name is
    /// refused on the screen; Esc drops a teach with nothing written.
    func testTeachPosesWithTheLiveViewsKeys() throws {
        guard MonitorCLITests.tmux != nil else {
            throw XCTSkip("tmux is not installed (tools/install-deps installs it)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-teachkeys-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let model = dir + "/poses.yaml", status = dir + "/status"
        let port = Loopback.freePort()
        let cmd =
            "'\(CLI.binary.path)' listen --bind 127.0.0.1 --port \(port) --gestures '\(model)' --monitor -q --midi stdout > /dev/null; echo $? > '\(status)'; sleep 30"
        let t = MonitorCLITests.Tmux()
        defer { t.run(["kill-server"]) }
        t.run(["new-session", "-d", "-s", "view", "-x", "160", "-y", "40", "-c", CLI.repo.path, cmd])
        XCTAssertTrue(t.waitFor("t teach").contains("t teach"), t.screen())

        // the phone: held rolled 40 degrees right for 3 s, turned, held 40 degrees left (100 Hz)
        var lines = [
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G),gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),gyroRotationY(rad/s),gyroRotationZ(rad/s)"
        ]
        let roll = 40.0 * .pi / 180
        for i in 0..<700 {
            let s = Double(i) / 100
            let u = min(max(s - 3, 0), 1)  // 3-4 s: from right to left
            let a = roll * (1 - 2 * (u * u * (3 - 2 * u)))
            let rate = s > 3 && s < 4 ? -2 * roll * 6 * u * (1 - u) : 0
            let ts = String(format: "%.6f", 5000 + s)
            lines.append("2026-01-01T10:00:00.000+00:00,\(ts),\(sin(a)),0.0,\(-cos(a)),\(ts),0.0,\(rate),0.0")
        }
        let phone = try Loopback.Client(.tcp, to: port, from: "127.0.0.1")
        defer { phone.close() }
        XCTAssertTrue(phone.send(lines[0...250].joined(separator: "\n") + "\n"))  // to 2.5 s

        // a name that is not one
        t.run(["send-keys", "-t", "view", "t"])
        XCTAssertTrue(t.waitFor("teach: type a gesture's NAME", seconds: 3).contains("teach: type"), t.screen())
        t.run(["send-keys", "-t", "view", "-l", "=5"])
        t.run(["send-keys", "-t", "view", "Enter"])
        XCTAssertTrue(t.waitFor("teach: '=5' is not a name", seconds: 3).contains("press t to try again"), t.screen())
        // Esc drops a teach
        t.run(["send-keys", "-t", "view", "t"]); t.run(["send-keys", "-t", "view", "-l", "wah=5"]);
        t.run(["send-keys", "-t", "view", "Enter"])
        XCTAssertTrue(t.waitFor("hold the pose still", seconds: 3).contains("teach pose wah = 5"), t.screen())
        t.run(["send-keys", "-t", "view", "Escape"])
        XCTAssertTrue(t.waitFor("dropped, nothing written", seconds: 3).contains("dropped"), t.screen())
        XCTAssertFalse(FileManager.default.fileExists(atPath: model))

        // wah=1 rolled right
        t.run(["send-keys", "-t", "view", "t"]); t.run(["send-keys", "-t", "view", "-l", "wah=1"]);
        t.run(["send-keys", "-t", "view", "Enter"])
        XCTAssertTrue(t.waitFor("teach pose wah = 1", seconds: 3).contains("teach pose wah = 1"), t.screen())
        XCTAssertTrue(phone.send(lines[251...260].joined(separator: "\n") + "\n"))
        try phone.awaitReadByPeer()
        t.run(["send-keys", "-t", "view", "Space"])
        XCTAssertTrue(t.waitFor("1 marked", seconds: 3).contains("1 marked"), t.screen())
        t.run(["send-keys", "-t", "view", "Enter"])
        XCTAssertTrue(t.waitFor("written to", seconds: 5).contains("pose:wah now has 1 pose"), t.screen())

        // wah=0 rolled left
        XCTAssertTrue(phone.send(lines[261...650].joined(separator: "\n") + "\n"))  // to 6.5 s
        t.run(["send-keys", "-t", "view", "t"]); t.run(["send-keys", "-t", "view", "-l", "wah=0"]);
        t.run(["send-keys", "-t", "view", "Enter"])
        XCTAssertTrue(t.waitFor("teach pose wah = 0", seconds: 3).contains("teach pose wah = 0"), t.screen())
        XCTAssertTrue(phone.send(lines[651...660].joined(separator: "\n") + "\n"))
        try phone.awaitReadByPeer()
        t.run(["send-keys", "-t", "view", "Space"])
        _ = t.waitFor("1 marked", seconds: 3)
        t.run(["send-keys", "-t", "view", "Enter"])
        XCTAssertTrue(t.waitFor("now has 2 poses", seconds: 5).contains("pose:wah now has 2 poses"), t.screen())

        let report = try CLI.run(["teach", model])
        XCTAssertEqual(report.status, 0, report.stderr)
        print("TeachKeysCLITests:\n\(report.stdout)")
        // the points: 1 rolled right (gravity along +x in this layout's sign), 0 rolled left
        let points = CLI.lines(report.stdout).filter { $0.contains(" at gravity (") }
        XCTAssertEqual(points.count, 2, report.stdout)
        let xs = points.compactMap { l -> (Double, Double)? in
            guard let v = Double(l.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]),
                let r = l.range(of: "gravity (")
            else { return nil }
            return (v, Double(l[r.upperBound...].split(separator: ",")[0]) ?? .nan)
        }
        XCTAssertEqual(xs.count, 2)
        if xs.count == 2 {
            XCTAssertEqual(xs[0].0, 1); XCTAssertEqual(xs[1].0, 0)
            XCTAssertEqual(abs(xs[0].1), sin(roll), accuracy: 0.1, report.stdout)
            XCTAssertEqual(abs(xs[1].1), sin(roll), accuracy: 0.1, report.stdout)
            XCTAssertLessThan(xs[0].1 * xs[1].1, 0, "the two poses are on either side: \(report.stdout)")
        }
        XCTAssertTrue(
            report.stdout.contains("from one before") || report.stdout.contains("° from the one before"), report.stdout)
        t.run(["send-keys", "-t", "view", "q"])
        XCTAssertEqual(try MonitorCLITests.awaitWritten(status), "0")
    }
}
