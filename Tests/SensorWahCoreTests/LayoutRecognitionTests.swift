import XCTest
@testable import SensorWahCore

/// The recognition table on files: test logs written here in each layout (from the apps'
/// documented layouts), read with their name and head as a preview, as `replay` reads a file.
final class LayoutRecognitionTests: XCTestCase {
    static let g = 9.80665
    /// A slow wrist tilt of ±60° over 3 s, 50 Hz, 6 s.
    static func angle(_ t: Double) -> Double { (60 * Double.pi / 180) * sin(2 * Double.pi * t / 3) }
    static let times = (0..<300).map { Double($0) / 50 }
    static func f(_ v: Double, _ digits: Int = 6) -> String { String(format: "%.\(digits)f", v) }

    /// Parses `lines` as the file `name`: its head is the preview.
    func parseFile(_ name: String, _ lines: [String], options: ParserOptions = .init()) -> Parsed {
        var o = options
        o.preview = InputPreview(fileName: name, lines: lines)
        return parseLines(lines, options: o)
    }

    func accelX(_ p: Parsed) -> [Double] { p.frames.map { $0[.accelX] } }

    func assertTilt(
        _ p: Parsed, _ q: Quantity = .accelX, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(p.frames.count, 300, "\(what): \(p.parser.refusal ?? "")", file: file, line: line)
        guard p.frames.count == 300 else { return }
        for (k, t) in Self.times.enumerated() where k % 37 == 0 {
            XCTAssertEqual(
                p.frames[k][q], sin(Self.angle(t)), accuracy: 1e-3, "\(what) at \(t)", file: file, line: line)
        }
        XCTAssertEqual(p.parser.stats.lastTime, 5.98, accuracy: 1e-6, what, file: file, line: line)
    }

    // MARK: generic time + axes

    func testGenericMillisecondsXYZInMetresPerSecondSquared() {
        let lines =
            ["Milliseconds,X,Y,Z"]
            + Self.times.map { t in
                "\(Int((t * 1000).rounded())),\(Self.f(sin(Self.angle(t)) * Self.g)),0.01,\(Self.f(-cos(Self.angle(t)) * Self.g))"
            }
        let p = parseFile("phone.csv", lines)
        XCTAssertEqual(p.parser.detectedFormat, .generic)
        assertTilt(p, .accelX, "Milliseconds,X,Y,Z")
        let note = p.parser.headerNotes.joined()
        XCTAssertTrue(note.contains("ms (its name)") && note.contains("m/s²") && note.contains("with gravity"), note)
    }

