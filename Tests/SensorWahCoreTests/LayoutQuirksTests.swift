import XCTest
@testable import SensorWahCore

/// HyperIMU chip names and missing timestamps, SensorLog subsets timed by `loggingTime`,
/// SensorLog JSON lines, Sensorstream whole-second timestamps and `NaN`.
final class HyperIMUChipTests: XCTestCase {
    let g = 9.80665

    func testAccelerometerChipBesideGravityGPSAndNMEA() {
        let h = "timestamp,ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z,GRAVITY.x,GRAVITY.y,GRAVITY.z,GPS.lat,GPS.lon,NMEA"
        let p = parseLines([
            h, "1510411143791,0,0,9.80665,0,0,9.7,48.1,11.5,$GPGGA",
            "1510411143811,4.903325,0,9.80665,0,0,9.7,48.1,11.5,$GPGGA,123519,4807.038,N"
        ])
        XCTAssertEqual(p.results, [.header, .frame, .frame])
        XCTAssertEqual(p.frames[0][.accelZ], 1, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1][.accelX], 0.5, accuracy: 1e-12)
        XCTAssertEqual(p.frames[0][.gravityZ], 9.7 / g, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.02, accuracy: 1e-9)
    }

    func testTextColumnBeforeTheMotionColumnsMakesMisalignedRowsUnusable() {
        let h = "timestamp,NMEA,ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z"
        let p = parseLines([h, "1510411143791,$GPGGA,0,0,9.80665", "1510411143811,$GPGGA,123519,N,0,0,9.80665"])
        XCTAssertEqual(p.results, [.header, .frame, .skipped(.malformed)], "shifted fields are never read as motion")
    }

    func testChipNamesClassification() {
        func kind(_ s: String) -> HyperIMUColumns.Classification { HyperIMUColumns.classify(Substring(s)) }
        XCTAssertEqual(kind("ST_LIS3DHTR"), .quantity(.accelX, 1 / g))
        XCTAssertEqual(kind("BMA253"), .quantity(.accelX, 1 / g))
        XCTAssertEqual(kind("BMI160_ACC"), .quantity(.accelX, 1 / g))
        XCTAssertEqual(kind("BMI160 Gyroscope"), .quantity(.gyroX, 1))
        XCTAssertEqual(kind("ICM20690_GYRO"), .quantity(.gyroX, 1))
        XCTAssertEqual(kind("BMI160"), .ambiguous)
        XCTAssertEqual(kind("LSM6DSO"), .ambiguous)
        XCTAssertEqual(kind("MPU6500"), .ambiguous)
        XCTAssertEqual(kind("LIS3MDL"), .ignored, "a magnetometer, though its name starts with LIS")
        XCTAssertEqual(kind("AK09918 Magnetometer"), .ignored)
        XCTAssertEqual(kind("MPL_Rotation_Vector"), .ignored)
        XCTAssertEqual(kind("GPS"), .ignored)
    }

    func testChipThatHoldsAccelerometerAndGyroscopeIsRefused() {
        let p = parseLines(["timestamp,BMI160.x,BMI160.y,BMI160.z", "1510411143791,0,0,9.8"])
        XCTAssertEqual(p.results, [.skipped(.unknownHeader), .skipped(.underUnknownHeader)])
        XCTAssertTrue(p.parser.refusal?.contains("\"BMI160\"") ?? false, p.parser.refusal ?? "")
        // beside a usable column it is left out, with a note
        let q = parseLines([
            "timestamp,BMI160.x,BMI160.y,BMI160.z,ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z",
            "1510411143791,5,5,5,0,0,9.80665"
        ])
        XCTAssertEqual(q.frames.first?[.accelZ] ?? 0, 1, accuracy: 1e-12)
        XCTAssertEqual(q.parser.headerNotes.count, 1)
        XCTAssertTrue(q.parser.headerNotes.first?.contains("BMI160") ?? false)
    }

    func testNoTimestampColumnUsesTheAssumedRateAndSaysSo() {
        let p = parseLines(["ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z", "0,0,9.80665", "0,0,9.80665", "0,0,9.80665"])
        XCTAssertEqual(p.frames.count, 3)
        XCTAssertEqual(p.frames[2].time(.accelerometer), 0.04, accuracy: 1e-12, "default period 20 ms")
        XCTAssertTrue(p.parser.timingFromAssumedRate)
        XCTAssertEqual(p.parser.stats.assumedTiming, 3)
        XCTAssertTrue(p.parser.timingNote?.contains("assumed rate") ?? false)
        XCTAssertTrue(p.parser.timingNote?.contains("default sample period") ?? false)

        let stated = parseLines([
            "@ HyperIMU - ianovir - 2017", "@ Date: x, Sampling Time: 50ms", "",
            "ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z", "0,0,9.8", "0,0,9.8"
        ])
        XCTAssertEqual(stated.frames[1].time(.accelerometer), 0.05, accuracy: 1e-12)
        XCTAssertTrue(stated.parser.timingNote?.contains("stated in the file") ?? false)

        let timed = parseLines(["timestamp,ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z", "1510411143791,0,0,9.8"])
        XCTAssertFalse(timed.parser.timingFromAssumedRate)
        XCTAssertNil(timed.parser.timingNote)
    }
}

