import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif

/// Every child process a test starts through the suites' launchers (`CLI.Running`,
/// `JackTest.Proc`, the Python peers ...) is stopped when that test ends, on every path: a test
/// that fails or throws half way (an XCTUnwrap, a missing tool) leaves nothing running into the
/// next test (a `listen --web` holding its port and a core). The tests still stop their
/// children themselves where the order matters; this is the net under them.
public enum Children {
    /// Stops `process` at the end of the test now running if it still runs then: SIGTERM, then
    /// SIGKILL after 3 s. `what` names it in the note printed when it had to be stopped.
    public static func stopAtTestEnd(_ process: Process, _ what: @autoclosure () -> String = "") {
        let name = what()
        Observer.shared.adopt(process, name.isEmpty ? (process.arguments ?? []).joined(separator: " ") : name)
    }

    /// Stops `process` now: SIGTERM, up to `grace` seconds for it to end, then SIGKILL.
    public static func stop(_ process: Process, grace: Double = 3) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Wait.now() + grace
        while process.isRunning && Wait.now() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The XCTest observer that stops what the finished test left running. Registered with the
    /// first child: a test that started none needs nothing.
    final class Observer: NSObject, XCTestObservation, @unchecked Sendable {
        static let shared: Observer = {
            let o = Observer()
            XCTestObservationCenter.shared.addTestObserver(o)
            return o
        }()

        private let lock = NSLock()
        private var running: [(process: Process, what: String)] = []

        func adopt(_ process: Process, _ what: String) {
            lock.lock(); defer { lock.unlock() }
            running.removeAll { !$0.process.isRunning }
            running.append((process, what))
        }

        func testCaseDidFinish(_ testCase: XCTestCase) {
            lock.lock()
            let left = running.filter { $0.process.isRunning }
            running = []
            lock.unlock()
            for (p, what) in left {
                print(
                    "\(testCase.name): stopping a child process the test left running (pid \(p.processIdentifier)): \(what)"
                )
                Children.stop(p)
            }
        }
    }
}
