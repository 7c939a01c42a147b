import XCTest
@testable import SensorWahCore

/// Sensor Logger (Kelvin Choi): one CSV per sensor, `time` in epoch ns, `seconds_elapsed`,
/// then the axes in the order z, y, x; accelerations in m/s^2, rotation in rad/s, attitude in rad.
final class SensorLoggerTests: XCTestCase {
    let g = 9.80665
    let xyz = "time,seconds_elapsed,z,y,x"

    func file(start: Int, step: Int = 10_000_000, _ values: [(z: Double, y: Double, x: Double)]) -> [String] {
        [xyz]
            + values.enumerated().map { k, v in
                "\(start + k * step),\(0.2 + Double(k * step) / 1e9),\(v.z),\(v.y),\(v.x)"
            }
    }

    func testFileNamesSaySensor() {
        XCTAssertEqual(
            LoggedSensor.fromFileName("Accelerometer.csv"), .userAcceleration,
            "Sensor Logger: Accelerometer is WITHOUT gravity")
        XCTAssertEqual(LoggedSensor.fromFileName("/rec/2024-01-01_12-00-00/TotalAcceleration.csv"), .totalAcceleration)
        XCTAssertEqual(LoggedSensor.fromFileName("gravity.CSV"), .gravity)
        XCTAssertEqual(LoggedSensor.fromFileName("Gyroscope.csv"), .gyroscope)
        XCTAssertEqual(LoggedSensor.fromFileName("Orientation.csv"), .orientation)
        XCTAssertNil(
            LoggedSensor.fromFileName("AccelerometerUncalibrated.csv"), "G on iOS, m/s^2 on Android: not guessed")
        XCTAssertNil(LoggedSensor.fromFileName("GyroscopeUncalibrated.csv"))
        XCTAssertNil(LoggedSensor.fromFileName("Magnetometer.csv"))
        XCTAssertNil(LoggedSensor.fromFileName("Location.csv"))
        XCTAssertEqual(LoggedSensor.fromFileName("Acceleration with g 2024-05-01 10-00-00.csv"), .totalAcceleration)
        XCTAssertEqual(LoggedSensor.fromFileName("Acceleration without g 2024-05-01 10-00-00.csv"), .userAcceleration)
        XCTAssertEqual(LoggedSensor(rawValue: "user"), .userAcceleration)
    }

    func testAccelerometerFileIsUserAccelerationInGWithAxesByName() {
        let lines = file(start: 1_698_501_144_401_773_000, [(-0.1, 0.5, 9.80665), (-9.80665, 0, 4.903325)])
        let p = parseLines(lines, options: .init(sensor: .userAcceleration))
        XCTAssertEqual(p.results, [.header, .frame, .frame])
        XCTAssertEqual(p.parser.detectedFormat, .sensorlogger)
        let f = p.frames[0]
        XCTAssertEqual(f[.userX], 1, accuracy: 1e-12, "x is the last column")
        XCTAssertEqual(f[.userY], 0.5 / g, accuracy: 1e-12)
        XCTAssertEqual(f[.userZ], -0.1 / g, accuracy: 1e-12, "z is the first value column")
        XCTAssertTrue(f[.accelX].isNaN, "never reported as acceleration with gravity")
        XCTAssertEqual(f.newGroups, SensorGroup.motion.bit)
        XCTAssertEqual(p.frames[1][.userZ], -1, accuracy: 1e-12)
        XCTAssertEqual(p.frames[0].time(.motion), 0)
        XCTAssertEqual(p.frames[1].time(.motion), 0.01, accuracy: 1e-6, "from `time` in ns")
        XCTAssertEqual(p.parser.timeOrigin ?? 0, 1_698_501_144.401773, accuracy: 1e-5)
    }

    func testTotalAccelerationGravityAndGyroscope() {
        let rows: [(z: Double, y: Double, x: Double)] = [(9.80665, 0, 0), (9.80665, 0.1, 0.2)]
        let total = parseLines(file(start: 1_000_000_000, rows), options: .init(sensor: .totalAcceleration))
        XCTAssertEqual(total.frames[0][.accelZ], 1, accuracy: 1e-12)
        XCTAssertTrue(total.frames[0].has(.accelerometer))
        let gravity = parseLines(file(start: 1_000_000_000, rows), options: .init(sensor: .gravity))
        XCTAssertEqual(gravity.frames[0][.gravityZ], 1, accuracy: 1e-12)
        let gyro = parseLines(file(start: 1_000_000_000, rows), options: .init(sensor: .gyroscope))
        XCTAssertEqual(gyro.frames[1][.gyroX], 0.2, "rad/s unchanged")
        XCTAssertEqual(gyro.frames[1][.gyroZ], 9.80665)
        XCTAssertTrue(gyro.frames[1].has(.gyro))
    }