final class SensorLogSubsetAndJSONTests: XCTestCase {
    func testSubsetWithoutSinceRebootIsTimedByLoggingTime() {
        let lines = [
            "loggingTime(txt);motionUserAccelerationX(G);motionUserAccelerationY(G);motionUserAccelerationZ(G)",
            "2024-04-09T12:44:46.093+02:00;0,01;0,02;-0,03",
            "2024-04-09T12:44:46.113+02:00;0.5;0;0",
            "2024-04-09T12:44:46.113+02:00;0.6;0;0",
            "2024-04-09T12:44:47.000+02:00;0.7;0;0"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.header, .frame, .frame, .held, .frame])
        XCTAssertEqual(p.frames[0][.userX], 0.01, "decimal comma with a semicolon separator")
        XCTAssertEqual(p.frames[0][.userZ], -0.03)
        XCTAssertEqual(p.frames[1].time(.motion), 0.02, accuracy: 1e-6)
        XCTAssertEqual(p.frames[2].time(.motion), 0.907, accuracy: 1e-6)
        XCTAssertEqual(p.parser.timeOrigin ?? 0, 1_712_659_486.093, accuracy: 1e-6)
    }

    func testSinceRebootStillWinsOverLoggingTime() {
        let h =
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),motionUserAccelerationX(G)"
        let p = parseLines([
            h, "2024-04-09T12:44:46.093+02:00,100.0,0.5,0.25", "2024-04-09T12:44:47.093+02:00,100.01,0.5,0.25"
        ])
        XCTAssertEqual(p.frames.count, 2)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-9)
        XCTAssertEqual(
            p.frames[1].newGroups, SensorGroup.accelerometer.bit,
            "the motion group has no timestamp of its own: not timed from another clock")
    }

    func testISO8601Variants() {
        func t(_ s: String) -> Double? { var s = s; return s.withUTF8 { TimeText.iso8601($0.baseAddress!, $0.count) } }
        XCTAssertEqual(t("2024-04-09T12:44:46.093+02:00")!, 1_712_659_486.093, accuracy: 1e-6)
        XCTAssertEqual(t("2024-04-09T10:44:46.093Z")!, 1_712_659_486.093, accuracy: 1e-6)
        XCTAssertEqual(t("2024-04-09 10:44:46.093+0000")!, 1_712_659_486.093, accuracy: 1e-6)
        XCTAssertEqual(t("1970-01-01T00:00:00Z"), 0)
        XCTAssertNil(t("2024-04-09"))
        XCTAssertNil(t("2024-13-09T10:44:46Z"))
        XCTAssertNil(t("12.5"))
    }

    func testJSONLinesWithStringsNumbersAndNestedValues() {
        let a =
            "{\"loggingTime\":\"2024-04-09T12:44:46.093+02:00\",\"accelerometerTimestamp_sinceReboot\":\"12.30\",\"accelerometerAccelerationX\":\"0.5\",\"accelerometerAccelerationY\":-0.25,\"accelerometerAccelerationZ\":\"-1\",\"motionTimestamp_sinceReboot\":12.3,\"motionRotationRateX\":\"1.5\",\"motionRotationRateY\":\"0\",\"motionRotationRateZ\":\"0\",\"label\":\"a, \\\"quoted\\\" }\",\"nested\":{\"a\":[1,2,{\"b\":\"}\"}]},\"motionPitch\":null}"
        let b =
            "{ \"accelerometerTimestamp_sinceReboot\": 12.31, \"accelerometerAccelerationX\": 0.75, \"motionTimestamp_sinceReboot\": 12.31, \"motionRotationRateX\": 2 }"
        let p = parseLines([a, b])
        XCTAssertEqual(p.results, [.frame, .frame])
        XCTAssertEqual(p.parser.detectedFormat, .sensorlog)
        XCTAssertEqual(p.frames[0][.accelX], 0.5)
        XCTAssertEqual(p.frames[0][.accelY], -0.25)
        XCTAssertEqual(p.frames[0][.accelZ], -1)
        XCTAssertEqual(p.frames[0][.gyroX], 1.5, "no raw gyro: the motion rate feeds gyro")
        XCTAssertTrue(p.frames[0][.pitch].isNaN)
        XCTAssertTrue(p.frames[0].has(.gyro) && p.frames[0].has(.motion))
        XCTAssertEqual(p.frames[1][.accelX], 0.75)
        XCTAssertEqual(p.frames[1][.gyroX], 2)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-9)
    }

    func testJSONWithOnlyLoggingTime() {
        let p = parseLines([
            "{\"loggingTime\":\"2024-04-09T12:44:46.093+02:00\",\"motionUserAccelerationX\":\"0.1\"}",
            "{\"loggingTime\":\"2024-04-09T12:44:46.133+02:00\",\"motionUserAccelerationX\":\"0.2\"}"
        ])
        XCTAssertEqual(p.frames.map { $0[.userX] }, [0.1, 0.2])
        XCTAssertEqual(p.frames[1].time(.motion), 0.04, accuracy: 1e-6)
    }

    func testJSONThatIsNotSensorLog() {
        let p = parseLines([
            "{\"a\":1,\"b\":\"x\"}", "{\"accelerometerAccelerationX\":",
            "{\"accelerometerAccelerationX\":\"abc\",\"accelerometerTimestamp_sinceReboot\":1}"
        ])
        XCTAssertEqual(p.results, [.skipped(.noLayout), .skipped(.malformed), .skipped(.malformed)])
        XCTAssertTrue(p.parser.refusal?.contains("\"a\"") ?? false)
    }
}

