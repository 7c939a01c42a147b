import Foundation
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

    /// Waits until the API's state satisfies `ok`; the last state.
    func waitState(_ rig: Rig, seconds: Double = 10, _ ok: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try api(rig, "GET", "state").json
            if ok(last) { return last }
            usleep(100_000)
        }
        return last
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
        XCTAssertTrue(rig.listen.stderrSoFar.contains("does not exist yet"), rig.listen.stderrSoFar)

        // a mark with nothing being taught, a bad name: told, nothing written
        XCTAssertEqual(try api(rig, "POST", "teach", ["name": "two words"]).code, 400)
        XCTAssertEqual(try api(rig, "POST", "teach/mark").code, 202)
        XCTAssertTrue(Self.message(try waitState(rig) { Self.message($0).contains("nothing is being taught") }).contains("nothing is being taught"))
        // gesture:swing cannot be mapped before it is taught
        let early = try api(rig, "POST", "mappings", ["text": "gesture:swing note=60"])
        XCTAssertEqual(early.code, 400)
        XCTAssertTrue("\(early.json)".contains("gesture:swing: \(model) does not exist yet: teach it first"), "\(early.json)")

        XCTAssertEqual(try api(rig, "POST", "teach", ["name": "swing"]).code, 202)
        let teaching = try waitState(rig) { $0["teach"] as? String == "swing" }
        XCTAssertEqual(teaching["teach"] as? String, "swing", "\(teaching)")
        XCTAssertTrue(Self.message(teaching).contains("press space during or just after each one"), Self.message(teaching))

        let teach = TeachCLITests.take(hz: 100, seed: 42)
        let csv = teach.csv.split(separator: "\n")
        let phone = FaultTests.RawSender(port: rig.tcp, from: "127.0.0.1")
        var next = 0
        let swings = teach.events.filter { $0.kind == "swing" }.prefix(3)
        for s in swings {
            // the phone's lines up to 0.3 s after the swing ends, then the press
            let part = Self.takeLines(csv, from: next, until: s.start + s.duration + 0.3)
            XCTAssertTrue(phone.send(part.text))
            next = part.next
            usleep(300_000)
            XCTAssertEqual(try api(rig, "POST", "teach/mark").code, 202)
            usleep(200_000)
        }
        // a little stillness after the last swing (the look after a press), then Finish
        let tail = Self.takeLines(csv, from: next, until: swings.last!.start + swings.last!.duration + 1.0)
        XCTAssertTrue(phone.send(tail.text))
        usleep(300_000)
        XCTAssertEqual(try api(rig, "POST", "teach/finish").code, 202)
        let done = try waitState(rig) { Self.message($0).contains("written to") }
        phone.close()
        XCTAssertTrue(Self.message(done).contains("teach swing: 3 of 3 taught, written to \(model); gesture:swing now has 3 examples"), Self.message(done))
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
        usleep(500_000)
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
}
