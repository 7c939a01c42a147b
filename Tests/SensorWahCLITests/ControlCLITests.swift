import Foundation
import TestSupport
import XCTest

/// The control page's API (`listen --web`: `/api/...`) over real HTTPS on loopback with curl, a
/// take streamed by `sensorwah stream` as a phone would; and the page itself in Debian's
/// Chromium, headless (Tests/Tools/control-page.py).
final class ControlCLITests: XCTestCase {
    static let driver = CLI.repo.appendingPathComponent("Tests/Tools/control-page.py").path

    var data: String!
    override func setUpWithError() throws {
        data =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "sw-control-\(getpid())-\(name.hashValue & 0xffff)"
            ).path
        try? FileManager.default.removeItem(atPath: data)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { if let d = data { try? FileManager.default.removeItem(atPath: d) } }

    struct Rig {
        var listen: CLI.Running
        var tcp: Int
        var web: Int
        var token: String
        var base: String { "https://127.0.0.1:\(web)" }
    }

    /// `listen --web` with a TCP input for `sensorwah stream`, both on free ports.
    func start(_ extra: [String]) throws -> Rig {
        let l = try CLI.Running(
            ["listen", "--web", "--web-port", "0", "--port", "0", "--midi", "stdout", "--rest-after", "0"] + extra,
            env: ["XDG_DATA_HOME": data])
        guard let web = l.waitForStderr(#"listening on https://[0-9.]+:(\d+)"#, seconds: 20).flatMap({ Int($0) }),
            let tcp = extra.contains("--no-tcp")
                ? 0 : l.waitForStderr(#"listening on tcp://[0-9.]+:(\d+)"#).flatMap({ Int($0) }),
            let token = l.waitForStderr(#"/control#([0-9a-f]{40})"#)
        else {
            l.interrupt(); _ = l.wait(timeout: 10)
            XCTFail("listen --web did not start: \(l.stderrSoFar)")
            throw XCTSkip("no server")
        }
        // stopped on every path: a test that fails half way (no Python venv, no browser) must
        // not leave `listen --web` running
        addTeardownBlock { l.stopIfRunning() }
        return Rig(listen: l, tcp: tcp, web: web, token: token)
    }

    /// One API call with curl: the HTTP status and the JSON answer.
    func api(_ rig: Rig, _ method: String, _ path: String, _ body: [String: Any]? = nil, token: String? = "") throws
        -> (code: Int, json: [String: Any])
    {
        var auth = ""
        let t = token == "" ? rig.token : token
        if let t { auth = "-H 'Authorization: Bearer \(t)'" }
        var send = ""
        if let body {
            let file = data + "/body.json"
            try JSONSerialization.data(withJSONObject: body).write(to: URL(fileURLWithPath: file))
            send = "-H 'Content-Type: application/json' --data-binary @\(file)"
        }
        let r = try WebCLITests.shell(
            "curl -sk --max-time 10 -X \(method) \(auth) \(send) -w '\\n%{http_code}' \(rig.base)/api/\(path)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let code = Int(lines.last ?? "") ?? 0
        let json =
            (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8)))
            as? [String: Any] ?? [:]
        return (code, json)
    }

    func mappings(_ state: [String: Any]) -> [[String: Any]] { state["mappings"] as? [[String: Any]] ?? [] }

    /// `sensorwah stream` playing the bundled take to the listener, looping, in real time.
    func stream(_ rig: Rig) throws -> CLI.Running {
        try CLI.Running(["stream", CLI.recording("wrist-wah-phone.csv"), "--to", "127.0.0.1:\(rig.tcp)", "--loop"])
    }

    /// Stops the phone, then listen (which must exit cleanly); listen's output.
    func stop(_ rig: Rig, _ phone: CLI.Running, file: StaticString = #filePath, line: UInt = #line) -> CLI.Result {
        phone.interrupt(); _ = phone.wait(timeout: 10)
        rig.listen.interrupt()
        let r = rig.listen.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return r
    }

    /// The CC messages on stdout, in order: (t, cc, value).
    static func ccs(_ stdout: String) -> [(t: Double, cc: Int, v: Int)] {
        CLI.lines(stdout).compactMap { l in
            guard let o = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any],
                o["type"] as? String == "cc", let cc = o["cc"] as? Int, let t = o["t"] as? Double,
                let v = o["value"] as? Int
            else { return nil }
            return (t, cc, v)
        }
    }

    /// Waits until `GET /api/state` satisfies `ok` (`what` says what that is); the state.
    func waitForState(
        _ rig: Rig, _ what: String = "the awaited state", seconds: Double = 10,
        _ ok: ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        try waitUntil(
            "GET /api/state to show \(what)", timeout: seconds, poll: 0.2,
            observe: { try api(rig, "GET", "state") }
        ) { $0.code == 200 && ok($0.json) }.json
    }

    /// The token: 401 without it or with a wrong one (nothing changes), kept 0600 in the data
    /// folder and the same at the next start.
    func testEveryCallNeedsTheToken() throws {
        let rig = try start(["--no-tcp", "--map", "accel.x cc=11"])
        defer { rig.listen.interrupt(); _ = rig.listen.wait(timeout: 20) }
        XCTAssertEqual(try api(rig, "GET", "state", token: nil).code, 401)
        XCTAssertEqual(try api(rig, "GET", "state", token: String(repeating: "0", count: 40)).code, 401)
        let refused = try api(rig, "PUT", "mappings/1", ["text": "accel.y cc=12"], token: "wrong")
        XCTAssertEqual(refused.code, 401)
        XCTAssertTrue((refused.json["error"] as? String ?? "").contains("token"), "\(refused.json)")
        XCTAssertEqual(try api(rig, "POST", "mappings", ["text": "accel.y cc=12"], token: nil).code, 401)
        let state = try api(rig, "GET", "state")
        XCTAssertEqual(state.code, 200)
        XCTAssertEqual(mappings(state.json).map { $0["text"] as? String }, ["accel.x cc=11"], "nothing changed")
        // the live socket too: no token, no upgrade
        let ws = try WebCLITests.shell(
            "curl -sk --max-time 5 -o /dev/null -w '%{http_code}' -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \(rig.base)/api/live"
        ).stdout
        XCTAssertEqual(ws, "401")
        let upgrade =
            "-H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='"
        let foreign = try WebCLITests.shell(
            "curl -sk --max-time 5 -o /dev/null -w '%{http_code}' \(upgrade) -H 'Origin: https://example.com' -H 'Sec-WebSocket-Protocol: sensorwah-control, sensorwah-token.\(rig.token)' \(rig.base)/api/live"
        ).stdout
        XCTAssertEqual(foreign, "401", "another site's page gets no live state, token or not")
        let open = try WebCLITests.shell(
            "curl -sk --max-time 2 -o /dev/null -w '%{http_code}' \(upgrade) -H 'Sec-WebSocket-Protocol: sensorwah-control, sensorwah-token.\(rig.token)' \(rig.base)/api/live"
        ).stdout
        XCTAssertEqual(open, "101", "with the token the socket opens")
        // a state-changing GET does not exist
        XCTAssertEqual(try api(rig, "GET", "save").code, 405)
        let path = data + "/sensorwah/control-token"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(
            try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), rig.token
        )
        // the page itself carries no secret
        let page = try WebCLITests.shell("curl -sk \(rig.base)/control").stdout
        XCTAssertTrue(page.contains("SensorWah control"))
        XCTAssertFalse(page.contains(rig.token))
    }

