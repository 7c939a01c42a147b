import Foundation
import XCTest

/// `sensorwah listen --http` with a real HTTP client (curl) posting batches shaped like Sensor
/// Logger's push; what `--record` saved replays to the same CC stream.
final class HTTPPushCLITests: XCTestCase {
    func curl(_ url: String, body: String) throws -> (code: String, text: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sw-push-\(getpid())-\(UUID().uuidString).json")
        try body.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = Process()
        let out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "curl", "-s", "-o", "-", "-w", "\n%{http_code}", "-H", "Content-Type: application/json",
            "--data-binary", "@\(file.path)", url
        ]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "curl")
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines.last ?? "", lines.dropLast().joined(separator: "\n"))
    }

    /// A batch of `n` samples at 100 Hz from `start` (epoch ns): user acceleration and gyro.
    func batch(_ id: Int, from k0: Int, count n: Int) -> String {
        let t0: Int64 = 1_698_501_144_000_000_000
        var entries: [String] = []
        for k in k0..<(k0 + n) {
            let t = t0 + Int64(k) * 10_000_000
            let x = sin(Double(k) / 8) * 9.80665
            entries.append(#"{"name":"accelerometer","time":\#(t),"values":{"x":\#(x),"y":0,"z":0.5}}"#)
            entries.append(#"{"name":"gyroscope","time":\#(t),"values":{"x":\#(x / 3),"y":0,"z":0}}"#)
            if k % 10 == 0 {
                entries.append(#"{"name":"location","time":\#(t),"values":{"latitude":0,"longitude":0}}"#)
            }
        }
        return
            #"{"messageId":\#(id),"sessionId":"abc","deviceId":"phone-7","payload":[\#(entries.joined(separator: ","))]}"#
    }

    func testCurlPostsIntoListenEqualTheReplayOfTheRecording() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-cli-push-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let maps = ["user.x cc=21 smooth=30", "gyro.x cc=22 smooth=0"]
        let l = try CLI.Running(
            [
                "listen", "--bind", "127.0.0.1", "--rest-after", "30", "--no-tcp", "--http", "0",
                "--http-max-body", "100000", "--record", dir
            ]
                + (maps + ["gyro.x cc=23 smooth=0 sender=phone-7"]).flatMap { ["--map", $0] })
        let port = try XCTUnwrap(l.waitForStderr(#"listening on http://127\.0\.0\.1:(\d+)"#))
        let url = "http://127.0.0.1:\(port)/data"
        for i in 0..<4 {
            let r = try curl(url, body: batch(i, from: i * 50, count: 50))
            XCTAssertEqual(r.code, "200", r.text)
        }
        let bad = try curl(url, body: #"{"payload":[{"name":"gyroscope","values":{"x":1}}]}"#)
        XCTAssertEqual(bad.code, "400")
        XCTAssertTrue(bad.text.contains("whole-number \"time\""), bad.text)
        let notJSON = try curl(url, body: "x=1")
        XCTAssertEqual(notJSON.code, "400")
        let huge = try curl(url, body: batch(9, from: 1000, count: 2000))
        XCTAssertEqual(huge.code, "413")
        // after the refusals, the sender still streams
        XCTAssertEqual(try curl(url, body: batch(5, from: 200, count: 50)).code, "200")
        // (no pause: the 200 comes once the batch is fed, and the exit sends what is queued)
        l.interrupt()
        let r = l.wait()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(
            r.stderr.contains("HTTP push batches 5, frames 250, refused (400) 2, too large (413) 1"), r.stderr)
        let live = CLI.lines(r.stdout)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertEqual(files.count, 1, "\(files)")
        XCTAssertTrue(files[0].contains("sensorlogger_127.0.0.1_phone-7"), files[0])
        let rp = try CLI.run(["replay", "\(dir)/\(files[0])", "--fast", "-q"] + maps.flatMap { ["--map", $0] })
        XCTAssertEqual(rp.status, 0, rp.stderr)
        let replayed = CLI.lines(rp.stdout)
        XCTAssertGreaterThan(replayed.count, 50)
        XCTAssertEqual(live.filter { !$0.contains("\"cc\":23,") }, replayed)
        // sender= selects the app's device id
        XCTAssertEqual(
            live.filter { $0.contains("\"cc\":23,") }.map { $0.replacingOccurrences(of: "\"cc\":23,", with: "") },
            live.filter { $0.contains("\"cc\":22,") }.map { $0.replacingOccurrences(of: "\"cc\":22,", with: "") })
    }
}
