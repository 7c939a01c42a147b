import XCTest
@testable import SensorWahCore

/// phyphox CSV exports and Physics Toolbox Sensor Suite files, written here in each app's
/// documented layout.
final class PhyphoxTests: XCTestCase {
    let g = 9.80665

    func testLinearAccelerationIsUserAccelerationWithJavaStyleNumbers() {
        let lines = [
            "\"Time (s)\",\"Linear Acceleration x (m/s^2)\",\"Linear Acceleration y (m/s^2)\",\"Linear Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"",
            "0.000000000E0,9.806650000E0,-4.903325000E0,0.000000000E0,1.096E1",
            "1.015325254E-2,1.961330000E1,0.000000000E0,-9.806650000E-1,1.9E1"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.header, .frame, .frame])
        XCTAssertEqual(p.parser.detectedFormat, .phyphox)
        XCTAssertEqual(p.frames[0][.userX], 1, accuracy: 1e-12)
        XCTAssertEqual(p.frames[0][.userY], -0.5, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1][.userX], 2, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1][.userZ], -0.1, accuracy: 1e-12)
        XCTAssertTrue(p.frames[0][.accelX].isNaN, "gravity removed: not accel.*")
        XCTAssertEqual(p.frames[1].time(.motion), 0.01015325254, accuracy: 1e-12)
    }

    func testAccelerationWithGravityAndGyroscope() {
        let acc = parseLines([
            "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"",
            "0.0E0,0.0E0,0.0E0,9.80665E0,9.80665E0"
        ])
        XCTAssertEqual(acc.frames.first?[.accelZ] ?? 0, 1, accuracy: 1e-12)
        XCTAssertTrue(acc.frames.first?.has(.accelerometer) ?? false)
        let gyro = parseLines([
            "\"Time (s)\",\"Gyroscope x (rad/s)\",\"Gyroscope y (rad/s)\",\"Gyroscope z (rad/s)\",\"Absolute (rad/s)\"",
            "0.0E0,1.5E0,-2.5E-1,0.0E0,1.52E0", "1.0E-2,1.0E0,0.0E0,0.0E0,1.0E0"
        ])
        XCTAssertEqual(gyro.frames.map { $0[.gyroX] }, [1.5, 1.0])
        XCTAssertEqual(gyro.frames[0][.gyroY], -0.25)
        XCTAssertEqual(gyro.frames[1].time(.gyro), 0.01, accuracy: 1e-12)
    }

    func testSemicolonAndDecimalCommaExport() {
        let lines = [
            "\"Time (s)\";\"Acceleration x (m/s^2)\";\"Acceleration y (m/s^2)\";\"Acceleration z (m/s^2)\"",
            "0,000000000E0;1,015325254E0;-4,903325E0;9,80665E0",
            "1,000000000E-2;0,0E0;0,0E0;-9,80665E0"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.header, .frame, .frame])
        XCTAssertEqual(p.frames[0][.accelX], 1.015325254 / g, accuracy: 1e-12)
        XCTAssertEqual(p.frames[0][.accelY], -0.5, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1][.accelZ], -1, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-12)
    }

    func testTabSeparatedWithEitherDecimalMark() {
        let h = "\"Time (s)\"\t\"Gyroscope x (rad/s)\"\t\"Gyroscope y (rad/s)\"\t\"Gyroscope z (rad/s)\""
        let p = parseLines([h, "0.0\t0.5\t0.25\t0", "0,02\t0,75\t-0,5\t1E-1"])
        XCTAssertEqual(p.results, [.header, .frame, .frame])
        XCTAssertEqual(p.frames.map { $0[.gyroX] }, [0.5, 0.75])
        XCTAssertEqual(p.frames[1][.gyroY], -0.5)
        XCTAssertEqual(p.frames[1][.gyroZ], 0.1, accuracy: 1e-15)
        XCTAssertEqual(p.frames[1].time(.gyro), 0.02, accuracy: 1e-12)
    }

    func testPlainXYZColumnsInMetresPerSecondSquaredAreRefusedWithoutAHint() {
        let lines = ["\"Time (s)\",\"X (m/s^2)\",\"Y (m/s^2)\",\"Z (m/s^2)\"", "0.0E0,0.0E0,0.0E0,9.80665E0"]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.skipped(.unknownHeader), .skipped(.underUnknownHeader)])
        let message = p.parser.refusal ?? ""
        XCTAssertTrue(message.contains("\"X (m/s^2)\""), message)
        XCTAssertTrue(message.contains("gravity"), message)
        // with the sensor said (e.g. from the file name "Acceleration with g ...csv")
        let named = parseLines(
            lines, options: .init(sensor: LoggedSensor.fromFileName("Acceleration with g 2024-05-01.csv")))
        XCTAssertEqual(named.frames.first?[.accelZ] ?? 0, 1, accuracy: 1e-12)
        let linear = parseLines(lines, options: .init(sensor: .userAcceleration))
        XCTAssertEqual(linear.frames.first?[.userZ] ?? 0, 1, accuracy: 1e-12)
    }

    func testPlainXYZColumnsInRadiansPerSecondAreTheGyroscope() {
        let p = parseLines(["\"Time (s)\",\"X (rad/s)\",\"Y (rad/s)\",\"Z (rad/s)\"", "0.0E0,1.0E0,2.0E0,3.0E0"])
        XCTAssertEqual(p.frames.first?[.gyroZ], 3)
    }

    func testATranslatedHeaderIsRefusedNotGuessed() {
        let p = parseLines([
            "\"Zeit (s)\";\"Beschleunigung x (m/s^2)\";\"Beschleunigung y (m/s^2)\";\"Beschleunigung z (m/s^2)\"",
            "0,0;1,0;2,0;3,0"
        ])
        XCTAssertEqual(p.results, [.skipped(.unknownHeader), .skipped(.underUnknownHeader)])
        XCTAssertTrue(p.parser.refusal?.contains("\"Zeit (s)\"") ?? false)
    }
}