    /// The state follows a streamed take; a mapping replaced through the API takes over the MIDI
    /// stream at once and is what the state reports; a bad one gets 400 with the command line's
    /// message and changes nothing; add and delete.
    func testTheAPIChangesTheRunningRig() throws {
        let rig = try start(["--map", "accel.x cc=11 smooth=0"])
        let phone = try stream(rig)
        defer { phone.interrupt(); _ = phone.wait(timeout: 10) }
        let moving = try waitForState(rig) { s in
            let senders = s["senders"] as? [[String: Any]] ?? []
            return (senders.first?["frames"] as? Int ?? 0) > 150 && (senders.first?["rate"] as? Double ?? 0) > 50
        }
        let sender = try XCTUnwrap((moving["senders"] as? [[String: Any]])?.first)
        XCTAssertTrue((sender["name"] as? String ?? "").hasPrefix("sensorlog@127.0.0.1"), "\(sender)")
        XCTAssertEqual(sender["rate"] as? Double ?? 0, 100, accuracy: 15, "the take is 100 Hz")
        XCTAssertNotNil(sender["pitch"] as? Double, "the tilt")
        let first = try XCTUnwrap(mappings(moving).first)
        XCTAssertEqual(first["index"] as? Int, 1)
        XCTAssertEqual(first["text"] as? String, "accel.x cc=11 smooth=0")
        XCTAssertNotNil(first["raw"] as? Double)
        XCTAssertTrue((0...127).contains(first["value"] as? Int ?? -1))

        // sources watched besides the mappings: each sender's last value
        let watched = try api(rig, "GET", "state?sources=tilt.x,accel.y")
        XCTAssertEqual(watched.code, 200, "\(watched.json)")
        let values = try XCTUnwrap(
            (watched.json["sources"] as? [String: Any])?[sender["name"] as? String ?? ""] as? [String: Any],
            "\(watched.json)")
        XCTAssertNotNil(values["tilt.x"] as? Double, "\(values)")
        XCTAssertNotNil(values["accel.y"] as? Double, "\(values)")
        let badSource = try api(rig, "GET", "state?sources=tilt.q")
        XCTAssertEqual(badSource.code, 400)
        XCTAssertTrue((badSource.json["error"] as? String ?? "").contains("tilt.q"), "\(badSource.json)")

        let replaced = try api(rig, "PUT", "mappings/1", ["text": "accel.x cc=12 smooth=0"])
        XCTAssertEqual(replaced.code, 200, "\(replaced.json)")
        XCTAssertEqual(mappings(replaced.json).first?["text"] as? String, "accel.x cc=12 smooth=0")
        try rig.listen.awaitStdout("more than 50 CC 12 messages") { Self.ccs($0).filter { $0.cc == 12 }.count > 50 }
        // the command line's message for the same mistake
        let cli = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--map", "accel.x cc=300", "--midi", "stdout"
        ])
        let bad = try api(rig, "PUT", "mappings/1", ["text": "accel.x cc=300"])
        XCTAssertEqual(bad.code, 400)
        let message = try XCTUnwrap(bad.json["error"] as? String)
        XCTAssertTrue(cli.stderr.contains(message), "API: \(message)\nCLI: \(cli.stderr)")
        XCTAssertEqual(
            mappings(try api(rig, "GET", "state").json).map { $0["text"] as? String }, ["accel.x cc=12 smooth=0"])
        XCTAssertEqual(try api(rig, "PUT", "mappings/7", ["text": "accel.x cc=13"]).code, 404)
        XCTAssertEqual(try api(rig, "PUT", "mappings/1", ["nothing": 1]).code, 400)

        let added = try api(rig, "POST", "mappings", ["text": "tilt.y cc=20 range=-60..60"])
        XCTAssertEqual(added.code, 201)
        XCTAssertEqual(mappings(added.json).count, 2)
        try rig.listen.awaitStdout("CC 20 from the added mapping") { Self.ccs($0).contains { $0.cc == 20 } }
        let deleted = try api(rig, "DELETE", "mappings/2")
        XCTAssertEqual(deleted.code, 200)
        XCTAssertEqual(mappings(deleted.json).map { $0["text"] as? String }, ["accel.x cc=12 smooth=0"])
        XCTAssertEqual(try api(rig, "POST", "save").code, 409, "no --config: nothing to save to")
        // every mapping removed: the calls that name one say there is none (and the rig goes on)
        XCTAssertEqual(try api(rig, "DELETE", "mappings/1").code, 200)
        XCTAssertEqual(try api(rig, "PUT", "mappings/1", ["text": "accel.x cc=13"]).code, 404)
        XCTAssertEqual(try api(rig, "POST", "calibrate/1").code, 404)
        let cc12Before = Self.ccs(rig.listen.stdoutSoFar).filter { $0.cc == 12 }.count
        XCTAssertEqual(try api(rig, "POST", "mappings", ["text": "accel.x cc=12 smooth=0"]).code, 201)
        XCTAssertEqual(try api(rig, "POST", "scene/1").code, 409, "no scenes")
        try rig.listen.awaitStdout("CC 12 again from the mapping added back") {
            Self.ccs($0).filter { $0.cc == 12 }.count > cc12Before
        }
        // the playout, set live: the state and the outputs' lines show each sender's timing
        XCTAssertEqual(try api(rig, "GET", "state").json["playout"] as? String, "off")
        let fixed = try api(rig, "POST", "playout/25")
        XCTAssertEqual(fixed.code, 200, "\(fixed.json)")
        XCTAssertEqual(fixed.json["playout"] as? String, "25 ms")
        let timed = try waitForState(rig) { s in
            let t = (s["senders"] as? [[String: Any]])?.first?["timing"] as? [String: Any]
            return (t?["readings"] as? Int ?? 0) > 50
                && (s["outputs"] as? [String] ?? []).contains { $0.contains("delay 25.0 ms (fixed)") }
        }
        XCTAssertEqual(timed["playout"] as? String, "25 ms")
        let timing = try XCTUnwrap((timed["senders"] as? [[String: Any]])?.first?["timing"] as? [String: Any])
        XCTAssertEqual(timing["delayMs"] as? Double, 25)
        XCTAssertEqual(timing["untimed"] as? Int, 0, "SensorLog's lines carry the phone's own time")
        XCTAssertEqual(try api(rig, "POST", "playout/soon").code, 400)
        XCTAssertEqual(try api(rig, "POST", "playout/off").json["playout"] as? String, "off")
        let r = stop(rig, phone)

        // the stream: CC 11 until the change, then CC 12 from the very next frame (the old
        // controller's rest value between), CC 20 only while the added mapping ran
        let c = Self.ccs(r.stdout)
        let switchAt = try XCTUnwrap(c.firstIndex { $0.cc == 12 }, "no CC 12 after the change")
        XCTAssertTrue(c[..<switchAt].allSatisfy { $0.cc == 11 }, "\(c[..<switchAt].filter { $0.cc != 11 }.prefix(3))")
        XCTAssertGreaterThan(switchAt, 50, "CC 11 ran first")
        let after = c[switchAt...]
        XCTAssertEqual(after.filter { $0.cc == 11 }.count, 0, "mapping 1 sends CC 12 only")
        XCTAssertGreaterThan(after.filter { $0.cc == 12 }.count, 50)
        XCTAssertGreaterThan(after.filter { $0.cc == 20 }.count, 0, "the added mapping sent")
        // within one frame: the last CC 11 before the switch (not the rest value) and the first
        // CC 12 are at most a frame apart (10 ms at 100 Hz) ... unless the value did not change
        let lastMoving = c[..<switchAt].last { $0.v != 64 } ?? c[switchAt - 1]
        XCTAssertLessThanOrEqual(
            c[switchAt].t - lastMoving.t, 0.05, "CC 12 started \(c[switchAt].t - lastMoving.t) s after the last CC 11")
        XCTAssertTrue(r.stderr.contains("control: mapping 1 is now accel.x cc=12 smooth=0"), r.stderr)
    }

    /// Save writes the running mappings into the configuration file (its comments kept), which
    /// `listen --config` then reads back to the same mappings; scenes switch through the API.
    func testSaveAndScenes() throws {
        let config = data + "/rig.yaml"
        try """
        # my rig
        scenes:
          verse:
            - accel.x cc=11 smooth=0   # the wah
          chorus:
            - accel.y cc=21
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let rig = try start(["--no-tcp", "--config", config])
        var state = try api(rig, "GET", "state").json
        XCTAssertEqual((state["scene"] as? [String: Any])?["name"] as? String, "verse")
        XCTAssertEqual(state["scenes"] as? [String], ["verse", "chorus"])
        XCTAssertEqual(mappings(state).map { $0["text"] as? String }, ["accel.x cc=11 smooth=0"])
        XCTAssertEqual(try api(rig, "PUT", "mappings/1", ["text": "accel.x cc=12 range=-0.5..0.5"]).code, 200)
        XCTAssertEqual(try api(rig, "POST", "mappings", ["text": "tilt.y cc=20"]).code, 201)
        let saved = try api(rig, "POST", "save")
        XCTAssertEqual(saved.code, 200, "\(saved.json)")
        XCTAssertEqual(saved.json["saved"] as? String, config)
        let chorus = try api(rig, "POST", "scene/2")
        XCTAssertEqual(chorus.code, 200)
        XCTAssertEqual((chorus.json["scene"] as? [String: Any])?["name"] as? String, "chorus")
        XCTAssertEqual(mappings(chorus.json).map { $0["text"] as? String }, ["accel.y cc=21"])
        XCTAssertEqual(try api(rig, "POST", "scene/verse").code, 200, "by name too")
        XCTAssertEqual(try api(rig, "POST", "scene/5").code, 404)
        // an edit on disk is reloaded, and the page's state follows it
        let onDisk = try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
            of: "tilt.y cc=20", with: "tilt.y cc=22")
        try onDisk.write(toFile: config, atomically: true, encoding: .utf8)
        _ = try waitForState(rig) { s in
            self.mappings(s).map { $0["text"] as? String } == ["accel.x cc=12 range=-0.5..0.5", "tilt.y cc=22"]
        }
        try onDisk.replacingOccurrences(of: "tilt.y cc=22", with: "tilt.y cc=20").write(
            toFile: config, atomically: true, encoding: .utf8)
        _ = try waitForState(rig) { s in
            self.mappings(s).map { $0["text"] as? String } == ["accel.x cc=12 range=-0.5..0.5", "tilt.y cc=20"]
        }
        rig.listen.interrupt()
        let r = rig.listen.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("scene 'chorus'"), r.stderr)

        let text = try String(contentsOfFile: config, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# my rig\n"), text)
        XCTAssertTrue(text.contains("    - accel.x cc=12 range=-0.5..0.5   # the wah\n    - tilt.y cc=20\n"), text)
        XCTAssertTrue(text.contains("    - accel.y cc=21"), text)
        // read back by a new run
        let again = try start(["--no-tcp", "--config", config])
        state = try api(again, "GET", "state").json
        XCTAssertEqual(mappings(state).map { $0["text"] as? String }, ["accel.x cc=12 range=-0.5..0.5", "tilt.y cc=20"])
        again.listen.interrupt()
        XCTAssertEqual(again.listen.wait(timeout: 20).status, 0)
    }

    /// Save through a symbolic link to a 0600 file, with links planted at the temporary names
    /// earlier versions used: the link stays a link, its target gets the mappings and keeps 0600,
    /// and nothing planted is followed or left behind. A mapping text with a newline or another
    /// control character is refused with 400 and why (saved, it would read back as another rig).
    func testSaveKeepsTheModeAndTheLinkAndFollowsNothingPlanted() throws {
        let real = data + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        let target = real + "/rig.yaml", link = data + "/rig.yaml", victim = data + "/victim"
        try "mappings:\n  - accel.x cc=11   # the wah\n".write(toFile: target, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(target, 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/rig.yaml")
        try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
        for planted in [link + ".sensorwah-tmp", target + ".sensorwah-tmp"] {
            try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        }
        let rig = try start(["--no-tcp", "--config", link])

        // control characters: 400, with the reason
        for text in ["tilt.x cc=14 sender=a\n#", "tilt.x cc=14\r", "tilt.x\u{1B}cc=14", "tilt.x cc=14\u{2028}x"] {
            let r = try api(rig, "PUT", "mappings/1", ["text": text])
            XCTAssertEqual(r.code, 400, "\(text.debugDescription): \(r.json)")
            XCTAssertTrue((r.json["error"] as? String ?? "").contains("one line of text"), "\(r.json)")
        }
        let newline = try api(rig, "POST", "mappings", ["text": "tilt.y cc=20\nmappings: []"])
        XCTAssertEqual(newline.code, 400)
        XCTAssertTrue((newline.json["error"] as? String ?? "").contains("a newline (U+000A)"), "\(newline.json)")

        XCTAssertEqual(try api(rig, "PUT", "mappings/1", ["text": "accel.x cc=12"]).code, 200)
        let saved = try api(rig, "POST", "save")
        XCTAssertEqual(saved.code, 200, "\(saved.json)")
        rig.listen.interrupt()
        XCTAssertEqual(rig.listen.wait(timeout: 20).status, 0)

        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: link), "real/rig.yaml", "the link stays a link")
        XCTAssertEqual(
            try String(contentsOfFile: target, encoding: .utf8), "mappings:\n  - accel.x cc=12   # the wah\n")
        let mode = (try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n", "a planted link was followed")
        for planted in [link + ".sensorwah-tmp", target + ".sensorwah-tmp"] {
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: planted), victim)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: real).filter {
            $0 != "rig.yaml" && $0 != "rig.yaml.sensorwah-tmp"
        }
        XCTAssertEqual(left, [], "temporary files left behind")
    }

    /// Calibrate from the page: the trace runs on the streamed take and its range is written
    /// into the configuration file; the state's message says how it went.
    func testCalibrateThroughTheAPI() throws {
        let config = data + "/rig.yaml"
        try "mappings:\n  - accel.x cc=11   # the wah\n".write(toFile: config, atomically: true, encoding: .utf8)
        let rig = try start(["--config", config])
        defer { rig.listen.interrupt(); _ = rig.listen.wait(timeout: 20) }
        XCTAssertEqual(try api(rig, "POST", "calibrate/3").code, 404)
        let phone = try stream(rig)
        defer { phone.interrupt(); _ = phone.wait(timeout: 10) }
        let asked = try api(rig, "POST", "calibrate/1")
        XCTAssertEqual(asked.code, 202, "\(asked.json)")
        let done = try waitForState(rig, seconds: 20) { s in
            ((s["message"] as? [String: Any])?["text"] as? String ?? "").contains("written to")
        }
        let message = (done["message"] as? [String: Any])?["text"] as? String ?? ""
        XCTAssertTrue(message.hasPrefix("calibrate mapping 1 (accel.x): range="), message)
        let text = try String(contentsOfFile: config, encoding: .utf8)
        XCTAssertTrue(text.contains("- accel.x cc=11 range="), text)
        XCTAssertTrue(text.contains("# the wah"), text)
    }

    /// The page in Chromium: it loads over HTTPS and goes live, its values move while a take
    /// streams, a mapping edited in the page changes the MIDI stream, a scene button switches
    /// the scene, and a laptop-sized and a phone-sized screenshot show the main parts.
    func testThePageInABrowser() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw XCTSkip("chromium is not installed (tools/install-deps installs it)")
        }
        let config = data + "/rig.yaml"
        try """
        scenes:
          verse:
            - accel.x cc=11 smooth=0
          chorus:
            - accel.y cc=21
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let rig = try start(["--config", config, "--gestures", data + "/moves.yaml"])
        let phone = try stream(rig)
        defer { phone.interrupt(); _ = phone.wait(timeout: 10) }
        _ = try waitForState(rig) { s in ((s["senders"] as? [[String: Any]])?.first?["frames"] as? Int ?? 0) > 100 }
        let peer = try RTPMIDICLITests.Peer.custom(
            RTPMIDICLITests.python,
            [
                Self.driver, "--url", "\(rig.base)/control#\(rig.token)",
                "--watch", "2", "--edit", "accel.x cc=12 smooth=0",
                "--field", "smooth=25", "--sources", "tilt.x, accel.y",
                "--scene", "2", "--teach", "swing", "--shots", data
            ])
        peer.process.waitUntilExit()
        peer.stop()
        XCTAssertEqual(peer.process.terminationStatus, 0, peer.text)
        let lines = peer.lines
        func event(_ name: String, size: String? = nil) -> [String: Any]? {
            lines.first { $0["event"] as? String == name && (size == nil || $0["size"] as? String == size) }
        }
        let loaded = try XCTUnwrap(event("loaded"), peer.text)
        XCTAssertEqual(loaded["secure"] as? Bool, true)
        XCTAssertEqual(loaded["state"] as? String, "live", "the live socket opened")
        let watched = try XCTUnwrap(event("watched"))
        let values = Set((watched["values"] as? [String?] ?? []).compactMap { $0 })
        XCTAssertGreaterThanOrEqual(values.count, 4, "the sent value moves on the page: \(values)")
        XCTAssertTrue(
            (watched["senders"] as? [String] ?? []).contains { $0.hasPrefix("sensorlog@127.0.0.1") }, "\(watched)")
        let edited = try XCTUnwrap(event("edited"))
        XCTAssertEqual(edited["error"] as? String, "", "\(edited)")
        XCTAssertEqual(edited["text"] as? String, "accel.x cc=12 smooth=0")
        let watch = try XCTUnwrap(event("watch"), peer.text)
        XCTAssertEqual(watch["error"] as? String, "", "\(watch)")
        XCTAssertEqual(watch["painted"] as? Bool, true, "the watched sources are drawn: \(watch)")
        let legend = watch["legend"] as? String ?? ""
        XCTAssertNotNil(
            legend.range(of: #"tilt\.x -?[0-9]+\.[0-9]{3}"#, options: .regularExpression),
            "a value beside each name: \(legend)")
        XCTAssertNotNil(
            legend.range(of: #"accel\.y -?[0-9]+\.[0-9]{3}"#, options: .regularExpression),
            "a value beside each name: \(legend)")
        let field = try XCTUnwrap(event("field"), peer.text)
        XCTAssertEqual(
            field["text"] as? String, "accel.x cc=12 smooth=25", "the settings form writes the mapping's text: \(field)"
        )
        XCTAssertEqual(field["error"] as? String, "")
        // Teach: Start from the field's Enter, a space key marks, Drop forgets it
        let teach = try XCTUnwrap(event("teach"), peer.text)
        XCTAssertTrue((teach["started"] as? String ?? "").contains("teach swing: perform it"), "\(teach)")
        XCTAssertTrue((teach["marked"] as? String ?? "").contains("teach swing: 1 marked"), "\(teach)")
        XCTAssertTrue((teach["dropped"] as? String ?? "").contains("teach swing: dropped, nothing written"), "\(teach)")
        XCTAssertEqual(teach["taught"] as? String, "nothing taught yet")
        XCTAssertEqual(teach["startEnabled"] as? Bool, true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: data + "/moves.yaml"))
        let scene = try XCTUnwrap(event("scene"))
        XCTAssertEqual(scene["on"] as? String, "chorus")
        for size in ["laptop", "phone"] {
            let l = try XCTUnwrap(event("layout", size: size))
            for part in ["sender", "tilt", "mapping", "plot", "painted", "scenes", "save", "add", "teach"] {
                XCTAssertEqual(l[part] as? Bool, true, "\(size): \(part) \(l)")
            }
            XCTAssertEqual(l["scrollsSideways"] as? Bool, false, "\(size) \(l)")
        }
        for (file, w, h) in [("control-laptop.png", 1280, 800), ("control-phone.png", 780, 1688)] {
            let png = try Data(contentsOf: URL(fileURLWithPath: data + "/" + file))
            XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
            XCTAssertEqual(png[16..<20].reduce(0) { $0 << 8 | Int($1) }, w)
            XCTAssertEqual(png[20..<24].reduce(0) { $0 << 8 | Int($1) }, h)
        }
        if let keep = ProcessInfo.processInfo.environment["SENSORWAH_KEEP_SCREENSHOTS"] {
            for f in ["control-laptop.png", "control-phone.png"] {
                try? FileManager.default.removeItem(atPath: keep + "/" + f)
                try FileManager.default.copyItem(atPath: data + "/" + f, toPath: keep + "/" + f)
            }
        }
        let r = stop(rig, phone)
        // the page's edit reached the MIDI stream: CC 12 after CC 11, then the chorus's CC 21
        let c = Self.ccs(r.stdout)
        let i12 = try XCTUnwrap(c.firstIndex { $0.cc == 12 }, "the page's edit never reached the stream")
        XCTAssertTrue(c[..<i12].contains { $0.cc == 11 })
        XCTAssertTrue(r.stderr.contains("control: mapping 1 is now accel.x cc=12 smooth=25"), r.stderr)
        let i21 = try XCTUnwrap(c.firstIndex { $0.cc == 21 }, "the scene never switched")
        XCTAssertGreaterThan(i21, i12)
    }
}