final class SensorstreamTimingTests: XCTestCase {
    func testWholeSecondTimestampsAndNaN() {
        let lines = [
            "1712345678, 3, 0.1, NaN, 9.80665, 4, NaN, NaN, NaN",
            "1712345678, 3, 0.2, NaN, 9.80665, 4, NaN, NaN, NaN",
            "1712345678, 3, 0.3, NaN, 9.80665, 4, 0.5, 0.5, 0.5",
            "1712345679, 3, 0.4, 0, 9.80665",
            "1712345679, 3, 0.5, 0, 9.80665"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.frame, .frame, .frame, .frame, .frame], "each row is a sample, not a repeat")
        XCTAssertEqual(p.parser.detectedFormat, .sensorstream)
        XCTAssertTrue(p.frames[0][.accelY].isNaN)
        XCTAssertFalse(p.frames[0].has(.gyro), "all-NaN gyro is no gyro sample")
        XCTAssertTrue(p.frames[2].has(.gyro))
        let times = p.frames.map { $0.time(.accelerometer) }
        XCTAssertEqual(times[0], 0)
        XCTAssertEqual(times[1], 0.02, accuracy: 1e-6)
        XCTAssertEqual(times[3], 1, accuracy: 1e-6)
        XCTAssertEqual(times[4], 1 + 1.0 / 3, accuracy: 1e-6, "spread at the previous second's row rate")
        XCTAssertEqual(p.parser.stats.assumedTiming, 3)
        XCTAssertNotNil(p.parser.timingNote)
    }

    func testFractionalTimestampsAreUntouched() {
        let p = parseLines(["890.71558, 3, 0, 0, 9.8", "890.73558, 3, 0, 0, 9.8"])
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.02, accuracy: 1e-9)
        XCTAssertEqual(p.parser.stats.assumedTiming, 0)
    }
}
