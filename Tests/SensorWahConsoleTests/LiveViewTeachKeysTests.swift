import Foundation
import XCTest
import SensorWahCore
@testable import SensorWahConsole
@testable import SensorWahEngine

/// The live view's teach keys, byte by byte as a terminal in raw mode gives them: `t`, a
/// name, Enter; space, Down, Right or Page Down mark; a lone Esc drops; an arrow key's escape
/// sequence is never read as Esc and letters; a non-ASCII character is not part of a name.
final class LiveViewTeachKeysTests: XCTestCase {
    /// The run's control plane the view posts to (one per test: nothing is process-wide).
    var control = LiveControl()

    func view() -> LiveView {
        var c = LiveView.Configuration(title: "test", mode: .plain(interval: 60), labels: [["m"]], maxima: [[127]])
        c.teachKey = true
        return LiveView(board: MonitorBoard(), configuration: c, control: control)
    }

    override func setUp() { control = LiveControl() }

    /// The teach requests posted since the last look.
    func taken() -> [TeachRequest] {
        control.take().compactMap { if case .teach(let r) = $0 { return r } else { return nil } }
    }

    func testANameThenMarksFromSpaceArrowsAndPageDown() {
        let v = view()
        v.keys(Array("t".utf8))
        XCTAssertTrue(v.snapshot.message.hasPrefix("teach: type"))
        v.keys(Array("sw".utf8)); v.keys([0xC3, 0xA9]); v.keys(Array("ing\r".utf8))  // an é typed in the middle
        XCTAssertEqual(taken(), [.start(name: "swing", value: nil)])
        control.teachingLabel = "swing"  // as listen's rig says once it started
        v.keys([32])  // space
        v.keys([27, 91, 66])  // Down
        v.keys([27, 91, 67])  // Right
        v.keys([27, 91, 54, 126])  // Page Down
        v.keys([27, 79, 67])  // Right in application mode
        let marks = taken()
        XCTAssertEqual(marks.count, 5, "\(marks)")
        XCTAssertTrue(marks.allSatisfy { if case .mark = $0 { return true } else { return false } })
        // Up and Left are neither marks nor Esc, and their letters are not keys (A: every mapping)
        control.solo.store(0, ordering: .relaxed)
        v.keys([27, 91, 65]); v.keys([27, 91, 68])
        XCTAssertEqual(taken(), [])
        XCTAssertEqual(control.solo.load(ordering: .relaxed), 0, "the A of Up's sequence changed the solo")
        v.keys([13])
        v.keys([27])  // a lone Esc
        XCTAssertEqual(taken(), [.finish, .cancel])
    }

    func testAPoseValueAndRefusals() {
        let v = view()
        v.keys(Array("twah=0.5\r".utf8))
        XCTAssertEqual(taken(), [.start(name: "wah", value: 0.5)])
        v.keys(Array("t=5\r".utf8))
        XCTAssertTrue(v.snapshot.message.contains("'=5' is not a name"), v.snapshot.message)
        v.keys(Array("twah=x\r".utf8))
        XCTAssertTrue(v.snapshot.message.contains("'x' is not a number"), v.snapshot.message)
        // Esc while typing forgets the name; the keys work as usual again
        v.keys(Array("tab".utf8)); v.keys([27])
        XCTAssertEqual(taken(), [])
        XCTAssertEqual(v.snapshot.message, "")
    }
}
