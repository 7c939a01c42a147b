import Foundation
import XCTest

/// `sensorwah inspect`, the refusals and non-zero exits of `replay`, and the real logs other
/// people recorded (../shared/field-recordings, when that folder exists): each is read right
/// (with --columns where it has no header) or clearly refused.
final class InspectCLITests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func angle(_ t: Double) -> Double { (60 * Double.pi / 180) * sin(2 * Double.pi * t / 3) }
    static let times = (0..<300).map { Double($0) / 50 }

    func testInspectReportsAppColumnsUnitsTimeRateAndRunnerUp() throws {
        let path = try write(
            "take.csv",
            "time_ms,ax,ay,az,gx,gy,gz\n"
                + Self.times.map { t in
                    String(
                        format: "%.0f,%.5f,0,%.5f,0,%.4f,0", t * 1000, sin(Self.angle(t)) * 9.80665,
                        -cos(Self.angle(t)) * 9.80665, 2 * cos(t))
                }.joined(separator: "\n") + "\n")
        let r = try CLI.run(["inspect", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        for part in [
            "recognised as: Generic (time + axes) (generic)", "runner-up: none", "\"time_ms\" -> time", "(ms)",
            "\"ax\" -> accel.x (m/s², converted to G)", "\"gy\" -> gyro.y (rad/s)", "time column: \"time_ms\" in ms",
            "rate: 50.0 Hz", "duration: 5.98 s", "gaps over 0.5 s: 0", "rows skipped: 0", "note: assumed:"
        ] {
            XCTAssertTrue(r.stdout.contains(part), "missing \(part):\n\(r.stdout)")
        }
        // a HyperIMU header: the generic layout is the runner-up
        let h = try write(
            "h.csv",
            "timestamp,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z\n"
                + [0, 20, 40, 60, 80, 100, 2100, 2120, 2140].map { "\(1_500_989_996_591 + $0),0,0,9.8\n" }.joined())
        let hr = try CLI.run(["inspect", h])
        XCTAssertTrue(hr.stdout.contains("recognised as: HyperIMU"), hr.stdout)
        XCTAssertTrue(hr.stdout.contains("runner-up: Generic (time + axes)"), hr.stdout)
        XCTAssertTrue(hr.stdout.contains("gaps over 0.5 s: 1 (longest 2.0 s"), hr.stdout)
    }

    func testNothingUsableExitsNonZeroAndSaysWhatWasSeen() throws {
        // a WAV file
        var wav = Data("RIFF".utf8) + Data([0x24, 0x08, 0, 0]) + Data("WAVEfmt ".utf8)
        wav +=
            Data([16, 0, 0, 0, 1, 0, 1, 0, 0x44, 0xAC, 0, 0, 0x88, 0x58, 1, 0, 2, 0, 16, 0]) + Data("data".utf8)
            + Data([0, 8, 0, 0])
        wav += Data((0..<2048).map { UInt8(($0 * 37) & 0xFF) })
        let wavPath = dir.appendingPathComponent("take.wav").path
        try wav.write(to: URL(fileURLWithPath: wavPath))
        let w = try CLI.run(["replay", wavPath, "--fast", "--midi", "stdout"])
        XCTAssertNotEqual(w.status, 0, w.stderr)
        XCTAssertEqual(w.stdout, "")
        XCTAssertTrue(w.stderr.contains("nothing usable") && w.stderr.contains("not a text sensor log"), w.stderr)
        // every row skipped: a SensorLog header whose rows have no number where the motion is
        let bad = try write(
            "bad.csv",
            "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G)\n"
                + (0..<50).map { "\($0),x" }.joined(separator: "\n") + "\n")
        let b = try CLI.run(["replay", bad, "--fast", "--midi", "stdout"])
        XCTAssertNotEqual(b.status, 0, b.stderr)
        XCTAssertEqual(b.stdout, "")
        XCTAssertTrue(b.stderr.contains("50 malformed") && b.stderr.contains("the first at line 2"), b.stderr)
        let i = try CLI.run(["inspect", bad])
        XCTAssertEqual(i.status, 1)
        XCTAssertTrue(i.stdout.contains("rows skipped: 50"), i.stdout)
        // a header-less table: refused, naming its column count and --columns
        let headerless = try write(
            "h13.csv",
            (0..<30).map { k in
                ([String(1_500_000_000_000 + k * 20)] + Array(repeating: "0.1", count: 12)).joined(separator: ",")
            }.joined(separator: "\n") + "\n")
        let h = try CLI.run(["replay", headerless, "--fast", "--midi", "stdout"])
        XCTAssertNotEqual(h.status, 0)
        XCTAssertEqual(h.stdout, "", "a header-less file was guessed")
        XCTAssertTrue(h.stderr.contains("13 columns") && h.stderr.contains("--columns"), h.stderr)
    }

    func testRenamedAndPrefixedSensorLoggerFilesReplay() throws {
        let rows = Self.times.map { t in
            String(
                format: "%lld,%.3f,%.5f,0.01,%.5f", 1_700_000_000_000_000_000 as Int64 + Int64((t * 1e9).rounded()), t,
                -cos(Self.angle(t)) * 9.80665, sin(Self.angle(t)) * 9.80665)
        }.joined(separator: "\n")
        for name in [
            "walk1_TotalAcceleration.csv", "TotalAcceleration 3.csv", "2023-06-09 12-44 run_TotalAcceleration.csv",
            "take 3.csv"
        ] {
            let path = try write(name, "time,seconds_elapsed,z,y,x\n" + rows + "\n")
            let r = try CLI.run(["replay", path, "--fast", "--midi", "stdout"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let values = CLI.lines(r.stdout).compactMap { l in
                (try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])?["value"] as? Int
            }
            XCTAssertGreaterThan((values.max() ?? 0) - (values.min() ?? 0), 70, "\(name): \(r.stderr)")
        }
    }

    /// Every real log in ../shared/field-recordings: read right, or refused with a message that
    /// says what to do; with the --columns it asks for, read right.
    func testEveryFieldRecordingIsReadRightOrClearlyRefused() throws {
        let field = CLI.repo.deletingLastPathComponent().appendingPathComponent("shared/field-recordings")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: field.path) else {
            print("InspectCLITests: ../shared/field-recordings not found: the real logs were NOT checked")
            return
        }
        // what each must be read as (nil: refused without --columns) and the columns to name
        let expected: [String: (app: String?, columns: String?, frames: Int)] = [
            "sensorlog-iphone-82col-waterways-excerpt.csv": ("SensorLog", nil, 1500),
            "hyperimu-2014-filetest.csv": ("HyperIMU", nil, 20),
            "hyperimu-2017-with-timestamp.csv": ("HyperIMU", nil, 63),
            "hyperimu-2017-y-impulse.csv": ("HyperIMU", nil, 371),
            "applewatch-tennis-forehand-7-shots-accel-800hz-headerless.csv": (nil, "time,ax,ay,az", 15632),
            "applewatch-tennis-6-shots-rotation-200hz-headerless.csv": (nil, "time,gx,gy,gz", 2304)
        ]
        var checked: [String] = []
        for name in names.sorted() where name.hasSuffix(".csv") {
            let path = field.appendingPathComponent(name).path
            guard let e = expected[name] else {
                // a new file: it must at least be read or clearly refused
                let r = try CLI.run(["inspect", path])
                XCTAssertTrue(r.status == 0 || r.stdout.contains("refused:"), "\(name): \(r.stdout)\(r.stderr)")
                checked.append(name + " (unknown to this test)")
                continue
            }
            let plain = try CLI.run(["inspect", path])
            if let app = e.app {
                XCTAssertEqual(plain.status, 0, "\(name): \(plain.stdout)")
                XCTAssertTrue(plain.stdout.contains("recognised as: \(app)"), "\(name): \(plain.stdout)")
                XCTAssertTrue(plain.stdout.contains("\(e.frames) used"), "\(name): \(plain.stdout)")
            } else {
                XCTAssertEqual(plain.status, 1, "\(name) was read without a header: \(plain.stdout)")
                XCTAssertTrue(plain.stdout.contains("--columns"), plain.stdout)
                let r = try CLI.run(["replay", path, "--fast", "--midi", "stdout"])
                XCTAssertEqual(r.status, 1)
                XCTAssertEqual(r.stdout, "", "\(name): a stream came out of a file that was refused")
                let named = try CLI.run(["inspect", path, "--columns", e.columns!])
                XCTAssertEqual(named.status, 0, "\(name): \(named.stdout)")
                XCTAssertTrue(named.stdout.contains("\(e.frames) used"), "\(name): \(named.stdout)")
                XCTAssertTrue(named.stdout.contains("time column: \"time\" in s"), "\(name): \(named.stdout)")
            }
            // the rate each is known to have
            if name.contains("800hz") {
                XCTAssertTrue(
                    try CLI.run(["inspect", path, "--columns", e.columns!]).stdout.contains(
                        "assumed: time \"time\" in s (a rate of 79"))
            }
            if name.contains("accel-800hz") {
                let r = try CLI.run(["inspect", path, "--columns", e.columns!])
                XCTAssertTrue(r.stdout.contains("acceleration with gravity (accel.*) in G"), r.stdout)
            }
            if name.contains("rotation-200hz") {
                let r = try CLI.run(["inspect", path, "--columns", e.columns!])
                XCTAssertTrue(r.stdout.contains("rotation rate in rad/s"), r.stdout)
            }
            checked.append(name)
        }
        print("InspectCLITests: field recordings checked: \(checked)")
        XCTAssertFalse(checked.isEmpty)
    }
}
