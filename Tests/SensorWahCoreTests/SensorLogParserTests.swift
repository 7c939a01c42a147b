import Foundation
import TestSupport
import XCTest
@testable import SensorWahCore

final class SensorLogParserTests: XCTestCase {
    let header5 =
        "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"

    func row5(_ t: Double, _ x: Double, _ y: Double = 0, _ z: Double = -1) -> String {
        "2024-04-09T12:44:46.093+02:00,\(t),\(x),\(y),\(z)"
    }

    func testFiveColumnAccelerometerLog() {
        let p = parseLines([header5, row5(100.0, 0.5), row5(100.01, -0.25)])
        XCTAssertEqual(p.results, [.header, .frame, .frame])
        XCTAssertEqual(p.frames.count, 2)
        XCTAssertEqual(p.frames[0][.accelX], 0.5)
        XCTAssertEqual(p.frames[0][.accelZ], -1)
        XCTAssertEqual(p.frames[0].time(.accelerometer), 0)
        XCTAssertEqual(p.frames[1].time(.accelerometer), 0.01, accuracy: 1e-9)
        XCTAssertEqual(p.frames[1].newGroups, SensorGroup.accelerometer.bit)
        XCTAssertEqual(p.parser.detectedFormat, .sensorlog)
    }

    /// `skipsQuaternions` leaves the quaternion unread when other motion columns remain, and
    /// reads it when it is all the motion group has.
    func testSkipsQuaternionsOnlyWhereTheMotionGroupKeepsOtherColumns() {
        let quat = "motionQuaternionX(R),motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R)"
        let withGravity = [
            "loggingTime(txt),motionTimestamp_sinceReboot(s),\(quat),motionGravityX(G),motionGravityY(G),motionGravityZ(G)",
            "2024-04-09T12:44:46.093+02:00,5.0,0.1,0.2,0.3,0.927,0,0,-1"
        ]
        let quatOnly = [
            "loggingTime(txt),motionTimestamp_sinceReboot(s),\(quat)",
            "2024-04-09T12:44:46.093+02:00,5.0,0.1,0.2,0.3,0.927"
        ]
        var skip = ParserOptions(); skip.skipsQuaternions = true
        let all = parseLines(withGravity), skipped = parseLines(withGravity, options: skip)
        XCTAssertEqual(all.frames.first?[.quatW], 0.927)
        XCTAssertEqual(skipped.results, all.results)
        XCTAssertEqual(skipped.frames.first?[.gravityZ], -1)
        XCTAssertEqual(skipped.frames.first?.newGroups, all.frames.first?.newGroups)
        XCTAssertTrue(skipped.frames.first?[.quatW].isNaN ?? false, "quat.* is no value when skipped")
        XCTAssertEqual(parseLines(quatOnly, options: skip).frames.first?[.quatW], 0.927)
    }

    func testColumnsMatchedByNameWhateverTheUnitOrOrder() {
        let h =
            "accelerometerAccelerationZ(m/s^2),batteryState(N),accelerometerAccelerationX(whatever),accelerometerTimestamp_sinceReboot(s)"
        let p = parseLines([h, "-1,2,0.75,5.5"])
        XCTAssertEqual(p.frames.first?[.accelX], 0.75)
        XCTAssertEqual(p.frames.first?[.accelZ], -1)
    }

    func testSeparatorsAreDetectedFromTheHeader() {
        for sep in [",", "|", ";", "\t"] {
            let h = header5.replacingOccurrences(of: ",", with: sep)
            let r = row5(1, 0.3).replacingOccurrences(of: ",", with: sep)
            let p = parseLines([h, r])
            XCTAssertEqual(p.frames.count, 1, "separator \(sep)")
            XCTAssertEqual(p.frames.first?[.accelX], 0.3, "separator \(sep)")
        }
    }

    func testCRLFLineEndingsThroughTheFramer() {
        let text = [header5, row5(1, 0.1), row5(1.01, 0.2)].joined(separator: "\r\n") + "\r\n"
        let (parser, frames) = parseBytes(Array(text.utf8), chunks: [])
        XCTAssertEqual(frames.map { $0[.accelX] }, [0.1, 0.2])
        XCTAssertEqual(parser.stats.totalSkipped, 0)
    }

