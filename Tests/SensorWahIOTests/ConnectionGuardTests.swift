import Foundation
import Logging
import NIOCore
import XCTest
@testable import SensorWahCore
@testable import SensorWahEngine
@testable import SensorWahIO
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// The bounds every accepted connection lives under (ConnectionGuard, ConnectionTable), over
/// real loopback sockets; the hostile-guest run with every attack at once is
/// AttackTests (tools/attack).
extension ListenerTests {
    func testBytesThatNeverMakeALineDoNotKeepAConnectionOpen() throws {
        let h = try Harness { $0.idleTimeout = 2 }
        // a trickle: a digit every 0.3 s, never a newline
        let slow = try tcpSend(h.tcpPort, [], close: false)
        let sender = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(3))], close: false)
        var closed = false
        for i in 0..<20 where !closed {
            slow.send("1")
            // the real sender keeps sending readings
            sender.send(bytes(Self.rows(1, start: 101 + Double(i) * 0.1)))
            closed = slow.readUntilClosed(within: 0.3).closed  // the trickle's pace, and the look whether it was closed
        }
        XCTAssertTrue(closed, "a connection sending a byte every 0.3 s but no line stayed open past --idle-timeout 2")
        XCTAssertFalse(sender.readUntilClosed(within: 0.2).closed, "the sender that sends readings was closed")
        slow.close(); sender.close()
        _ = h.stop()
    }

    func testANewcomerClosesAConnectionThatSentNothingAndIsToldWhenAllAreBusy() throws {
        let h = try Harness { $0.maxConnections = 2 }
        let quiet = try tcpSend(h.tcpPort, [], close: false)
        let busy = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(3))], close: false)
        // both slots taken; once the quiet one has sent nothing for half a second
        // (evictableUnheardAfter) it may be closed, so a newcomer gets in and its readings arrive
        // (a duration, not a condition: the quiet time is what makes it the one to go)
        usleep(1_000_000)
        busy.send(bytes(Self.rows(1, start: 102)))
        _ = h.events()
        let newcomer = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(5, start: 200))], close: false)
        XCTAssertFalse(h.waitFor(1, seconds: 1).isEmpty, "the newcomer's readings did not arrive")
        XCTAssertTrue(quiet.readUntilClosed(within: 1).closed, "the connection that sent nothing was kept")
        // now both connections have just sent readings: a third is refused, and told why
        let third = try tcpSend(h.tcpPort, [], close: false)
        let answer = third.readUntilClosed(within: 2)
        XCTAssertTrue(answer.closed)
        XCTAssertTrue(answer.text.hasPrefix("# refused: already 2 connections, every one in use"), answer.text)
        quiet.close(); busy.close(); newcomer.close(); third.close()
        XCTAssertEqual(h.stop().refused, 1)
    }

    func testOneAddressCannotTakeEverySlot() throws {
        let h = try Harness { $0.maxConnections = 8 }  // 4 from one address
        var fds: [Loopback.Client] = []
        for i in 0..<4 {
            fds.append(
                try tcpSend(
                    h.tcpPort, [bytes([Self.header] + Self.rows(2, start: 100 + Double(i)))], close: false,
                    from: "127.0.0.2"))
        }
        _ = h.waitFor(8, seconds: 0.5)
        let fifth = try tcpSend(h.tcpPort, [], close: false, from: "127.0.0.2")
        let answer = fifth.readUntilClosed(within: 2)
        XCTAssertTrue(
            answer.text.contains("already 4 connections from 127.0.0.2, every one in use (at most 4 from one address)"),
            answer.text)
        let other = try tcpSend(
            h.tcpPort, [bytes([Self.header] + Self.rows(3, start: 300))], close: false, from: "127.0.0.1")
        XCTAssertEqual(h.waitFor(3).count, 3, "another address was shut out")
        for c in fds + [fifth, other] { c.close() }
        _ = h.stop()
    }

    func testEvictionPicksTheConnectionLongestWithoutAMessage() {
        let logger = Logger(label: "test")
        let table = ConnectionTable(
            limits: ConnectionLimits(total: 4, perAddress: 4, firstMessageDeadline: 0, idle: 0), what: "connection",
            logger: logger)
        let now: UInt64 = 100_000_000_000
        let a = ConnectionGuard(table: table, address: "a", limits: table.limits, opened: now - 10_000_000_000)
        let b = ConnectionGuard(table: table, address: "a", limits: table.limits, opened: now - 20_000_000_000)
        let c = ConnectionGuard(table: table, address: "a", limits: table.limits, opened: now - 1_000_000_000)
        b.progress(at: now)  // b has sent a message just now: busy
        // a sent nothing for 10 s, c for 1 s
        XCTAssertTrue(ConnectionTable.stalest([a, b, c], now: now, after: 2, unheard: 0.5) === a)
        XCTAssertNil(ConnectionTable.stalest([b, c], now: now, after: 2, unheard: 1.5))
        // c has sent nothing for 1 s: closed for a newcomer once half a second has passed
        XCTAssertTrue(ConnectionTable.stalest([b, c], now: now, after: 2, unheard: 0.5) === c)
        // later both are idle long enough: the one that never sent a message goes first
        XCTAssertTrue(ConnectionTable.stalest([b, c], now: now + 30_000_000_000, after: 2, unheard: 0.5) === c)
    }
}
