import XCTest
@testable import SensorWahCore

final class SensorLoggerPushTests: XCTestCase {
    func decode(_ s: String) -> Result<SensorLoggerBatch, SensorLoggerBatch.Refusal> {
        Array(s.utf8).withUnsafeBytes { b in
            do throws(SensorLoggerBatch.Refusal) { return .success(try SensorLoggerBatch.decode(b)) } catch {
                return .failure(error)
            }
        }
    }

    static let batch = """
        {"messageId": 3, "sessionId": "s-1", "deviceId": "dev-9", "payload": [
          {"name": "accelerometer", "time": 1698501144401773000, "values": {"x": 0.980665, "y": 0, "z": -9.80665}},
          {"name": "gyroscope", "time": 1698501144401773000, "values": {"x": 1.5, "y": -0.5, "z": 0}},
          {"name": "location", "time": 1698501144401773000, "values": {"latitude": 1, "longitude": 2}},
          {"name": "Orientation", "time": "1698501144391773000", "values": {"qx": 0, "qy": 0, "qz": 0, "qw": 1, "roll": 0.1, "pitch": -0.2, "yaw": 3}},
          {"name": "totalacceleration", "time": 1698501144411773000, "values": {"x": 9.80665, "y": null, "z": 0}},
          {"name": "gravity", "time": 1698501144411773000, "values": {"x": 0, "y": 0, "z": -9.80665}}
        ]}
        """

    func testABatchBecomesFramesInTimeOrderInG() throws {
        let b = try decode(Self.batch).get()
        XCTAssertEqual(b.deviceId, "dev-9"); XCTAssertEqual(b.sessionId, "s-1"); XCTAssertEqual(b.messageId, 3)
        XCTAssertEqual(b.samples.count, 5); XCTAssertEqual(b.otherSensors, 1)
        var merge = SensorLoggerFrames()
        var frames: [SensorFrame] = []
        merge.add(b) { frames.append($0) }
        XCTAssertEqual(frames.count, 3, "orientation first, then user acceleration + gyro, then total + gravity")
        XCTAssertEqual(frames[0].time(.motion), 0)
        XCTAssertEqual(frames[0][.yaw], 3); XCTAssertEqual(frames[0][.quatW], 1)
        XCTAssertEqual(frames[1].newGroups, SensorGroup.motion.bit | SensorGroup.gyro.bit)
        XCTAssertEqual(frames[1][.userX], 0.1, accuracy: 1e-12); XCTAssertEqual(frames[1][.userZ], -1, accuracy: 1e-12)
        XCTAssertEqual(frames[1][.gyroX], 1.5); XCTAssertEqual(frames[1].time(.gyro), 0.01, accuracy: 1e-12)
        XCTAssertEqual(frames[2][.accelX], 1, accuracy: 1e-12); XCTAssertTrue(frames[2][.accelY].isNaN)
        XCTAssertEqual(frames[2][.gravityZ], -1, accuracy: 1e-12)
        XCTAssertTrue(frames[2][.userX].isNaN, "nothing is carried over from the previous frame")
        // the same batch again is entirely late: nothing goes out of order
        merge.add(b) { _ in XCTFail("late samples sent") }
        XCTAssertEqual(merge.late, 5)
    }

    func testBadBodiesAreRefusedWithAReason() {
        let table: [(String, String)] = [
            ("", "not JSON"),
            ("{", "not JSON"),
            ("[1,2]", "not a JSON object"),
            ("{\"payload\": 5}", "not an array"),
            ("{\"messageId\": 1}", "no \"payload\""),
            ("{\"payload\": [5]}", "payload[0] is not an object"),
            ("{\"payload\": [{\"time\": 1}]}", "no \"name\""),
            ("{\"payload\": [{\"name\": \"gyroscope\", \"values\": {\"x\": 1}}]}", "whole-number \"time\""),
            (
                "{\"payload\": [{\"name\": \"gyroscope\", \"time\": 1.5, \"values\": {\"x\": 1}}]}",
                "whole-number \"time\""
            ),
            ("{\"payload\": [{\"name\": \"gyroscope\", \"time\": 1}]}", "no \"values\""),
            (
                "{\"payload\": [{\"name\": \"gyroscope\", \"time\": 1, \"values\": {\"x\": \"fast\"}}]}",
                "values.x is not a number"
            ),
            ("{\"payload\": [{\"name\": \"gyroscope\", \"time\": 1, \"values\": {\"q\": 1}}]}", "none of the values"),
            ("{\"payload\": []} trailing", "text after"),
            (String(repeating: "[", count: 100), "nested too deep"),
            ("{\"payload\": [{\"name\": \"gyro\\u00", "not JSON")
        ]
        for (body, want) in table {
            switch decode(body) {
            case .success: XCTFail("accepted: \(body)")
            case .failure(let r):
                XCTAssertTrue(r.reason.contains(want), "\(body): \(r.reason)")
                XCTAssertFalse(r.reason.contains("\n"))
            }
        }
        XCTAssertEqual(try decode("{\"payload\": []}").get().samples.count, 0)
    }

    /// Found by tools/fuzz push: times ±2^63 ns apart overflowed Int64 when made relative.
    func testTimesFurtherApartThanInt64CanHoldDoNotTrap() throws {
        let body =
            #"{"payload":[{"name":"accelerometer","time":-9223372036854775807,"values":{"x":1,"y":2,"z":3}},{"name":"accelerometer","time":9223372036854775807,"values":{"x":1,"y":2,"z":3}}]}"#
        let b = try decode(body).get()
        var merge = SensorLoggerFrames()
        var times: [Double] = []
        merge.add(b) { f in times.append(f.latestTime) }
        XCTAssertEqual(times.count, 2)
        XCTAssertEqual(times.first, 0)
        XCTAssertTrue(times.allSatisfy(\.isFinite), "\(times)")
        XCTAssertEqual(times.last ?? 0, 18_446_744_073.709553, accuracy: 1)
    }

    func testRandomBodiesNeverTrap() {
        var rng = SystemRandomNumberGenerator()
        let good = Array(Self.batch.utf8)
        for _ in 0..<3000 {
            var b = good
            for _ in 0..<4 { b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = b.withUnsafeBytes { p in try? SensorLoggerBatch.decode(p) }
            _ = Array(b.prefix(Int.random(in: 0..<b.count, using: &rng))).withUnsafeBytes { p in
                try? SensorLoggerBatch.decode(p)
            }
        }
    }
}