    func testNullEmptyAndMissingMeanNoValueNeverZero() {
        let p = parseLines([header5, "2024,1.0,null,0.5,", "2024,1.01,,,"])
        XCTAssertEqual(p.results[1], .frame)
        XCTAssertTrue(p.frames[0][.accelX].isNaN)
        XCTAssertEqual(p.frames[0][.accelY], 0.5)
        XCTAssertTrue(p.frames[0][.accelZ].isNaN)
        // a row whose values are all missing carries no sample
        XCTAssertEqual(p.results[2], .skipped(.malformed))
    }

    func testHeaderAcceptedMidStreamAndReplacesTheLayout() {
        let h2 = "accelerometerTimestamp_sinceReboot(s)|accelerometerAccelerationY(G)|accelerometerAccelerationX(G)"
        let p = parseLines([header5, row5(1, 0.1), h2, "1.01|0.9|0.2"])
        XCTAssertEqual(p.results, [.header, .frame, .header, .frame])
        XCTAssertEqual(p.frames[1][.accelX], 0.2)
        XCTAssertEqual(p.frames[1][.accelY], 0.9)
        XCTAssertEqual(p.parser.stats.headers, 2)
    }

    func testHeaderlessStreamUsesTheFallbackColumns() {
        let opts = ParserOptions(fallbackColumns: [
            "accelerometerTimestamp_sinceReboot", "accelerometerAccelerationX", "accelerometerAccelerationY",
            "accelerometerAccelerationZ"
        ])
        let p = parseLines(["5.0,0.25,0,1", "5.01,0.5,0,1"], options: opts)
        XCTAssertEqual(p.frames.map { $0[.accelX] }, [0.25, 0.5])
    }

    func testHeaderlessStreamsOfKnownWidthsNeedNoConfiguration() {
        let p = parseLines([row5(3, 0.4)])
        XCTAssertEqual(p.frames.first?[.accelX], 0.4)
        let noLayout = parseLines(["2024-04-09T12:44:46.093+02:00,1,2"])
        XCTAssertEqual(noLayout.results, [.skipped(.noLayout)])
    }

    func testWatchLogTakesRotationRateFromMotionWhenGyroIsAbsent() {
        let h =
            "loggingTime(txt),motionTimestamp_sinceReboot(s),motionYaw(rad),motionRoll(rad),motionPitch(rad),motionRotationRateX(rad/s),motionRotationRateY(rad/s),motionRotationRateZ(rad/s),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),batteryState(N)"
        let p = parseLines([h, "t,10.0,0.1,0.2,0.3,1.5,-2.5,0.5,10.001,0.1,2"])
        let f = p.frames[0]
        XCTAssertEqual(f[.gyroX], 1.5)
        XCTAssertEqual(f[.gyroY], -2.5)
        XCTAssertEqual(f[.rateX], 1.5)
        XCTAssertEqual(f[.roll], 0.2)
        XCTAssertTrue(f.has(.gyro) && f.has(.motion) && f.has(.accelerometer))
        XCTAssertEqual(f.time(.gyro), f.time(.motion))
    }

    func testPhoneLogKeepsRawGyroSeparateFromMotionRate() {
        let h =
            "gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),motionTimestamp_sinceReboot(s),motionRotationRateX(rad/s)"
        let p = parseLines([h, "1.0,0.7,1.0,0.6"])
        XCTAssertEqual(p.frames[0][.gyroX], 0.7)
        XCTAssertEqual(p.frames[0][.rateX], 0.6)
    }

    func testSampleAndHoldRowsAreNotNewSamples() {
        let h =
            "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),motionTimestamp_sinceReboot(s),motionPitch(rad)"
        let p = parseLines([h, "1.00,0.1,1.00,0.5", "1.01,0.2,1.00,0.5", "1.01,0.2,1.00,0.5", "1.02,0.3,1.02,0.6"])
        XCTAssertEqual(p.results, [.header, .frame, .frame, .held, .frame])
        XCTAssertEqual(
            p.frames[1].newGroups, SensorGroup.accelerometer.bit, "motion repeated: only the accelerometer is new")
        XCTAssertEqual(p.parser.stats.held, 1)
    }

