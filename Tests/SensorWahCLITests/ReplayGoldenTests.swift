import Foundation
import XCTest

/// The controller streams `replay` sends for the bundled recordings, one file, several files
/// merged on time, raw axes, tilt, gestures and the attitude, held against a file of their line
/// counts and FNV-1a hashes: a change to how frames are read, stepped or mapped that alters a
/// single byte of any of them fails here. When a change means to alter them, say so in its
/// commit and rewrite the file: `SENSORWAH_REGENERATE_GOLDEN=1 tools/test --filter ReplayGoldenTests`.
final class ReplayGoldenTests: XCTestCase {
    static let cases: [(name: String, args: [String])] = [
        ("wrist-default", ["wrist-wah-phone.csv"]),
        ("watch-default", ["watch-sweeps.csv"]),
        ("quirks-default", ["phone-quirks.csv"]),
        ("accel-only-default", ["accel-only-30hz.csv"]),
        ("two-files-merged", ["accel-only-30hz.csv", "watch-sweeps.csv"]),
        (
            "wrist-motion",
            [
                "wrist-wah-phone.csv", "--map", "tilt.y zero cc=12 smooth=40", "--map", "flick note=60",
                "--map", "shake cc=20", "--map", "gyro.z cc=21 range=-5..5", "--map", "tap note=62"
            ]
        ),
        ("watch-attitude", ["watch-sweeps.csv", "--map", "quat.w cc=30", "--map", "accel.y cc=31 range=-1..1 bipolar"])
    ]

    static var goldenURL: URL { CLI.repo.appendingPathComponent("Tests/SensorWahCLITests/Golden/replay-streams.txt") }

    /// 64-bit FNV-1a of the bytes: enough to tell two streams apart, no library needed.
    static func fnv1a(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return String(h, radix: 16)
    }

    func testTheStreamsAreTheOnesOnFile() throws {
        var measured: [String] = []
        for c in Self.cases {
            let files = c.args.prefix { $0.hasSuffix(".csv") }.map(CLI.recording)
            let rest = c.args.drop { $0.hasSuffix(".csv") }
            let r = try CLI.run(["replay"] + files + ["--fast", "--midi", "stdout", "-q"] + rest)
            XCTAssertEqual(r.status, 0, "\(c.name): \(r.stderr)")
            XCTAssertFalse(r.stdout.isEmpty, "\(c.name) sends something")
            measured.append("\(c.name) \(CLI.lines(r.stdout).count) \(Self.fnv1a(r.stdout))")
        }
        if ProcessInfo.processInfo.environment["SENSORWAH_REGENERATE_GOLDEN"] == "1" {
            let header = "# replay's controller streams: case, lines, FNV-1a 64 of stdout (ReplayGoldenTests)\n"
            try FileManager.default.createDirectory(
                at: Self.goldenURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (header + measured.joined(separator: "\n") + "\n").write(
                to: Self.goldenURL, atomically: true, encoding: .utf8)
            print("SENSORWAH_REGENERATE_GOLDEN=1: wrote \(Self.goldenURL.path)")
            return
        }
        guard let text = try? String(contentsOf: Self.goldenURL, encoding: .utf8) else {
            return XCTFail("missing \(Self.goldenURL.path); run with SENSORWAH_REGENERATE_GOLDEN=1 to create it")
        }
        let onFile = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        XCTAssertEqual(measured, onFile)
    }
}
