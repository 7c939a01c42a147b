import Foundation
import XCTest

/// Every app's file layout, written here from the apps' documented layouts (a slow wrist tilt
/// of ±60° over 3 s, 6 s at 50 Hz), replayed by the real binary: each must give a moving CC
/// stream as long as the recording, and an unknown header one clear error and no stream.
final class FormatsCLITests: XCTestCase {
    static let g = 9.80665
    static let rate = 50.0
    static let count = 300
    static let duration = Double(count - 1) / rate
    static func angle(_ t: Double) -> Double { (60 * Double.pi / 180) * sin(2 * Double.pi * t / 3) }
    static func times() -> [Double] { (0..<count).map { Double($0) / rate } }
    static func f(_ v: Double, _ digits: Int = 6) -> String { String(format: "%.\(digits)f", v) }

    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-formats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ lines: [String], terminator: String = "\n") throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (lines.joined(separator: terminator) + terminator).write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    struct Stream { var values: [Int]; var times: [Double]; var summary: String }

    func replay(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Stream {
        let r = try CLI.run(["replay"] + args + ["--fast", "--midi", "stdout"], timeout: 60)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        var values: [Int] = [], times: [Double] = []
        for l in CLI.lines(r.stdout) {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any],
                let v = obj["value"] as? Int, let t = obj["t"] as? Double
            else { continue }
            values.append(v); times.append(t)
        }
        return Stream(values: values, times: times, summary: r.stderr)
    }

    /// The stream moves over most of the range and lasts as long as the recording.
    func assertPlays(_ s: Stream, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThan(
            Set(s.values).count, 50, "\(what): the CC stream hardly moves\n\(s.summary)", file: file, line: line)
        XCTAssertGreaterThan(
            (s.values.max() ?? 0) - (s.values.min() ?? 0), 70, "\(what): narrow sweep\n\(s.summary)", file: file,
            line: line)
        XCTAssertEqual(
            s.times.last ?? 0, Self.duration, accuracy: 0.05,
            "\(what): the stream's length differs from the recording's\n\(s.summary)", file: file, line: line)
    }

    func testSensorLoggerFolderIsMergedOnTime() throws {
        let t0: Int64 = 1_700_000_000_000_000_000
        func sensorFile(_ name: String, _ xyz: (Double) -> (Double, Double, Double), start: Double = 0) throws {
            var lines = ["time,seconds_elapsed,z,y,x"]
            for t in Self.times() where t >= start {
                let (x, y, z) = xyz(t)
                lines.append("\(t0 + Int64(t * 1e9)),\(Self.f(t)),\(Self.f(z)),\(Self.f(y)),\(Self.f(x))")
            }
            _ = try write("export/\(name)", lines)
        }
        let g = Self.g
        try sensorFile("TotalAcceleration.csv", { t in (sin(Self.angle(t)) * g, 0, -cos(Self.angle(t)) * g) })
        try sensorFile("Gravity.csv", { t in (sin(Self.angle(t)) * g, 0, -cos(Self.angle(t)) * g) })
        // the gyroscope file starts a second later: it keeps its offset on the common clock
        try sensorFile("Gyroscope.csv", { t in (0, 2.0 * cos(2 * Double.pi * t / 3), 0) }, start: 1)
        _ = try write(
            "export/Metadata.csv", ["version,device name,recording epoch time,platform", "3,iPhone,1700000000000,ios"])
        let folder = dir.appendingPathComponent("export").path
        let s = try replay([folder])
        assertPlays(s, "Sensor Logger accel.x (TotalAcceleration, m/s² -> G)")
        XCTAssertTrue(s.summary.contains("(sensorlogger)"), s.summary)
        XCTAssertTrue(s.summary.contains("3 files merged") || s.summary.contains("4 files merged"), s.summary)
        XCTAssertTrue(s.summary.contains("Metadata.csv: left out"), s.summary)
        // the axis order z,y,x: a full tilt reads ±sin 60° = ±0.87 G on x, so the sweep spans about 10..118
        XCTAssertEqual(Double(s.values.max() ?? 0), 64 + 0.866 * 63.5, accuracy: 3, s.summary)
        // the gyroscope alone drives gyro.y, from its own start one second in
        let gyro = try replay([folder, "--map", "gyro.y cc=12 range=-3..3 bipolar"])
        XCTAssertGreaterThan(Set(gyro.values).count, 20, gyro.summary)
        let firstMove = zip(gyro.times, gyro.values).first { $0.1 != 64 }?.0 ?? 0
        XCTAssertGreaterThanOrEqual(firstMove, 0.99, "gyro.y moved before its file started")
    }

    func testPhyphoxCommaAndSemicolonDecimalCommaExports() throws {
        let g = Self.g
        var comma = [
            "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\""
        ]
        var semi = [
            "\"Time (s)\";\"Linear Acceleration x (m/s^2)\";\"Linear Acceleration y (m/s^2)\";\"Linear Acceleration z (m/s^2)\""
        ]
        for t in Self.times() {
            let x = sin(Self.angle(t)) * g
            comma.append([t, x, 0, cos(Self.angle(t)) * g, g].map { String(format: "%.9E", $0) }.joined(separator: ","))
            semi.append(
                [t, x * 0.5, 0, 0.1].map { String(format: "%.9E", $0).replacingOccurrences(of: ".", with: ",") }.joined(
                    separator: ";"))
        }
        let a = try replay([try write("Acceleration with g.csv", comma)])
        assertPlays(a, "phyphox acceleration with g -> accel.x")
        XCTAssertTrue(a.summary.contains("(phyphox)"), a.summary)
        // linear acceleration is user.*, not accel.*: the default accel.x mapping sees nothing
        let path = try write("Linear Acceleration.csv", semi)
        let u = try replay([path, "--map", "user.x cc=11 range=-0.5..0.5 bipolar"])
        assertPlays(u, "phyphox linear acceleration (semicolon, decimal comma) -> user.x")
        let none = try replay([path])
        XCTAssertTrue(Set(none.values).count <= 1, "linear acceleration was read as accel.x: \(Set(none.values))")
    }

    func testPhysicsToolboxSuite() throws {
        var lines = ["", "time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz,"]
        for t in Self.times() {
            lines.append(
                "\(Self.f(t, 3)),\(Self.f(sin(Self.angle(t)), 4)),0.0000,\(Self.f(cos(Self.angle(t)), 4)),0.01,0.0,0.0,0.0,0.1,0.0,"
            )
        }
        // accel.x named: the default mapping is the fused tilt, re-zeroed at start
        let s = try replay([try write("physics.csv", lines), "--map", "accel.x cc=11 range=-1..1 bipolar"])
        assertPlays(s, "Physics Toolbox gFx -> accel.x")
        XCTAssertTrue(s.summary.contains("(physicstoolbox)"), s.summary)
    }

    func testHyperIMUChipNamedColumnsWithAndWithoutTimestamps() throws {
        let g = Self.g
        var timed = ["timestamp,ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z,GRAVITY.x,GRAVITY.y,GRAVITY.z"]
        var untimed = ["ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z"]
        for t in Self.times() {
            let x = Self.f(sin(Self.angle(t)) * g, 4), z = Self.f(cos(Self.angle(t)) * g, 4)
            timed.append("\(1_700_000_000_000 + Int(t * 1000)),\(x),0.0,\(z),\(x),0.0,\(z)")
            untimed.append("\(x),0.0,\(z)")
        }
        let a = try replay([try write("hyper.csv", timed, terminator: "\r\n")])
        assertPlays(a, "HyperIMU chip-named accelerometer")
        let b = try replay([try write("hyper-untimed.csv", untimed)])
        assertPlays(b, "HyperIMU without timestamps at the default 50 Hz")
        XCTAssertTrue(b.summary.contains("timing from the assumed rate"), b.summary)
        // the user gives the rate: twice the rate, half the length
        let c = try replay([try write("hyper-untimed2.csv", untimed), "--sample-rate", "100"])
        XCTAssertEqual(c.times.last ?? 0, Self.duration / 2, accuracy: 0.05, c.summary)
    }

    func testSensorLogSubsetTimedByLoggingTimeAndJSONLines() throws {
        var subset = [
            "loggingTime(txt);motionUserAccelerationX(G);motionUserAccelerationY(G);motionUserAccelerationZ(G)"
        ]
        var json: [String] = []
        for t in Self.times() {
            let ms = Int((t * 1000).rounded())
            subset.append(
                String(
                    format: "2024-04-09T12:44:%02d.%03d+02:00;%@;0.0;0.0", 46 + ms / 1000, ms % 1000,
                    Self.f(sin(Self.angle(t)) * 0.8, 5).replacingOccurrences(of: ".", with: ",")))
            json.append(
                "{\"loggingTime\":\"2024-04-09T12:44:46.093+02:00\",\"accelerometerTimestamp_sinceReboot\":\"\(1000 + t)\",\"accelerometerAccelerationX\":\(sin(Self.angle(t))),\"accelerometerAccelerationY\":\"0\",\"accelerometerAccelerationZ\":\(-cos(Self.angle(t)))}"
            )
        }
        let a = try replay([try write("subset.csv", subset), "--map", "user.x cc=11 range=-1..1 bipolar"])
        assertPlays(a, "SensorLog subset (loggingTime, semicolon, decimal comma)")
        let b = try replay([try write("stream.json", json)])
        assertPlays(b, "SensorLog JSON lines")
    }

    func testHeaderlessSensorstreamRowsWithWholeSecondsAndNaN() throws {
        var rows: [String] = []
        for t in Self.times() {
            rows.append(
                "\(1_700_000_000 + Int(t)), 3, \(Self.f(sin(Self.angle(t)) * Self.g, 3)), 0.000, \(Self.f(cos(Self.angle(t)) * Self.g, 3)), 4, NaN, NaN, NaN"
            )
        }
        let s = try replay([try write("sensorstream.csv", rows)])
        assertPlays(s, "Sensorstream whole-second rows")
        XCTAssertTrue(s.summary.contains("(sensorstream)"), s.summary)
    }

    /// Never a silent misreading: an unknown header is refused with its columns and what to do.
    func testUnknownHeaderIsOneClearErrorAndNoStream() throws {
        let path = try write("mystery.csv", ["when,foo,bar", "1,2,3", "2,3,4"])
        let r = try CLI.run(["replay", path, "--fast", "--midi", "stdout"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdout, "", "a stream came out of a file that was not understood")
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        XCTAssertEqual(errors.count, 1, r.stderr)
        for part in ["\"when\"", "\"foo\"", "--format", "--columns"] {
            XCTAssertTrue(r.stderr.contains(part), "missing \(part): \(r.stderr)")
        }
        // a Sensor Logger file whose name does not say which sensor it holds: refused, not guessed
        let anon = try write("take 3.csv", ["time,seconds_elapsed,z,y,x", "1700000000000000000,0,1,2,3"])
        let a = try CLI.run(["replay", anon, "--fast"])
        XCTAssertEqual(a.status, 1, a.stderr)
        XCTAssertEqual(a.stdout, "")
        XCTAssertTrue(a.stderr.contains("--sensor") || a.stderr.contains("file name"), a.stderr)
        let named = try CLI.run(["replay", anon, "--fast", "--sensor", "accel"])
        XCTAssertEqual(named.status, 0, named.stderr)
    }

    /// Seconds read as milliseconds (or the reverse) make an implausible rate: the summary warns.
    func testImplausibleRateIsWarned() throws {
        var lines = [
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"
        ]
        for (i, t) in Self.times().enumerated() {
            // a logger that wrote milliseconds into a seconds column
            lines.append("x,\(Int(t * 1000) + i * 0),\(Self.f(sin(Self.angle(t)))),0,-1")
        }
        let s = try replay([try write("ms.csv", lines), "--max-gap", "100"])
        XCTAssertTrue(s.summary.contains("warning:"), s.summary)
        XCTAssertTrue(s.summary.contains("milliseconds"), s.summary)
    }
}
