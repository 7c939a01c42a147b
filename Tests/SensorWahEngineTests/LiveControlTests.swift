import XCTest
@testable import SensorWahEngine

/// The run's control plane: commands reach the rig in the order posted, each once; a full
/// mailbox refuses instead of growing; two runs' planes share nothing.
final class LiveControlTests: XCTestCase {
    func testCommandsAreTakenOnceInOrder() {
        let c = LiveControl()
        XCTAssertTrue(c.post(.teach(.start(name: "swing", value: nil))))
        XCTAssertTrue(c.post(.calibrate(mapping: 2)))
        XCTAssertTrue(c.post(.nextScene))
        XCTAssertTrue(c.post(.reload))
        XCTAssertTrue(c.post(.rezero))
        XCTAssertTrue(c.post(.quit))
        XCTAssertTrue(c.hasCommands)
        XCTAssertEqual(
            c.take(),
            [.teach(.start(name: "swing", value: nil)), .calibrate(mapping: 2), .nextScene, .reload, .rezero, .quit])
        XCTAssertFalse(c.hasCommands, "a frame loop's cheap look says nothing waits once taken")
        XCTAssertEqual(c.take(), [])
    }

    func testAFullMailboxRefusesAndKeepsWhatItHas() {
        let c = LiveControl()
        for _ in 0..<LiveControl.capacity { XCTAssertTrue(c.post(.nextScene)) }
        XCTAssertFalse(c.post(.reload))
        let taken = c.take()
        XCTAssertEqual(taken.count, LiveControl.capacity)
        XCTAssertFalse(taken.contains(.reload))
        XCTAssertTrue(c.post(.reload))
    }

    func testTwoRunsShareNothing() {
        let a = LiveControl(), b = LiveControl()
        a.solo.store(1, ordering: .relaxed)
        a.teachingLabel = "swing"
        a.post(.nextScene)
        XCTAssertEqual(b.solo.load(ordering: .relaxed), -1)
        XCTAssertNil(b.teachingLabel)
        XCTAssertEqual(b.take(), [])
    }

    /// Posts from several threads at once (the view's, the API's, the rig's own) all arrive.
    func testPostsFromManyThreadsAllArrive() {
        let c = LiveControl()
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            for _ in 0..<10 { c.post(.calibrate(mapping: i + 1)) }
        }
        let taken = c.take()
        XCTAssertEqual(taken.count, 40)
        for i in 1...4 { XCTAssertEqual(taken.filter { $0 == .calibrate(mapping: i) }.count, 10) }
    }
}
