import XCTest
@testable import SensorWahCore

final class PhyphoxRemoteTests: XCTestCase {
    func bytes<T>(_ s: String, _ f: (UnsafeRawBufferPointer) throws(SensorLoggerBatch.Refusal) -> T) -> Result<
        T, SensorLoggerBatch.Refusal
    > {
        Array(s.utf8).withUnsafeBytes { b in
            do throws(SensorLoggerBatch.Refusal) { return .success(try f(b)) } catch { return .failure(error) }
        }
    }

    func testConfigFromInputsOrBufferNames() throws {
        let withInputs =
            #"{"title":"Gyroscope","buffers":[],"inputs":[{"source":"gyroscope","outputs":[{"x":"gX"},{"y":"gY"},{"z":"gZ"},{"t":"gT"}]},{"source":"light","outputs":[{"out":"l"}]}]}"#
        let a = try bytes(withInputs) { b throws(SensorLoggerBatch.Refusal) in try PhyphoxLayout.parse(b) }.get()
        XCTAssertEqual(a.sensors.map(\.base), [.gyroX]); XCTAssertEqual(a.sensors[0].t, "gT")
        let names =
            #"{"title":"Acceleration (without g)","buffers":[{"name":"accX","size":0},{"name":"accY"},{"name":"accZ"},{"name":"acc_time"}]}"#
        let b = try bytes(names) { b throws(SensorLoggerBatch.Refusal) in try PhyphoxLayout.parse(b) }.get()
        XCTAssertEqual(b.sensors.map(\.base), [.userX], "without g: user acceleration")
        let none = #"{"title":"Audio","buffers":[{"name":"recording"}]}"#
        XCTAssertTrue(
            try XCTUnwrap(
                bytes(none) { b throws(SensorLoggerBatch.Refusal) in try PhyphoxLayout.parse(b) }.failureValue
            ).reason.contains("Audio"))
        XCTAssertNotNil(
            bytes("<html>") { b throws(SensorLoggerBatch.Refusal) in try PhyphoxLayout.parse(b) }.failureValue)
    }

    func testQueriesAskForNewSamplesOnlyAndARestartIsSeen() throws {
        let layout = PhyphoxLayout(
            title: "t",
            sensors: [.init(base: .accelX, x: "accX", y: "accY", z: "accZ", t: "acc_time", scale: 1 / 9.80665)])
        var p = PhyphoxPoll(layout: layout)
        XCTAssertEqual(p.query, "/get?accX=full&accY=full&accZ=full&acc_time=full")
        func answer(_ t: [Double]) -> String {
            let xs = t.map { _ in "9.80665" }.joined(separator: ",")
            let ts = t.map { "\($0)" }.joined(separator: ",")
            return
                #"{"buffer":{"accX":{"buffer":[\#(xs)]},"accY":{"buffer":[\#(xs)]},"accZ":{"buffer":[\#(xs)]},"acc_time":{"buffer":[\#(ts)]}},"status":{"measuring":true}}"#
        }
        let r1 = try bytes(answer([5, 5.01, 5.02])) { b throws(SensorLoggerBatch.Refusal) in try p.read(b) }.get()
        XCTAssertEqual(r1.batch.samples.count, 3); XCTAssertEqual(r1.measuring, true); XCTAssertFalse(r1.restarted)
        XCTAssertEqual(r1.batch.samples[1].time, 5_010_000_000)
        XCTAssertEqual(r1.batch.samples[0].values[0].1, 1, accuracy: 1e-12)
        XCTAssertEqual(p.query, "/get?accX=5.02%7Cacc_time&accY=5.02%7Cacc_time&accZ=5.02%7Cacc_time&acc_time=5.02")
        // an answer repeating old samples adds only the new ones
        let r2 = try bytes(answer([5.02, 5.03])) { b throws(SensorLoggerBatch.Refusal) in try p.read(b) }.get()
        XCTAssertEqual(r2.batch.samples.map(\.time), [5_030_000_000])
        // the experiment was cleared: time starts again
        let r3 = try bytes(answer([0, 0.01])) { b throws(SensorLoggerBatch.Refusal) in try p.read(b) }.get()
        XCTAssertTrue(r3.restarted); XCTAssertEqual(r3.batch.samples.count, 2)
        XCTAssertNotNil(bytes(#"{"buffer":{}}"#) { b throws(SensorLoggerBatch.Refusal) in try p.read(b) }.failureValue)
    }
}