    func testOrientationFileNeedsNoHint() {
        let lines = [
            "time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw",
            "1698501144401773000,0.2,0.1,0.2,0.3,0.9,0.25,-0.5,1.5",
            "1698501144411773000,0.21,0.1,0.2,0.3,0.9,0.26,-0.4,1.4"
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results, [.header, .frame, .frame])
        XCTAssertEqual(p.frames[0][.roll], 0.25)
        XCTAssertEqual(p.frames[0][.pitch], -0.5)
        XCTAssertEqual(p.frames[0][.yaw], 1.5)
        XCTAssertEqual(p.frames[1].time(.motion), 0.01, accuracy: 1e-6)
        // a hint that contradicts the header is refused, not obeyed
        let wrong = parseLines(lines, options: .init(sensor: .gyroscope))
        XCTAssertEqual(wrong.results[0], .skipped(.unknownHeader))
        XCTAssertTrue(wrong.parser.refusal?.contains("Orientation") ?? false)
    }

    func testXYZHeaderWithoutHintIsRefusedWithAMessageNeverGuessed() {
        let lines = file(start: 1_698_501_144_401_773_000, [(0.1, 0.2, 0.3), (0.1, 0.2, 0.3)])
        let p = parseLines(lines)
        XCTAssertEqual(
            p.results, [.skipped(.unknownHeader), .skipped(.underUnknownHeader), .skipped(.underUnknownHeader)])
        XCTAssertTrue(p.frames.isEmpty)
        let message = p.parser.refusal ?? ""
        XCTAssertTrue(message.contains("\"seconds_elapsed\""), message)
        XCTAssertTrue(message.contains("name the file after the sensor"), message)
        XCTAssertTrue(message.contains("Accelerometer.csv"), message)
        XCTAssertTrue(message.contains("--format"), message)
        XCTAssertEqual(p.parser.stats.skipped(.underUnknownHeader), 2)
    }

    func testRowWithoutItsTimeIsSkippedNotTimedFromAnotherColumn() {
        let q = parseLines(
            ["time,seconds_elapsed,z,y,x", "1000000000,0.1,1,2,3", ",0.11,1,2,3", "1010000000,0.12,1,2,4"],
            options: .init(sensor: .gyroscope))
        XCTAssertEqual(q.results, [.header, .frame, .skipped(.noTimestamp), .frame])
        XCTAssertEqual(q.frames.last?[.gyroX], 4)
        XCTAssertEqual(q.frames.last?.time(.gyro) ?? 0, 0.01, accuracy: 1e-6)
    }

    // MARK: merging one file per sensor

    func parsed(_ lines: [String], _ sensor: LoggedSensor) -> (frames: [SensorFrame], origin: Double) {
        let p = parseLines(lines, options: .init(sensor: sensor))
        return (p.frames, p.parser.timeOrigin ?? .nan)
    }

    func testMergerInterleavesFilesOnTheSharedClock() {
        let t0 = 1_698_501_144_401_773_000
        let accel = parsed(file(start: t0, [(0, 0, 1 * g), (0, 0, 2 * g), (0, 0, 3 * g)]), .userAcceleration)
        let gyro = parsed(file(start: t0 + 5_000_000, [(0, 0, 0.1), (0, 0, 0.2), (0, 0, 0.3)]), .gyroscope)
        let merged = FrameMerger.merge([accel, gyro])
        XCTAssertEqual(merged.count, 6)
        let times = merged.map { $0.latestTime }
        XCTAssertEqual(times, times.sorted(), "time order")
        XCTAssertEqual(merged[0].newGroups, SensorGroup.motion.bit)
        XCTAssertEqual(merged[1].newGroups, SensorGroup.gyro.bit)
        XCTAssertEqual(merged[1].time(.gyro), 0.005, accuracy: 1e-6, "the gyro file started 5 ms later")
        XCTAssertEqual(merged[1][.gyroX], 0.1)
        XCTAssertEqual(merged[1][.userX], 1, accuracy: 1e-12, "held from the accelerometer file")
        XCTAssertEqual(merged[2][.userX], 2, accuracy: 1e-12)
        XCTAssertEqual(merged[2].time(.motion), 0.01, accuracy: 1e-6)
        XCTAssertEqual(merged[5].time(.gyro), 0.025, accuracy: 1e-6)
    }