    func testRowsWithAFieldTooManyOrTooFewAreUsedAndCounted() {
        let h = header5 + ",pedometerNumberofSteps(N),batteryLevel(R)"
        let p = parseLines([h, row5(1, 0.1) + ",5,0.7", row5(1.01, 0.2) + ",5,,0.7", row5(1.02, 0.3) + ",5"])
        XCTAssertEqual(p.results, [.header, .frame, .frame, .frame])
        XCTAssertEqual(p.parser.stats.fieldCountMismatch, 2)
        XCTAssertEqual(p.frames.map { $0[.accelX] }, [0.1, 0.2, 0.3])
    }

    func testRowTooShortForTheMotionColumnsIsSkipped() {
        let p = parseLines([header5, "2024,1.0,0.5"])
        XCTAssertEqual(p.results.last, .skipped(.shortRow))
    }

    func testTimestampsGoingBackwards() {
        let p = parseLines([
            header5, row5(10, 0.1), row5(10.02, 0.2), row5(10.01, 0.3), row5(10.03, 0.4), row5(2.0, 0.5),
            row5(2.01, 0.6)
        ])
        XCTAssertEqual(p.results, [.header, .frame, .frame, .skipped(.outOfOrder), .frame, .frame, .frame])
        let times = p.frames.map { $0.time(.accelerometer) }
        XCTAssertEqual(times[0], 0); XCTAssertEqual(times[2], 0.03, accuracy: 1e-9)
        // the restart continues after the latest time instead of going back, by the stream's
        // usual step (a running mean of its steps, 20 ms then 10 ms)
        let usual = 0.02 + (0.01 - 0.02) / 64
        XCTAssertEqual(times[3], 0.03 + usual, accuracy: 1e-9)
        XCTAssertEqual(times[4], 0.04 + usual, accuracy: 1e-9)
        XCTAssertEqual(p.parser.stats.clockRestarts, 1)
    }

    /// A watch streaming at 800 Hz whose clock is set back 3 s while it keeps sending: the
    /// stream time goes on 1.25 ms apart, as the readings were taken (a fixed step after the
    /// restart would shift every later reading against the earlier ones).
    func testAClockSetBackKeepsTheStreamsSpacing() {
        var timeline = Timeline()
        var times: [Double] = []
        for i in 0..<2000 {
            let raw = 5000 + Double(i) * 0.00125 - (i >= 1000 ? 3 : 0)
            guard case .new(let t) = timeline.admit(.accelerometer, raw: raw) else { return XCTFail("sample \(i)") }
            times.append(t)
        }
        XCTAssertEqual(timeline.restarts, 1)
        for i in 1..<times.count { XCTAssertEqual(times[i] - times[i - 1], 0.00125, accuracy: 1e-9, "step \(i)") }
        // before any step is known, a restart continues by restartStep
        var fresh = Timeline()
        _ = fresh.admit(.accelerometer, raw: 100)
        guard case .new(let t) = fresh.admit(.accelerometer, raw: 50) else { return XCTFail("the restart") }
        XCTAssertEqual(t, 0.01, accuracy: 1e-9)
    }

    func testHostileLinesAreCountedNeverCrash() {
        let long = String(repeating: "9", count: 100_000)
        let lines = [
            header5, "\u{0}\u{1}\u{2}binary\u{7F}\u{FF}", long, row5(1, .nan), "2024,1.5,1e308,0,0", "2024,2,NaN,nan,0",
            "", "   ", ",,,,", "2024,abc,0.1,0.2,0.3", "2024,3,0.1,x,0.3", String(repeating: ",", count: 5000),
            row5(4, 0.2)
        ]
        let p = parseLines(lines)
        XCTAssertEqual(p.results[1], .skipped(.binary))
        XCTAssertEqual(p.results[2], .skipped(.shortRow))
        XCTAssertEqual(p.results[6], .blank)
        XCTAssertEqual(p.results[7], .blank)
        XCTAssertEqual(p.results[9], .skipped(.malformed), "timestamp 'abc'")
        XCTAssertEqual(p.frames.last?[.accelX], 0.2, "a good row after the garbage still parses")
        // 1e308 parses as a number: the mapper's hard bound drops it, not the parser
        XCTAssertTrue(p.frames.contains { $0[.accelX] == 1e308 })
        for f in p.frames { for q in Quantity.allCases { let v = f[q]; XCTAssertTrue(v.isNaN || v.isFinite) } }
    }