final class PhysicsToolboxTests: XCTestCase {
    let g = 9.80665
    let header = "time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz,"

    func testClockTimeGForceLinearAccelerationAndGyro() {
        let lines = [
            "", header,
            "10:21:17:455,0.0123,-0.02,1.0012,0.980665,0,-1.961330,0.1,0.2,0.3,",
            "10:21:17:465,0.0100,-0.01,0.9990,0,0,0,0.1,0.2,0.3,",
            "10:21:18:005,0.0100,-0.01,0.9990,0,0,0,0.1,0.2,0.4,"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.blank, .header, .frame, .frame, .frame])
        XCTAssertEqual(p.parser.detectedFormat, .physicstoolbox)
        let f = p.frames[0]
        XCTAssertEqual(f[.accelX], 0.0123, "gF is already in G")
        XCTAssertEqual(f[.accelZ], 1.0012)
        XCTAssertEqual(f[.userX], 0.1, accuracy: 1e-12, "a is m/s^2")
        XCTAssertEqual(f[.userZ], -0.2, accuracy: 1e-12)
        XCTAssertEqual(f[.gyroZ], 0.3)
        XCTAssertTrue(f.has(.accelerometer) && f.has(.gyro) && f.has(.motion))
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-9, "the last clock field is milliseconds")
        XCTAssertEqual(p.frames[2].time(.gyro), 0.55, accuracy: 1e-9)
        XCTAssertEqual(p.parser.stats.totalSkipped, 0)
    }

    func testClockTimeCarriesOverMidnight() {
        let p = parseLines([header, "23:59:59:995,0,0,1,0,0,0,0,0,0,", "00:00:00:005,0,0,1,0,0,0,0,0,0,"])
        XCTAssertEqual(p.frames.count, 2)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-9)
    }

    func testNumericSecondsTimeAndGForceOnlyFiles() {
        let p = parseLines(["time,gFx,gFy,gFz,TgF", "0.000,0,0,1,1", "0.010,0,0.5,1,1.1"])
        XCTAssertEqual(p.frames.count, 2)
        XCTAssertEqual(p.frames[1][.accelY], 0.5)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-12)
    }

    func testSemicolonDecimalComma() {
        let p = parseLines(["time;gFx;gFy;gFz;", "0,000;0,5;0;1,25;", "0,010;0,25;0;1;"])
        XCTAssertEqual(p.frames.map { $0[.accelX] }, [0.5, 0.25])
        XCTAssertEqual(p.frames[0][.accelZ], 1.25)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-12)
    }
}
