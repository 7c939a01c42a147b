import Foundation
import XCTest

/// `listen --web` with a real browser: Debian's Chromium, headless, driven over the DevTools
/// protocol by Tests/Tools/web-phone.py, opens the page over HTTPS, is tapped Start, and has its
/// motion sensors fed through Chromium's virtual sensors; the MIDI that comes out follows them.
/// Also: the POST fallback, two browsers as two senders, a refused permission, a denied address,
/// reconnection after listen restarts, the recorded take replaying to the same stream, and the
/// page's certificate and authority.
final class WebCLITests: XCTestCase {
    static let driver = CLI.repo.appendingPathComponent("Tests/Tools/web-phone.py").path

    var data: String!
    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw XCTSkip("chromium is not installed (tools/install-deps installs it)")
        }
        data =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "sw-web-\(getpid())-\(name.hashValue & 0xffff)"
            ).path
        try? FileManager.default.removeItem(atPath: data)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { if let d = data { try? FileManager.default.removeItem(atPath: d) } }

    /// `listen --web` on a free port, its certificates in the test's own data folder.
    func listen(_ extra: [String], port: Int = 0) throws -> (CLI.Running, Int) {
        let l = try CLI.Running(
            ["listen", "--web", "--web-port", "\(port)", "--no-tcp", "--midi", "stdout", "--rest-after", "0"] + extra,
            env: ["XDG_DATA_HOME": data])
        guard let p = l.waitForStderr(#"listening on https://[0-9.]+:(\d+)"#, seconds: 20).flatMap({ Int($0) }) else {
            l.interrupt(); _ = l.wait(timeout: 10)
            XCTFail("listen --web did not start: \(l.stderrSoFar)")
            throw XCTSkip("no server")
        }
        addTeardownBlock { l.stopIfRunning() }  // on every path, a failed one too
        return (l, p)
    }

    /// A shell command's status and output.
    static func shell(_ command: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// Runs the browser; its JSON lines.
    func phone(_ port: Int, _ args: [String]) throws -> [[String: Any]] {
        let peer = try RTPMIDICLITests.Peer.custom(
            RTPMIDICLITests.python, [Self.driver, "--url", "https://127.0.0.1:\(port)/"] + args)
        peer.process.waitUntilExit()
        peer.stop()
        XCTAssertEqual(peer.process.terminationStatus, 0, peer.text)
        return peer.lines
    }

    /// The CC values of `cc` on stdout, with their times.
    static func ccs(_ stdout: String, cc: Int = 11) -> [(t: Double, v: Int)] {
        CLI.lines(stdout).compactMap { l in
            guard let o = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any],
                o["type"] as? String == "cc", o["cc"] as? Int == cc, let t = o["t"] as? Double,
                let v = o["value"] as? Int
            else { return nil }
            return (t, v)
        }
    }

    /// The sweep: accel.x from -0.5 to +0.5 G, so CC 11 from about 32 to about 95, rising, and
    /// timed by the browser's timestamps (the span of the sweep, not of arrival).
    func assertSweep(_ c: [(t: Double, v: Int)], seconds: Double, file: StaticString = #filePath, line: UInt = #line) {
        guard c.count > 20 else { return XCTFail("only \(c.count) CC messages", file: file, line: line) }
        let sweep = c.filter { $0.v != 64 || $0.t < 0.5 }  // the rest value at the end, if any
        XCTAssertLessThanOrEqual(sweep.first!.v, 40, "\(sweep.prefix(5))", file: file, line: line)
        XCTAssertGreaterThanOrEqual(sweep.map(\.v).max()!, 88, file: file, line: line)
        let rising = zip(sweep, sweep.dropFirst()).filter { $1.v >= $0.v }.count
        XCTAssertGreaterThanOrEqual(
            Double(rising), 0.95 * Double(sweep.count - 1), "the CC follows the tilt", file: file, line: line)
        let top = sweep.first { $0.v >= 88 }!.t - sweep.first!.t
        XCTAssertEqual(
            top, seconds * 0.9, accuracy: seconds * 0.25, "timed by the browser's clock", file: file, line: line)
    }

    /// Scan, tap Start, play: the page loads over HTTPS (a secure context), the wah's CC follows
    /// the tilt sweep, the browser is the sender web@127.0.0.1/NAME, its sign is read from
    /// gravity, and the phone-sized screenshot shows the page's main parts.
    func testABrowserMovesTheWah() throws {
        let (l, port) = try listen(["--map", "accel.x cc=11 smooth=0"])
        let shot = data + "/page.png"
        let lines = try phone(port, ["--sweep", "3", "--name", "stage phone", "--screenshot", shot])
        l.interrupt()
        let r = l.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        let loaded = try XCTUnwrap(lines.first { $0["event"] as? String == "loaded" })
        XCTAssertEqual(loaded["secure"] as? Bool, true)
        let page = try XCTUnwrap(lines.first { $0["event"] as? String == "page" })
        XCTAssertEqual(page["state"] as? String, "connected", "\(page)")
        XCTAssertEqual(page["problem"] as? String, "")
        XCTAssertTrue((page["rate"] as? String ?? "").hasSuffix(" Hz"))
        XCTAssertFalse((page["wake"] as? String ?? "").isEmpty, "the page says whether the screen stays on")
        assertSweep(Self.ccs(r.stdout), seconds: 3)
        XCTAssertTrue(r.stderr.contains("senders: web@127.0.0.1/stage phone"), r.stderr)
        XCTAssertTrue(r.stderr.contains("acceleration sign as the W3C specification gives it"), r.stderr)
        XCTAssertTrue(r.stderr.contains("web: pages served 1"), r.stderr)
        // the screenshot: a phone-sized PNG (390 x 844 at 2x)
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let w = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, h = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual(w, 780); XCTAssertEqual(h, 1688)
        // the terminal's addresses
        XCTAssertTrue(r.stderr.contains("https://127.0.0.1:\(port)/"), r.stderr)
    }

    /// When the WebSocket cannot open (as on iOS with a merely accepted certificate), the page
    /// sends HTTPS POST batches by itself, and the stream is the same.
    func testPostFallback() throws {
        let (l, port) = try listen(["--map", "accel.x cc=11 smooth=0"])
        let lines = try phone(port, ["--sweep", "3", "--no-websocket"])
        l.interrupt()
        let r = l.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(lines.first { $0["event"] as? String == "page" }?["state"] as? String, "connected (https)")
        assertSweep(Self.ccs(r.stdout), seconds: 3)
        XCTAssertTrue(r.stderr.contains("(WebSocket 0, HTTPS POST "), r.stderr)
        XCTAssertTrue(r.stderr.contains("senders: web@127.0.0.1"), r.stderr)
    }

    /// Two browsers at once are two senders, each driving its own mapping (sender=).
    func testTwoBrowsersAreTwoSenders() throws {
        let (l, port) = try listen([
            "--map", "accel.x cc=11 smooth=0 sender=left", "--map", "accel.x cc=12 smooth=0 sender=right"
        ])
        let a = try RTPMIDICLITests.Peer.custom(
            RTPMIDICLITests.python,
            [Self.driver, "--url", "https://127.0.0.1:\(port)/", "--sweep", "3", "--name", "left"])
        let b = try RTPMIDICLITests.Peer.custom(
            RTPMIDICLITests.python,
            [Self.driver, "--url", "https://127.0.0.1:\(port)/", "--sweep", "3", "--name", "right"])
        a.process.waitUntilExit(); b.process.waitUntilExit()
        a.stop(); b.stop()
        l.interrupt()
        let r = l.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        assertSweep(Self.ccs(r.stdout, cc: 11), seconds: 3)
        assertSweep(Self.ccs(r.stdout, cc: 12), seconds: 3)
        XCTAssertTrue(r.stderr.contains("web@127.0.0.1/left") && r.stderr.contains("web@127.0.0.1/right"), r.stderr)
    }

    /// A browser that refuses the page the motion sensors (Chromium asks through
    /// DeviceMotionEvent.requestPermission, as Safari on iOS does): the page says what is wrong
    /// and what to do, and nothing is sent.
    func testRefusedSensorsAreSaidOnThePage() throws {
        let (l, port) = try listen(["--map", "accel.x cc=11"])
        let lines = try phone(port, ["--sweep", "4", "--deny"])
        l.interrupt()
        let r = l.wait(timeout: 20)
        let page = try XCTUnwrap(lines.first { $0["event"] as? String == "page" })
        XCTAssertEqual(page["state"] as? String, "no permission", "\(page)")
        XCTAssertTrue(
            (page["problem"] as? String ?? "").hasPrefix(
                "Motion access was refused, so nothing can be sent. Allow it and reload"), "\(page)")
        XCTAssertTrue(r.stderr.contains("senders accepted 0"), r.stderr)
    }

    /// An address outside --allow gets no page.
    func testADeniedAddressGetsNothing() throws {
        let (l, port) = try listen(["--allow", "10.0.0.0/8"])
        let c = try Self.shell("curl -sk --max-time 5 -o /dev/null -w '%{http_code}' https://127.0.0.1:\(port)/")
        l.interrupt()
        let r = l.wait(timeout: 20)
        XCTAssertEqual(c.stdout, "000", "the connection is closed before TLS")
        XCTAssertTrue(r.stderr.contains("senders accepted 0, refused 1"), r.stderr)
    }

    /// listen stops and starts again on the same port: the page reconnects by itself and the
    /// readings arrive at the new listen.
    func testThePageReconnectsWhenListenRestarts() throws {
        let (first, port) = try listen(["--map", "accel.x cc=11 smooth=0"])
        let p = try RTPMIDICLITests.Peer.custom(
            RTPMIDICLITests.python, [Self.driver, "--url", "https://127.0.0.1:\(port)/", "--sweep", "1", "--hold", "40"]
        )
        // the page sends for 41 s: the restart and the page's backed-off retries fit on a busy machine
        defer { p.stop() }
        XCTAssertNotNil(first.waitForStderr("sender: web@", seconds: 20), first.stderrSoFar)
        try first.awaitStdout("the page's readings as CC 11") { !Self.ccs($0).isEmpty }
        first.interrupt()
        XCTAssertEqual(first.wait(timeout: 20).status, 0)
        let (second, _) = try listen(["--map", "accel.x cc=11 smooth=0"], port: port)
        XCTAssertNotNil(
            second.waitForStderr("sender: web@", seconds: 15), "the page did not come back: \(second.stderrSoFar)")
        _ = try? second.awaitStdout("the page's readings as CC 11", seconds: 10) { !Self.ccs($0).isEmpty }
        second.interrupt()
        let r = second.wait(timeout: 20)
        XCTAssertFalse(Self.ccs(r.stdout).isEmpty, "no readings after the restart")
    }

    /// --record writes the browser's take as SensorLog CSV; replaying it gives the CC stream
    /// listen sent.
    func testTheRecordedTakeReplaysToTheSameStream() throws {
        let dir = data + "/takes"
        let (l, port) = try listen(["--map", "accel.x cc=11 smooth=0", "--record", dir])
        _ = try phone(port, ["--sweep", "2", "--name", "rec"])
        l.interrupt()
        let r = l.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }
        XCTAssertEqual(files.count, 1, "\(files)")
        let rp = try CLI.run([
            "replay", dir + "/" + files[0], "--fast", "--midi", "stdout", "--map", "accel.x cc=11 smooth=0"
        ])
        XCTAssertEqual(rp.status, 0, rp.stderr)
        XCTAssertEqual(Self.ccs(rp.stdout).map(\.v), Self.ccs(r.stdout).map(\.v))
    }

    /// The page's certificate: issued by the local authority for the local names, which the
    /// page serves at /ca.crt; the keys readable by the user only; the same certificate on the
    /// next start.
    func testCertificateAndAuthority() throws {
        let (l, port) = try listen([])
        let c = try Self.shell(
            """
            curl -sk https://127.0.0.1:\(port)/ca.crt -o \(data!)/ca.der && openssl x509 -inform der -in \(data!)/ca.der -out \(data!)/ca.pem \
            && echo | openssl s_client -connect 127.0.0.1:\(port) -CAfile \(data!)/ca.pem -verify_return_error -verify_ip 127.0.0.1 2>&1 | grep -E 'Verify return code'
            """)
        l.interrupt()
        _ = l.wait(timeout: 20)
        XCTAssertTrue(c.stdout.contains("Verify return code: 0 (ok)"), c.stdout + c.stderr)
        let folder = data + "/sensorwah"
        for key in ["web-ca-key.pem", "web-server-key.pem"] {
            let a = try FileManager.default.attributesOfItem(atPath: folder + "/" + key)
            XCTAssertEqual((a[.posixPermissions] as? NSNumber)?.intValue, 0o600, key)
        }
        let before = try String(contentsOfFile: folder + "/web-server.pem", encoding: .utf8)
        let (again, _) = try listen([])
        again.interrupt()
        let r = again.wait(timeout: 20)
        XCTAssertFalse(r.stderr.contains("a certificate for"), "not issued again: \(r.stderr)")
        XCTAssertEqual(try String(contentsOfFile: folder + "/web-server.pem", encoding: .utf8), before)
    }

    /// Nothing but the page, its authority and the two ways in: other paths 404, other methods
    /// 405, a batch that is not one 400 with the reason, a body over --http-max-body 413, a
    /// request from another site's page (its Origin) 403.
    func testThePortServesNothingElse() throws {
        let (l, port) = try listen(["--http-max-body", "4096"])
        let base = "https://127.0.0.1:\(port)"
        func code(_ args: String) throws -> String {
            try Self.shell("curl -sk -o /dev/null -w '%{http_code}' \(args)").stdout
        }
        XCTAssertEqual(try code("\(base)/"), "200")
        XCTAssertEqual(try code("\(base)/etc/passwd"), "404")
        XCTAssertEqual(try code("\(base)/../ca.crt"), "200", "curl folds the path")
        XCTAssertEqual(try code("-X DELETE \(base)/batch"), "405")
        XCTAssertEqual(try code("-X POST --data-binary 'hello' \(base)/batch"), "400")
        let why = try Self.shell("curl -sk -X POST --data-binary 'hello' \(base)/batch").stdout
        XCTAssertTrue(why.hasPrefix("not a SensorWah web batch: the first line is 'hello'"), why)
        let big = data + "/big.txt"
        try ("SWW1 -\n" + String(repeating: "1 0 9.8 0 - - - - - -\n", count: 400)).write(
            toFile: big, atomically: true, encoding: .utf8)
        XCTAssertEqual(try code("-X POST --data-binary @\(big) \(base)/batch"), "413")
        // a page of another site, in a browser that trusts the authority, may not send readings
        let ok = data + "/ok.txt"
        try "SWW1 -\n1 0 9.8 0 - - - - - -\n".write(toFile: ok, atomically: true, encoding: .utf8)
        XCTAssertEqual(try code("-X POST -H 'Origin: https://example.com' --data-binary @\(ok) \(base)/batch"), "403")
        XCTAssertEqual(
            try code("-X POST -H 'Origin: https://127.0.0.1:\(port)' --data-binary @\(ok) \(base)/batch"), "200")
        l.interrupt()
        let r = l.wait(timeout: 20)
        // two batches that were not, one too large, one from another site
        XCTAssertTrue(r.stderr.contains("refused 4"), r.stderr)
    }

    /// On a terminal, the page's address is drawn as a QR code: a square of block characters
    /// (libqrencode's modules, two rows a line) in black on white, beside the address.
    func testTheTerminalShowsTheQRCode() throws {
        guard MonitorCLITests.tmux != nil else {
            throw XCTSkip("tmux is not installed (tools/install-deps installs it)")
        }
        let t = MonitorCLITests.Tmux()
        defer { t.run(["kill-server"]) }
        let cmd =
            "XDG_DATA_HOME='\(data!)' '\(CLI.binary.path)' listen --web --web-port 0 --no-tcp --no-monitor --midi stdout; sleep 30"
        t.run(["new-session", "-d", "-s", "view", "-x", "120", "-y", "60", "-c", CLI.repo.path, cmd])
        let screen = t.waitFor("scan: https://")
        XCTAssertTrue(screen.contains("scan: https://"), screen)
        let rows = screen.split(separator: "\n").filter { $0.contains("█") || $0.contains("▀") || $0.contains("▄") }
        XCTAssertGreaterThanOrEqual(rows.count, 12, screen)
        // a QR code of version 2 or more is at least 25 modules wide: the dark modules span that
        let cols = rows.flatMap { r -> [Int] in
            let c = Array(r)
            return c.indices.filter { c[$0] != " " }
        }
        XCTAssertGreaterThanOrEqual((cols.max() ?? 0) - (cols.min() ?? 0) + 1, 25, screen)
        XCTAssertGreaterThanOrEqual(rows.count, 12, "25 modules are 13 lines of two")
    }
}