    func testFramerCutsOverLongLinesAndKeepsGoing() {
        let text = header5 + "\n" + String(repeating: "x", count: 5000) + "\n" + row5(1, 0.1) + "\n"
        let (parser, frames) = parseBytes(Array(text.utf8), chunks: [100], maxLine: 1024)
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(parser.stats.skipped(.tooLong), 1)
    }

    func testLinesSplitAtEveryBytePositionJoinCorrectly() {
        let text = [header5, row5(1, 0.1), row5(1.01, 0.2), row5(1.02, 0.3)].joined(separator: "\n") + "\n"
        let bytes = Array(text.utf8)
        let (_, whole) = parseBytes(bytes, chunks: [])
        for cut in 1..<bytes.count {
            let (_, split) = parseBytes(bytes, chunks: [cut, bytes.count])
            XCTAssertEqual(split.map { $0[.accelX] }, whole.map { $0[.accelX] }, "cut at \(cut)")
        }
        let (_, single) = parseBytes(bytes, chunks: [1])
        XCTAssertEqual(single.count, 3)
    }

    /// A column's slot code is a Quantity's raw value or one of the special codes above them.
    func testSlotCodesLeaveRoomForEveryQuantity() {
        XCTAssertLessThanOrEqual(Quantity.count, Int(ColumnLayout.timestampBase))
        XCTAssertLessThan(Int(ColumnLayout.timestampBase) + SensorGroup.count, Int(ColumnLayout.motionRateBase))
        XCTAssertLessThan(Int(ColumnLayout.motionRateBase) + 3, Int(ColumnLayout.lineTimestamp))
    }

    /// The quaternion columns of SensorLog become quat.x|y|z|w.
    func testSensorLogQuaternionColumns() throws {
        let h =
            "loggingTime(txt),motionTimestamp_sinceReboot(s),motionQuaternionX(R),motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R)"
        let p = parseLines([h, "x,1.0,0.1,0.2,0.3,0.927"])
        XCTAssertEqual(p.frames.count, 1)
        XCTAssertEqual(p.frames.first?[.quatX], 0.1)
        XCTAssertEqual(p.frames.first?[.quatW], 0.927)
        XCTAssertEqual(try Mapping(parsing: "quat.w cc=3").source, .axis(.quatW))
    }

    /// Once the header is known, parsing a row allocates nothing: counted with the malloc
    /// interposer over thousands of rows (82-column and 5-column layouts, held and new samples,
    /// `null` fields). Optimised builds only (at -Onone unspecialised generics allocate);
    /// tools/test runs it in its release step.
    func testSteadyStateParsingAllocatesNothing() throws {
        #if DEBUG
            throw XCTSkip("allocation-freedom is a property of optimised builds: tools/test runs this in release")
        #else
            // the bundled phone recording: 82 columns, sample-and-hold groups, nulls
            let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let phone = try String(
                contentsOf: repo.appendingPathComponent("Recordings/wrist-wah-phone.csv"), encoding: .utf8
            )
            .split(separator: "\n").map(String.init)
            XCTAssertGreaterThan(phone.count, 1000)
            for (header, rows) in [
                (header5, (0..<4000).map { row5(Double($0) * 0.01, sin(Double($0) * 0.1)) }),
                (phone[0], Array(phone.dropFirst()))
            ] {
                var parser = SensorParser()
                var frame = SensorFrame()
                _ = parser.parse(header, into: &frame)
                let lines = rows.map { Array($0.utf8) }
                var frames = 0
                for l in lines.prefix(10) { _ = l.withUnsafeBytes { parser.parse($0, into: &frame) } }  // warm up
                let allocations = Allocations.least {
                    for l in lines.dropFirst(10) {
                        if l.withUnsafeBytes({ parser.parse($0, into: &frame) }) == .frame { frames &+= 1 }
                    }
                }
                XCTAssertGreaterThan(frames, rows.count / 2, "the rows did not parse")
                XCTAssertEqual(
                    allocations.least, 0,
                    "allocations while parsing \(lines.count - 10) rows of \(header.prefix(40))..., by round: \(allocations.counts)"
                )
            }
        #endif
    }
}
