import Foundation
import XCTest
import SensorWahConsole
import SensorWahCore
import SensorWahEngine

/// The live view's hand-off: pictures written on one thread are read whole on another.
final class MonitorBoardTests: XCTestCase {
    func testAPictureRoundTrips() throws {
        let board = MonitorBoard()
        let copy = UnsafeMutablePointer<UInt64>.allocate(capacity: MonitorLayout.words)
        defer { copy.deallocate() }
        XCTAssertFalse(board.read(into: copy), "nothing published yet")
        var mapper = Mapper(mappings: [try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none")])
        var f = SensorFrame()
        f.newGroups = SensorGroup.accelerometer.bit | SensorGroup.derived.bit
        f[.accelX] = 0.5
        f[.tiltPitch] = 12
        f[.tiltRoll] = -3
        f[.tap] = 1
        mapper.process(f) { _ in }
        let feed = MonitorFeed(board: board)
        feed.note(f)
        XCTAssertTrue(feed.due(now: 1))
        feed.publish(now: 1_000_000_000, mapper: mapper, scene: 2, queueDrops: 5) { r in
            r.setSender(0, name: "sensorlog@192.168.1.20 with a name far longer than 32 bytes", frames: 100, skipped: 3)
            return 1
        }
        XCTAssertFalse(feed.due(now: 1_000_000_000 + 10_000_000), "at most every 50 ms")
        XCTAssertTrue(board.read(into: copy))
        let r = MonitorRecord(p: copy)
        XCTAssertEqual(r.clock, 1)
        XCTAssertEqual(r.mappingCount, 1)
        XCTAssertEqual(r.scene, 2)
        XCTAssertEqual(r.queueDrops, 5)
        XCTAssertEqual(r.tiltPitch, 12)
        XCTAssertEqual(r.tiltRoll, -3)
        XCTAssertEqual(r.gestures.tap, 1)
        XCTAssertEqual(r.mapping(0).raw, 0.5)
        XCTAssertEqual(r.mapping(0).output, 96)
        XCTAssertEqual(r.senderCount, 1)
        XCTAssertEqual(
            r.sender(0).name, String("sensorlog@192.168.1.20 with a name far longer than 32 bytes".prefix(31)))
        XCTAssertEqual(r.sender(0).frames, 100)
        XCTAssertEqual(r.sender(0).skipped, 3)
    }

    /// A writer that never waits and a reader on another thread: every picture read is whole
    /// (all its mapping words come from the same write).
    func testReaderNeverSeesATornPicture() throws {
        let board = MonitorBoard()
        let stop = DispatchSemaphore(value: 0)
        let writer = Thread {
            var k = 0.0
            while stop.wait(timeout: .now()) == .timedOut {
                k += 1
                board.write { r in
                    for w in 12..<MonitorLayout.words { r.p[w] = k.bitPattern }
                }
            }
        }
        writer.start()
        let copy = UnsafeMutablePointer<UInt64>.allocate(capacity: MonitorLayout.words)
        defer { copy.deallocate() }
        var good = 0
        let deadline = Date().addingTimeInterval(0.5)
        while Date() < deadline {
            guard board.read(into: copy) else { continue }
            let first = copy[12]
            for w in 12..<MonitorLayout.words where copy[w] != first { XCTFail("torn picture"); break }
            good += 1
        }
        stop.signal()
        XCTAssertGreaterThan(good, 100)
    }

    /// The view's solo reaches the pipeline; a solo beyond the mappings now running (the view
    /// soloed mapping 3, then a reload left two) lets every mapping send instead of none.
    func testASoloBeyondTheMappingsIsNone() throws {
        let maps = [
            try Mapping(parsing: "accel.x cc=11 speed=none smooth=0"),
            try Mapping(parsing: "accel.y cc=12 speed=none smooth=0")
        ]
        let sent = PlotTrace(mappings: maps)
        let control = LiveControl()
        var pipeline = Pipeline(mappings: maps, outputs: [sent], control: control)
        func frame(_ t: Double, _ v: Double) -> SensorFrame {
            var f = SensorFrame()
            f.newGroups = SensorGroup.accelerometer.bit
            f.times[SensorGroup.accelerometer.rawValue] = t
            f[.accelX] = v
            f[.accelY] = v
            return f
        }
        control.solo.store(1, ordering: .relaxed)
        pipeline.process(frame(0, 0.5))
        XCTAssertEqual(sent.lanes.map(\.sent.count), [0, 1])
        control.solo.store(2, ordering: .relaxed)
        pipeline.process(frame(0.01, -0.5))
        XCTAssertEqual(sent.lanes.map(\.sent.count), [1, 2])
    }
}
