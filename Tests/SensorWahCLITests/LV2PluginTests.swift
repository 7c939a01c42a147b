import Foundation
import XCTest

/// sensorwah.lv2 as a host sees it: the bundle from tools/lv2-bundle (release build of the
/// sensorwah_lv2 product), its Turtle valid against the LV2 schemas (sord_validate), listed by
/// lv2info, the Swift runtime linked in (no libswiftCore dependency), and `lv2apply` giving the
/// same samples as `sensorwah render --pedal N` at every position, both voices.
final class LV2PluginTests: XCTestCase {
    let uri = "https://github.com/sensorwah/sensorwah#wah"

    func testBundleValidatesAndRendersLikeSensorwahRender() throws {
        for t in ["lv2apply", "lv2info", "sord_validate", "sox"] where !JackTest.have(t) {
            throw XCTSkip("\(t) is not installed (tools/install-deps)")
        }
        let release = URL(fileURLWithPath: JackTest.releaseBinary).deletingLastPathComponent()
        let library = release.appendingPathComponent("libsensorwah_lv2.so").path
        guard FileManager.default.fileExists(atPath: library) else {
            XCTFail("no \(library): `swift build -c release --product sensorwah_lv2` (tools/test does)")
            return
        }
        let dir = try JackTest.tempDir("lv2")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = try JackTest.sh(JackTest.repo.appendingPathComponent("tools/lv2-bundle").path, [dir.path], env: ["NO_BUILD": "1"], timeout: 120)
        XCTAssertEqual(bundle.status, 0, bundle.err)
        let env = ["LV2_PATH": dir.path]

        // Turtle: valid against the schemas lv2-dev installs
        var schemas: [String] = []
        if let e = FileManager.default.enumerator(atPath: "/usr/lib/lv2") {
            for case let f as String in e where f.hasSuffix(".ttl") && !f.hasSuffix(".meta.ttl") {
                schemas.append("/usr/lib/lv2/" + f)
            }
        }
        XCTAssertFalse(schemas.isEmpty, "no LV2 schemas in /usr/lib/lv2 (lv2-dev)")
        let ttl = ["manifest.ttl", "sensorwah.ttl"].map { dir.appendingPathComponent("sensorwah.lv2/\($0)").path }
        let valid = try JackTest.sh("sord_validate", schemas + ttl, timeout: 120)
        XCTAssertTrue((valid.out + valid.err).contains("Found 0 errors"), valid.out + valid.err)

        let info = try JackTest.sh("lv2info", [uri], env: env)
        XCTAssertEqual(info.status, 0, info.err)
        XCTAssertTrue(info.out.contains("Name:              SensorWah"), info.out)
        for symbol in ["in", "out", "midi_in", "pedal", "cc", "voice", "mode", "mix", "bypass", "sensitivity"] {
            XCTAssertTrue(info.out.contains("Symbol:      \(symbol)\n"), "port \(symbol) missing:\n\(info.out)")
        }
        let ldd = try JackTest.sh("ldd", [dir.appendingPathComponent("sensorwah.lv2/sensorwah.so").path])
        XCTAssertFalse(ldd.out.contains("swift"), "the plugin must carry its Swift runtime:\n\(ldd.out)")
        // only the LV2 entry point is exported: no Swift symbol can meet another plugin's
        let nm = try JackTest.sh("nm", ["-D", "--defined-only", dir.appendingPathComponent("sensorwah.lv2/sensorwah.so").path])
        let exported = nm.out.split(separator: "\n").filter { $0.contains(" T ") || $0.contains(" W ") }
        XCTAssertEqual(exported.map { String($0.split(separator: " ").last ?? "") }, ["lv2_descriptor"], nm.out)

        // the same samples as render, every position, both voices
        let rate = 48_000
        let x = JackTest.noise(rate * 2).map { $0 * 1.2 }
        let input = dir.appendingPathComponent("in.wav").path
        try JackTest.writeWAV(input, rate: rate, channels: [x])
        for (voiceIndex, voice) in ["svf", "crybaby"].enumerated() {
            for pedal in [0, 32, 64, 96, 127] {
                let viaPlugin = dir.appendingPathComponent("lv2-\(voice)-\(pedal).wav").path
                let viaRender = dir.appendingPathComponent("render-\(voice)-\(pedal).wav").path
                let a = try JackTest.sh("lv2apply", ["-i", input, "-o", viaPlugin, "-c", "pedal", String(pedal),
                                                     "-c", "voice", String(voiceIndex), uri], env: env)
                XCTAssertEqual(a.status, 0, a.err)
                let r = try JackTest.sh(JackTest.releaseBinary, ["render", "--pedal", String(pedal), "--voice", voice,
                                                                 "--sample-format", "float", input, viaRender])
                XCTAssertEqual(r.status, 0, r.err)
                let y1 = try JackTest.readWAV(viaPlugin).channels[0]
                let y2 = try JackTest.readWAV(viaRender).channels[0]
                XCTAssertEqual(y1.count, y2.count)
                var worst: Float = 0
                for (u, v) in zip(y1, y2) { worst = max(worst, abs(u - v)) }
                XCTAssertLessThanOrEqual(worst, 1e-6, "\(voice) pedal \(pedal)")
                XCTAssertGreaterThan(y2.map { abs($0) }.max()!, 0.01)
            }
        }
    }

    /// jalv hosts the plugin on a dummy-backend JACK server: its ports appear and it runs.
    func testJalvHostsThePlugin() throws {
        try JackTest.requireJackTools(["jalv"])
        let release = URL(fileURLWithPath: JackTest.releaseBinary).deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: release.appendingPathComponent("libsensorwah_lv2.so").path) else {
            XCTFail("no release libsensorwah_lv2.so: `swift build -c release --product sensorwah_lv2` (tools/test does)")
            return
        }
        let dir = try JackTest.tempDir("lv2-jalv")
        defer { try? FileManager.default.removeItem(at: dir) }
        XCTAssertEqual(try JackTest.sh(JackTest.repo.appendingPathComponent("tools/lv2-bundle").path, [dir.path], env: ["NO_BUILD": "1"], timeout: 120).status, 0)
        let server = try JackTest.Server(period: 256)
        // jalv's console quits at the end of its standard input: keep it open for a while
        let host = try server.run("sh", ["-c", "sleep 4 | exec jalv -c voice 1 -c mode 2 '\(uri)'"], extraEnv: ["LV2_PATH": dir.path])
        XCTAssertNotNil(server.waitForPort("^SensorWah:in$"), host.stderr)
        XCTAssertNotNil(server.waitForPort("^SensorWah:midi_in$"), host.stderr)
        _ = host.wait(timeout: 15)
        XCTAssertTrue((host.stdout + host.stderr).contains(uri), host.stdout + host.stderr)
    }
}