    func testGenericTimeUnitFromTheRateWhenTheNameDoesNotSay() {
        for (unit, scale) in [("s", 1.0), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)] {
            let lines =
                ["time,x,y,z"]
                + Self.times.map { t in
                    "\(Self.f(t * scale, 3)),\(Self.f(sin(Self.angle(t)))),0.01,\(Self.f(-cos(Self.angle(t))))"
                }
            let p = parseFile("take.csv", lines)
            assertTilt(p, .accelX, "time in \(unit)")
            XCTAssertTrue(
                p.parser.headerNotes.joined().contains("in \(unit) (a rate of 50.0 Hz)"),
                "\(unit): \(p.parser.headerNotes)")
            XCTAssertTrue(p.parser.headerNotes.joined().contains("in G (mean magnitude"), "\(p.parser.headerNotes)")
        }
    }

    func testGenericEpochMillisecondsAndSixAxes() {
        let lines =
            ["timestamp,ax,ay,az,gx,gy,gz"]
            + Self.times.map { t in
                "\(1_700_000_000_000 + Int((t * 1000).rounded())),\(Self.f(sin(Self.angle(t)) * Self.g)),0,\(Self.f(-cos(Self.angle(t)) * Self.g)),0,\(Self.f(120 * cos(2 * Double.pi * t / 3))),0"
            }
        let p = parseFile("x.csv", lines)
        assertTilt(p, .accelX, "epoch ms")
        // deg/s by the magnitude: a peak of 120 is no rad/s rate
        XCTAssertEqual(p.frames[0][.gyroY], 120 * Double.pi / 180, accuracy: 1e-6)
        XCTAssertTrue(p.parser.headerNotes.joined().contains("epoch-like"), "\(p.parser.headerNotes)")
        XCTAssertTrue(p.parser.headerNotes.joined().contains("deg/s"), "\(p.parser.headerNotes)")
    }

    func testGenericUnitsFromTheNames() {
        let lines =
            ["t_s,accel_x_g,accel_y_g,accel_z_g,gyro_x_dps,gyro_y_dps,gyro_z_dps"]
            + Self.times.map { t in
                "\(Self.f(t)),\(Self.f(sin(Self.angle(t)))),0,\(Self.f(-cos(Self.angle(t)))),0,1,0"
            }
        let p = parseFile("x.csv", lines)
        assertTilt(p, .accelX, "named units")
        XCTAssertEqual(p.frames[0][.gyroY], Double.pi / 180, accuracy: 1e-9, "dps in the name wins over the magnitude")
    }

    func testGenericWithoutGravityGoesToUser() {
        let lines =
            ["time,ax,ay,az"] + Self.times.map { t in "\(Self.f(t)),\(Self.f(0.3 * sin(Self.angle(t)) * Self.g)),0,0" }
        let p = parseFile("x.csv", lines)
        XCTAssertEqual(p.frames.count, 300)
        XCTAssertEqual(p.frames[40][.userX], 0.3 * sin(Self.angle(Self.times[40])), accuracy: 1e-4)
        XCTAssertTrue(p.frames[40][.accelX].isNaN)
    }

    // MARK: names and data decide the sensor

    func testSensorWordAnywhereInTheFileName() {
        XCTAssertEqual(LoggedSensor.fromFileName("walk1_Accelerometer.csv"), .userAcceleration)
        XCTAssertEqual(LoggedSensor.fromFileName("Accelerometer 3.csv"), .userAcceleration)
        XCTAssertEqual(LoggedSensor.fromFileName("2023-06-09 12-44 run_Gyroscope.csv"), .gyroscope)
        XCTAssertEqual(LoggedSensor.fromFileName("/x/run 2_TotalAcceleration (1).csv"), .totalAcceleration)
        XCTAssertEqual(LoggedSensor.fromFileName("Linear Accelerometer.csv"), .userAcceleration)
        XCTAssertNil(LoggedSensor.fromFileName("walk1_AccelerometerUncalibrated.csv"))
        XCTAssertNil(LoggedSensor.fromFileName("walk1.csv"))
    }

    func sensorLoggerLines(withGravity: Bool) -> [String] {
        ["time,seconds_elapsed,z,y,x"]
            + Self.times.map { t in
                let x = sin(Self.angle(t)) * Self.g, z = withGravity ? -cos(Self.angle(t)) * Self.g : 0.02
                return
                    "\(1_700_000_000_000_000_000 + Int64((t * 1e9).rounded())),\(Self.f(t)),\(Self.f(z)),0.01,\(Self.f(withGravity ? x : x * 0.1))"
            }
    }

    func testSensorLoggerFileWithoutASensorNameIsDecidedByItsData() {
        let with = parseFile("take 3.csv", sensorLoggerLines(withGravity: true))
        assertTilt(with, .accelX, "Sensor Logger, no name, gravity in the data")
        XCTAssertTrue(with.parser.headerNotes.joined().contains("from the data"), "\(with.parser.headerNotes)")
        let without = parseFile("take 3.csv", sensorLoggerLines(withGravity: false))
        XCTAssertEqual(without.frames.count, 300)
        XCTAssertFalse(without.frames[40][.userX].isNaN, "no gravity: acceleration without gravity")
        // without a preview (a stream, a test) the name is all there is: refused
        let bare = parseLines(sensorLoggerLines(withGravity: true))
        XCTAssertEqual(bare.frames.count, 0)
        XCTAssertTrue(bare.parser.refusal?.contains("--sensor") ?? false)
        // --sensor wins over name and data
        let told = parseFile("Gravity.csv", sensorLoggerLines(withGravity: true), options: .init(sensor: .gyroscope))
        XCTAssertFalse(told.frames[3][.gyroX].isNaN)
    }

    func testRenamedFileIsCheckedAgainstItsData() {
        // a TotalAcceleration file saved as "walk1_Accelerometer.csv" (which means without gravity)
        let p = parseFile("walk1_Accelerometer.csv", sensorLoggerLines(withGravity: true))
        assertTilt(p, .accelX, "renamed")
        XCTAssertTrue(
            p.parser.headerNotes.joined().contains("but the data includes gravity"), "\(p.parser.headerNotes)")
    }

    func testPhyphoxPlainColumnsNamedAfterTheSensor() {
        // phyphox's own export names the file after the sensor: "Accelerometer.csv", with g
        let lines =
            ["\"Time (s)\",\"X (m/s^2)\",\"Y (m/s^2)\",\"Z (m/s^2)\""]
            + Self.times.map { t in
                "\(String(format: "%.9E", t)),\(String(format: "%.9E", sin(Self.angle(t)) * Self.g)),1.0E-2,\(String(format: "%.9E", -cos(Self.angle(t)) * Self.g))"
            }
        let p = parseFile("Accelerometer.csv", lines)
        XCTAssertEqual(p.parser.detectedFormat, .phyphox)
        assertTilt(p, .accelX, "phyphox Accelerometer.csv")
        let linear = parseFile(
            "Linear Accelerometer.csv", [lines[0]] + Self.times.map { t in "\(t),\(0.1 * sin(Self.angle(t))),0,0.01" })
        XCTAssertFalse(linear.frames[10][.userX].isNaN)
    }

    // MARK: re-saved files

    func sensorLog5() -> [String] {
        [
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"
        ]
            + Self.times.map { t in
                "2024-04-09T12:44:46.093+02:00,\(Self.f(1000 + t)),\(Self.f(sin(Self.angle(t)))),0,\(Self.f(-cos(Self.angle(t))))"
            }
    }

    func testResavedSensorLogReadsLikeTheOriginal() {
        let original = parseFile("log.csv", sensorLog5())
        assertTilt(original, .accelX, "original")
        let lines = sensorLog5()
        // pandas: an unnamed index column first, label columns added at the end
        let pandas = [",\(lines[0]),label,activity"] + lines.dropFirst().enumerated().map { "\($0),\($1),walk,1" }
        // read and re-saved twice: `Unnamed: 0`, quoted header, a BOM
        let twice =
            ["\u{FEFF}\"\",\"Unnamed: 0\"," + lines[0].split(separator: ",").map { "\"\($0)\"" }.joined(separator: ",")]
            + lines.dropFirst().enumerated().map { "\($0),\($0),\($1)" }
        for (what, variant) in [("pandas", pandas), ("twice", twice)] {
            let p = parseFile("log.csv", variant)
            XCTAssertEqual(accelX(p), accelX(original), what)
            XCTAssertEqual(p.frames.map { $0.latestTime }, original.frames.map { $0.latestTime }, what)
        }
        // Windows line ends, through the framer
        let crlf = Array((twice.joined(separator: "\r\n") + "\r\n").utf8)
        var o = ParserOptions()
        o.preview = InputPreview(fileName: "log.csv", head: crlf, complete: true)
        let (_, frames) = parseBytes(crlf, chunks: [7, 300], options: o)
        XCTAssertEqual(frames.map { $0[.accelX] }, accelX(original))
    }

    // MARK: header-less files

    func testHeaderlessFileIsRefusedNotGuessed() {
        let rows = (0..<20).map { i in
            ([String(1_500_000_000_000 + i * 20)] + Array(repeating: "0.1", count: 12)).joined(separator: ",")
        }
        let p = parseFile("log.csv", rows)
        XCTAssertEqual(p.frames.count, 0)
        let m = p.parser.refusal ?? ""
        XCTAssertTrue(m.contains("13 columns") && m.contains("--columns"), m)
        XCTAssertEqual(p.results.first, .skipped(.noLayout))
        XCTAssertEqual(p.parser.stats.firstSkipReason, .noLayout)
        XCTAssertEqual(p.parser.stats.firstSkipLine, 1)
        // a live stream (no preview) keeps HyperIMU's positional convention
        XCTAssertEqual(parseLines(rows).frames.count, 20)
        // an `@Sensors:` line says what the columns are: read
        let commented =
            ["@ HyperIMU - ianovir", "@Sensors: MPLAccelerometer - MPLGyroscope", "@ SamplingTime: 20ms"]
            + (0..<20).map { _ in "0.1,0.2,9.8,0,0,0" }
        XCTAssertEqual(parseFile("h.csv", commented).frames.count, 20)
    }

    func testColumnsOptionNamesAGenericHeaderlessFile() {
        let rows =
            [""]
            + Self.times.map { t in
                "\(Self.f(56257 + t)),\(Self.f(sin(Self.angle(t)))),0,\(Self.f(-cos(Self.angle(t))))"
            }
        let refused = parseFile("watch.csv", rows)
        XCTAssertEqual(refused.frames.count, 0)
        XCTAssertTrue(refused.parser.refusal?.contains("4 columns") ?? false)
        let p = parseFile("watch.csv", rows, options: .init(fallbackColumns: ["time", "ax", "ay", "az"]))
        XCTAssertEqual(p.parser.detectedFormat, .generic)
        assertTilt(p, .accelX, "--columns time,ax,ay,az")
        let gyro = parseFile("watch.csv", rows, options: .init(fallbackColumns: ["time", "gx", "gy", "gz"]))
        XCTAssertEqual(gyro.frames[40][.gyroX], sin(Self.angle(Self.times[40])), accuracy: 1e-5)
    }

    // MARK: the table's answer

    func testWinnerAndRunnerUpAreKept() {
        let p = parseLines([
            "timestamp,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z", "1500989996591,0,0,9.8"
        ])
        XCTAssertEqual(p.parser.choice?.winner.name, "HyperIMU")
        XCTAssertEqual(p.parser.choice?.runnerUp?.name, "Generic (time + axes)")
        let used = p.parser.columnsUsed
        XCTAssertEqual(used.map(\.feeds), ["time (every sample of the row)", "accel.x", "accel.y", "accel.z"])
        XCTAssertEqual(used[0].unit, "ms")
        XCTAssertEqual(used[1].unit, "m/s², converted to G")
    }
}
