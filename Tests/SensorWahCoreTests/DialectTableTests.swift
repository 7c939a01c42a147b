import XCTest
@testable import SensorWahCore

/// The detection table, refusals, and the timing sanity check.
final class DialectTableTests: XCTestCase {
    /// Headers (or rows, for header-less dialects) each app writes, by table entry name.
    let samples: [(entry: String, line: String)] = [
        (
            "SensorLog",
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"
        ),
        (
            "SensorLog",
            "loggingTime(txt);motionUserAccelerationX(G);motionUserAccelerationY(G);motionUserAccelerationZ(G)"
        ),
        ("SensorLog", SensorLogColumns.iPhone82.joined(separator: ",")),
        (
            "SensorLog",
            "accelerometerTimestamp_sinceReboot(s)|accelerometerAccelerationY(G)|accelerometerAccelerationX(G)"
        ),
        ("SensorLog JSON", "{\"loggingTime\":\"2024-04-09T12:44:46.093+02:00\",\"motionUserAccelerationX\":\"0.01\"}"),
        ("Sensor Logger", "time,seconds_elapsed,z,y,x"),
        ("Sensor Logger", "time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw"),
        ("phyphox", "\"Time (s)\",\"X (m/s^2)\",\"Y (m/s^2)\",\"Z (m/s^2)\""),
        (
            "phyphox",
            "\"Time (s)\";\"Acceleration x (m/s^2)\";\"Acceleration y (m/s^2)\";\"Acceleration z (m/s^2)\";\"Absolute acceleration (m/s^2)\""
        ),
        (
            "phyphox",
            "\"Time (s)\"\t\"Gyroscope x (rad/s)\"\t\"Gyroscope y (rad/s)\"\t\"Gyroscope z (rad/s)\"\t\"Absolute (rad/s)\""
        ),
        ("Physics Toolbox Sensor Suite", "time,gFx,gFy,gFz,TgF"),
        ("Physics Toolbox Sensor Suite", "time,ax,ay,az,aT"),
        ("Physics Toolbox Sensor Suite", "time,ax,ay,az,"),
        (
            "HyperIMU",
            "timestamp,ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z,GRAVITY.x,GRAVITY.y,GRAVITY.z,GPS.lat,GPS.lon,NMEA"
        ),
        ("HyperIMU", "MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z"),
        ("Sensorstream IMU+GPS", "1712345678, 3, 0.1, NaN, 9.80665, 4, NaN, NaN, NaN"),
        ("Generic (time + axes)", "Milliseconds,X,Y,Z"),
        ("Generic (time + axes)", "time,x,y,z"),
        ("Generic (time + axes)", "timestamp,ax,ay,az"),
        ("Generic (time + axes)", "time_s,ax,ay,az,gx,gy,gz"),
        ("Generic (time + axes)", "Timestamp;AccX;AccY;AccZ"),
        ("Generic (time + axes)", "date,time,x,y,z"),
        ("Generic (time + axes)", "t,accel_x_g,accel_y_g,accel_z_g,gyro_x_dps,gyro_y_dps,gyro_z_dps"),
        ("Generic (time + axes)", ",Unnamed: 0,time,ax,ay,az,label")
    ]

    let unknown = [
        "foo,bar,baz",
        "time,value",
        "\"Zeit (s)\";\"Beschleunigung x (m/s^2)\"",
        "Zeit;Wert1;Wert2;Wert3",
        "time,dx,dy,dz",
        "time,x,y",
        "time,magX,magY,magZ",
        "{\"sensor\":\"Accelerometer\",\"time\":\"1698501144401773000\",\"x\":\"0.06\"}",
        "1,2,3",
        "890.7, 9, 0, 0, 9.8"
    ]

    /// Each app's header is won by its own entry; the only other entry that may also recognise
    /// it is the generic time-plus-axes layout, as the runner-up (lower confidence).
    func testEveryEntryRecognisesItsOwnSampleAndNoOther() {
        let generic = "Generic (time + axes)"
        for d in SensorParser.dialects {
            XCTAssertEqual(
                SensorParser.recognizers(of: d.sample).map(\.name).filter { $0 != generic || d.name == generic },
                [d.name], "table sample of \(d.name)")
            XCTAssertEqual(SensorParser.recognizers(of: d.sample).first?.name, d.name)
            XCTAssertFalse(d.expects.isEmpty)
            XCTAssertFalse(d.rule.isEmpty)
            XCTAssertTrue(d.confidence > 0 && d.confidence <= 1)
        }
        for (entry, line) in samples {
            let names = SensorParser.recognizers(of: line).map(\.name)
            XCTAssertEqual(names.first, entry, line)
            XCTAssertEqual(names.filter { $0 != generic || entry == generic }, [entry], line)
        }
        for line in unknown {
            XCTAssertEqual(SensorParser.recognizers(of: line).map(\.name), [], line)
        }
        // every format but auto has an entry
        for f in SensorFormat.allCases where f != .auto {
            XCTAssertTrue(SensorParser.dialects.contains { $0.format == f }, f.rawValue)
        }
    }

