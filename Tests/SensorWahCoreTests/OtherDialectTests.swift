import XCTest
@testable import SensorWahCore

final class OtherDialectTests: XCTestCase {
    let g = 9.80665

    func testHyperIMUWithCommentsHeaderAndEpochMilliseconds() {
        let lines = [
            "@ HyperIMU - ianovir - 2017", "@ Date: x, Sampling Time: 50ms", "",
            "timestamp,MPL_Gyroscope.x,MPL_Gyroscope.y,MPL_Gyroscope.z,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z",
            "1510411143791,0.1,0.2,0.3,9.80665,0,-4.903325",
            "1510411143841,0.1,0.2,0.3,0,0,0"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.comment, .comment, .blank, .header, .frame, .frame])
        XCTAssertEqual(p.parser.detectedFormat, .hyperimu)
        XCTAssertEqual(p.frames[0][.accelX], 1.0, accuracy: 1e-12, "m/s^2 converted to G")
        XCTAssertEqual(p.frames[0][.accelZ], -0.5, accuracy: 1e-12)
        XCTAssertEqual(p.frames[0][.gyroY], 0.2)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.05, accuracy: 1e-9)
    }

    func testHyperIMUWithoutHeaderUsesTheSensorsCommentAndSamplingTime() {
        let lines = [
            "@Sensors: MPLLinearAcceleration - MPLAccelerometer", "@ SamplingTime: 100ms",
            "0.1,0.2,0.3,9.80665,0,0", "0.1,0.2,0.3,4.903325,0,0"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.frames.count, 2)
        XCTAssertEqual(p.frames[0][.accelX], 1, accuracy: 1e-12)
        XCTAssertEqual(p.frames[0][.userX], 0.1 / g, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.1, accuracy: 1e-12)
    }

    func testHyperIMUWithoutAnyHintAssumesAccelerometerFirst() {
        let p = parseLines(["1500989996591,9.80665,0,0,0.5,0.5,0.5"])
        XCTAssertEqual(p.frames.first?[.accelX] ?? 0, 1, accuracy: 1e-12)
        XCTAssertEqual(p.frames.first?[.gyroX], 0.5)
    }

    func testSensorstreamTripletsTaggedById() {
        let lines = [
            "890.71558, 3,   0.297,  0.000,  9.80665, 4, 0.1, 0.2, 0.3, 5, 20.0, 30.0, 40.0",
            "890.73558, 3,   4.903325,  0.000,  9.80665"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.parser.detectedFormat, .sensorstream)
        XCTAssertEqual(p.frames.count, 2)
        XCTAssertEqual(p.frames[0][.accelZ], 1, accuracy: 1e-12)
        XCTAssertEqual(p.frames[0][.gyroZ], 0.3)
        XCTAssertTrue(p.frames[0].has(.gyro))
        XCTAssertFalse(p.frames[1].has(.gyro))
        XCTAssertEqual(p.frames[1][.accelX], 0.5, accuracy: 1e-12)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.02, accuracy: 1e-9)
    }

    func testSensorstreamGarbageIsSkipped() {
        let p = parseLines(
            ["890.7, 3, 0, 0, 9.8", "890.8, 3, zz, 0, 9.8", "890.9, 3, 0, 0, 9.8"],
            options: .init(format: .sensorstream))
        XCTAssertEqual(p.results, [.frame, .skipped(.malformed), .frame])
    }

    /// Found by tools/fuzz parser: a whole-number sensor id too large for Int (1e300, 1e19)
    /// trapped converting it; it is a malformed row like any other bad id.
    func testSensorstreamHugeSensorIdIsMalformedNotATrap() {
        let p = parseLines(
            ["890.7, 1e300, 0, 0, 9.8", "890.8, -1e19, 0, 0, 9.8", "890.9, 3, 0, 0, 9.8"],
            options: .init(format: .sensorstream))
        XCTAssertEqual(p.results, [.skipped(.malformed), .skipped(.malformed), .frame])
        let auto = parseLines(["890.7, 3, 0, 0, 9.8", "890.8, 1e300, 0, 0, 9.8"])
        XCTAssertEqual(auto.results.last, .skipped(.malformed))
    }

    func testFormatCanBeForced() {
        // a 4-field numeric line is HyperIMU (timestamp + one sensor) in auto mode
        let p = parseLines(["1500989996591,9.80665,0,0"], options: .init(format: .hyperimu))
        XCTAssertEqual(p.frames.count, 1)
        let s = parseLines(["1500989996591,9.80665,0,0"], options: .init(format: .sensorlog))
        XCTAssertEqual(s.results, [.skipped(.noLayout)])
    }
}

/// The real logs in ../shared/field-recordings, when that folder exists.
final class FieldRecordingTests: XCTestCase {
    func run(_ name: String) throws -> (SensorParser, [SensorFrame]) {
        let url = fieldRecordings.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("field recording \(name) not present at \(url.path)")
        }
        let bytes = try [UInt8](Data(contentsOf: url))
        print("field recording: \(name), \(bytes.count) bytes")
        return parseBytes(bytes, chunks: [4096, 333, 70_000])
    }

    func testIPhone82ColumnLog() throws {
        let (p, frames) = try run("sensorlog-iphone-82col-waterways-excerpt.csv")
        XCTAssertEqual(p.stats.headers, 1)
        XCTAssertEqual(p.stats.rows, 1500)
        XCTAssertEqual(p.stats.frames, 1500)
        XCTAssertEqual(p.stats.totalSkipped, 0)
        XCTAssertEqual(frames[0][.accelX], 0.410919189453125)
        XCTAssertEqual(frames[0][.gyroY], -2.045511245727539)
        XCTAssertEqual(frames[0][.pitch], 0.3239094699077552)
        XCTAssertTrue(frames.allSatisfy { $0.has(.accelerometer) })
        // ~16.8 Hz over 1500 rows: about 89 s of sensor time
        let span = frames.last!.time(.accelerometer) - frames.first!.time(.accelerometer)
        XCTAssertEqual(span, 1500 / 16.8, accuracy: 8)
    }

    func testHyperIMUFiles() throws {
        for (name, rows) in [
            ("hyperimu-2014-filetest.csv", 20), ("hyperimu-2017-with-timestamp.csv", 63),
            ("hyperimu-2017-y-impulse.csv", 371)
        ] {
            let (p, frames) = try run(name)
            XCTAssertEqual(p.detectedFormat, .hyperimu, name)
            XCTAssertEqual(p.stats.rows, rows, name)
            XCTAssertEqual(p.stats.totalSkipped, 0, name)
            // gravity dominates: the median magnitude is about 1 G once converted from m/s^2
            let mags = frames.map { f in
                (f[.accelX] * f[.accelX] + f[.accelY] * f[.accelY] + f[.accelZ] * f[.accelZ]).squareRoot()
            }.sorted()
            XCTAssertEqual(mags[mags.count / 2], 1, accuracy: 0.1, "median magnitude, \(name)")
        }
    }
}