    func testMergerStartsAtTheEarliestFileEvenWhenItIsOfferedLast() {
        let t0 = 2_000_000_000_000_000_000 / 2
        let late = parsed(file(start: t0 + 100_000_000, [(0, 0, 0.5)]), .gyroscope)
        let early = parsed(file(start: t0, [(0, 0, g)]), .totalAcceleration)
        let merged = FrameMerger.merge([late, early])
        XCTAssertEqual(merged.count, 2)
        XCTAssertTrue(merged[0].has(.accelerometer))
        XCTAssertEqual(merged[0].time(.accelerometer), 0)
        XCTAssertEqual(merged[1].time(.gyro), 0.1, accuracy: 1e-6)
    }

    func testMergerCoalescesDeviceMotionFilesWithTheSameTimestamps() {
        let t0 = 1_698_501_144_401_773_000
        let user = parsed(file(start: t0, [(0, 0, 0.1 * g), (0, 0, 0.2 * g)]), .userAcceleration)
        let gravity = parsed(file(start: t0, [(-g, 0, 0), (-g, 0, 0)]), .gravity)
        let attitude = parsed(
            [
                "time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw", "\(t0),0.2,0,0,0,1,0.1,0.2,0.3",
                "\(t0 + 10_000_000),0.21,0,0,0,1,0.1,0.25,0.3"
            ], .orientation)
        let merged = FrameMerger.merge([user, gravity, attitude])
        XCTAssertEqual(merged.count, 2, "one frame per device-motion sample")
        XCTAssertEqual(merged[0][.userX], 0.1, accuracy: 1e-12)
        XCTAssertEqual(merged[0][.gravityZ], -1, accuracy: 1e-12)
        XCTAssertEqual(merged[0][.pitch], 0.2)
        XCTAssertEqual(merged[1][.pitch], 0.25)
        XCTAssertEqual(merged[1].time(.motion), 0.01, accuracy: 1e-6)
    }

    func testStreamingMergerAsksForOneFrameAtATime() {
        var m = FrameMerger(sourceCount: 2)
        XCTAssertEqual(m.sourceNeedingFrame, 0)
        var a = SensorFrame(); a.newGroups = SensorGroup.accelerometer.bit; a[.accelX] = 1
        m.offer(a, origin: 100, from: 0)
        XCTAssertNil(m.next(), "source 1 has not offered yet")
        XCTAssertEqual(m.sourceNeedingFrame, 1)
        m.finish(source: 1)
        let out = m.next()
        XCTAssertEqual(out?[.accelX], 1)
        XCTAssertEqual(out?.time(.accelerometer), 0)
        XCTAssertEqual(m.sourceNeedingFrame, 0)
        m.finish(source: 0)
        XCTAssertNil(m.next())
        XCTAssertTrue(m.isFinished)
    }
}

final class TakesTests: XCTestCase {
    func frames(_ times: [Double]) -> [SensorFrame] {
        times.map { t in
            var f = SensorFrame(); f.newGroups = SensorGroup.accelerometer.bit; f.times[0] = t; return f
        }
    }

    /// Files of one recording overlap in time and merge; files that do not are takes, played
    /// one after another half a second apart, in the order given.
    func testTakesThatDoNotOverlapPlayOneAfterAnother() {
        let a = (frames: frames([0, 1, 2]), origin: 1000.0)
        let b = (frames: frames([0.5, 1.5]), origin: 1000.0)  // overlaps a: one recording
        let c = (frames: frames([0, 1]), origin: 900.0)  // long before: another take
        XCTAssertEqual(FrameMerger.takes([a, b, c]), [[0, 1], [2]])
        let (out, takes) = FrameMerger.mergeTakes([a, b, c])
        XCTAssertEqual(takes.count, 2)
        XCTAssertEqual(out.count, 7)
        let t = out.map(\.latestTime)
        XCTAssertEqual(t, t.sorted(), "one timeline")
        // the second take starts half a second after the first ends
        XCTAssertEqual(t[5] - t[4], 0.5, accuracy: 1e-9)
        XCTAssertLessThan(t.last!, 5)
        XCTAssertEqual(FrameMerger.takes([a, b]), [[0, 1]])
    }
}