    func testUnknownHeaderIsRefusedWithItsColumnsAndNoRowIsReadPositionally() {
        // `1500989996591,9.80665,0,0` would be HyperIMU (timestamp + accelerometer) with no header
        let p = parseLines(["Zeit;Wert1;Wert2;Wert3", "1500989996591;9.80665;0;0", "1500989996591,9.80665,0,0"])
        XCTAssertEqual(
            p.results, [.skipped(.unknownHeader), .skipped(.underUnknownHeader), .skipped(.underUnknownHeader)])
        let m = p.parser.refusal ?? ""
        XCTAssertTrue(m.contains("4 columns \"Zeit\", \"Wert1\", \"Wert2\", \"Wert3\""), m)
        for d in SensorParser.dialects { XCTAssertTrue(m.contains(d.name), "names \(d.name): \(m)") }
        XCTAssertTrue(m.contains("--format") && m.contains("--columns"), m)
    }

    func testUnknownHeaderMidStreamDropsTheOldLayout() {
        let h =
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"
        let p = parseLines([h, "t,1.0,0.1,0,1", "foo,bar,baz,qux,quux", "t,1.01,0.2,0,1", h, "t,1.02,0.3,0,1"])
        XCTAssertEqual(
            p.results, [.header, .frame, .skipped(.unknownHeader), .skipped(.underUnknownHeader), .header, .frame])
        // a data row that merely starts with a letter is still a data row
        let q = parseLines([h, "t,1.0,0.1,0,1", "abc,1.01,0.2,0,1"])
        XCTAssertEqual(q.results, [.header, .frame, .frame])
    }

    func testForcedFormatOnlyAcceptsItsOwnHeader() {
        let p = parseLines(["time,gFx,gFy,gFz", "0,0,0,1"], options: .init(format: .phyphox))
        XCTAssertEqual(p.results, [.skipped(.unknownHeader), .skipped(.underUnknownHeader)])
        XCTAssertTrue(p.parser.refusal?.contains("set to phyphox") ?? false)
        let q = parseLines(["time,gFx,gFy,gFz", "0,0,0,1"], options: .init(format: .physicstoolbox))
        XCTAssertEqual(q.frames.count, 1)
    }

    func testDecimalCommaWhereSemicolonOrTabSeparates() {
        let h = "accelerometerTimestamp_sinceReboot(s);accelerometerAccelerationX(G);accelerometerAccelerationY(G)"
        let p = parseLines([h, "100,5;0,25;-1,5", "100,51;1E-1;-0,015E1"])
        XCTAssertEqual(p.frames.map { $0[.accelX] }, [0.25, 0.1])
        XCTAssertEqual(p.frames[1][.accelY], -0.15, accuracy: 1e-15)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-9)
        let tab = parseLines([h.replacingOccurrences(of: ";", with: "\t"), "7,5\t0,5\t0"])
        XCTAssertEqual(tab.frames.first?[.accelX], 0.5)
        // a comma-separated file never reads a comma as a decimal mark
        let comma = parseLines([h.replacingOccurrences(of: ";", with: ","), "7,0,5,0"])
        XCTAssertEqual(comma.frames.first?[.accelX], 0)
        XCTAssertEqual(comma.frames.first?[.accelY], 5)
    }

    func testDecimalCommaNumberParsing() {
        func v(_ s: String, _ dc: Bool) -> FieldValue {
            var s = s; return s.withUTF8 { parseField($0.baseAddress!, $0.count, decimalComma: dc) }
        }
        XCTAssertEqual(v("1,015325254E0", true), .number(1.015325254))
        XCTAssertEqual(v("-0,5", true), .number(-0.5))
        XCTAssertEqual(v("0,12345678901234567890123", true), .number(0.12345678901234567890123))
        XCTAssertEqual(v("1,5", false), .invalid)
        XCTAssertEqual(v("1.5", true), .number(1.5))
    }

    // MARK: implausible rates

    func accelLog(count: Int, step: Double) -> [String] {
        ["accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G)"]
            + (0..<count).map { "\(1000 + Double($0) * step),0.1" }
    }

    func testPlausibleRateGivesNoWarning() {
        let p = parseLines(accelLog(count: 200, step: 0.01))
        XCTAssertNil(p.parser.stats.implausibleRateWarning())
        XCTAssertEqual(p.parser.stats.firstTime, 0)
        XCTAssertEqual(p.parser.stats.lastTime, 1.99, accuracy: 1e-6)
        XCTAssertEqual(1 / (p.parser.stats.medianFrameInterval ?? 1), 100, accuracy: 20)
    }

    func testSecondsReadAsMillisecondsIsFlagged() {
        // a 100 Hz log whose time column was scaled as if it were milliseconds
        let p = parseLines(accelLog(count: 600, step: 0.00001))
        let w = p.parser.stats.implausibleRateWarning()
        XCTAssertNotNil(w)
        XCTAssertTrue(w?.contains("seconds read as milliseconds") ?? false, w ?? "")
    }

    func testMillisecondsReadAsSecondsIsFlagged() {
        let p = parseLines(accelLog(count: 50, step: 10))
        let w = p.parser.stats.implausibleRateWarning()
        XCTAssertTrue(w?.contains("milliseconds read as seconds") ?? false, w ?? "")
    }

    func testStatsAddKeepsTheTimeSpan() {
        var a = parseLines(accelLog(count: 20, step: 0.01)).parser.stats
        let b = parseLines(accelLog(count: 20, step: 0.01)).parser.stats
        a.add(b)
        XCTAssertEqual(a.frames, 40)
        XCTAssertNil(a.implausibleRateWarning())
        XCTAssertEqual(a.lastTime, 0.19, accuracy: 1e-6)
    }
}
