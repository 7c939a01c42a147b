import Atomics
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

    /// A set wake is called after each post that is kept (not after one the full mailbox drops);
    /// the waiter of a command is told how it went by whoever carries it out.
    func testWakeAndReplies() {
        let c = LiveControl()
        let woken = ManagedAtomic<Int>(0)
        c.setWake { woken.wrappingIncrement(ordering: .relaxed) }
        let told = ManagedAtomic<Int>(0)
        XCTAssertTrue(
            c.post(.save) { outcome in
                if outcome == .saved(path: "a.yaml") { told.wrappingIncrement(ordering: .relaxed) }
            })
        XCTAssertEqual(woken.load(ordering: .relaxed), 1)
        let posted = c.takePosted()
        XCTAssertEqual(posted.map(\.command), [.save])
        posted[0].reply?(.saved(path: "a.yaml"))
        XCTAssertEqual(told.load(ordering: .relaxed), 1)
        for _ in 0..<LiveControl.capacity { c.post(.nextScene) }
        XCTAssertFalse(c.post(.reload))
        XCTAssertEqual(woken.load(ordering: .relaxed), 1 + LiveControl.capacity, "no wake for a dropped command")
        c.setWake(nil)
        _ = c.take()
        XCTAssertTrue(c.post(.reload))
        XCTAssertEqual(woken.load(ordering: .relaxed), 1 + LiveControl.capacity)
    }

    /// A rig that answers nobody (`take`) tells a waiting reply the command failed.
    func testTakeFailsWaitingReplies() {
        let c = LiveControl()
        let failed = ManagedAtomic<Bool>(false)
        c.post(.runMappings([], texts: [])) { if case .failed = $0 { failed.store(true, ordering: .relaxed) } }
        XCTAssertEqual(c.take(), [.runMappings([], texts: [])])
        XCTAssertTrue(failed.load(ordering: .relaxed))
    }
}
