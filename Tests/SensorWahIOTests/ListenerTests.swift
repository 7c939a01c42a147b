import Foundation
import Logging
import NIOCore
import NIOPosix
import XCTest
@testable import SensorWahCore
@testable import SensorWahIO
import SensorWahRuntime
import TestSupport

/// Real sockets on loopback against an in-process listener.
final class ListenerTests: XCTestCase {
    static let header =
        "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"
    static let header2 = "accelerometerTimestamp_sinceReboot(s)|accelerometerAccelerationX(G)"

    /// A sweep of n rows from -1 to 1 G, 100 Hz.
    static func rows(_ n: Int, start: Double = 100, sep: String = ",", fiveColumns: Bool = true) -> [String] {
        (0..<n).map { i in
            let t = start + Double(i) * 0.01
            let x = -1 + 2 * Double(i) / Double(max(n - 1, 1))
            return fiveColumns ? "2024-01-01T00:00:00.000Z,\(t),\(x),0,-1" : "\(t)\(sep)\(x)"
        }
    }

    final class Harness {
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 16)
        var listener: Listener!
        var tcpPort = 0
        var udpPort = 0

        init(
            _ configure: (inout ListenerConfiguration) -> Void = { _ in },
            mappings: [Mapping] = [try! Mapping(parsing: "accel.x cc=11 smooth=0 speed=none")]
        ) throws {
            var c = ListenerConfiguration()
            c.bindHost = "127.0.0.1"
            c.tcpPort = 0
            c.restAfter = 0
            configure(&c)
            var logger = Logger(label: "test")
            logger.logLevel = ProcessInfo.processInfo.environment["LISTENER_TEST_LOG"] != nil ? .info : .warning
            listener = Listener(configuration: c, mappings: mappings, queue: queue, wake: {}, logger: logger)
            try listener.start()
            for a in listener.boundAddresses {
                let port = Int(a.split(separator: ":").last!)!
                if a.hasPrefix("tcp") { tcpPort = port } else { udpPort = port }
            }
        }

        func events() -> [MIDIEvent] {
            var out: [MIDIEvent] = []
            while let e = queue.pop() { out.append(e.event.midi!) }
            return out
        }

        /// Waits until `n` events arrived (or the time runs out) and returns them all, with what
        /// came in the 50 ms after (a test that expects none sees one too many).
        func waitFor(_ n: Int, seconds: Double = 5) -> [MIDIEvent] {
            var got: [MIDIEvent] = []
            _ = try? waitUntil(
                "\(n) events", timeout: seconds, poll: 0.002,
                observe: {
                    got += events(); return got.count
                }
            ) { $0 >= n }
            usleep(50_000)
            return got + events()
        }

        func stop() -> ListenerStats { listener.stop() }
    }

    /// The CC stream the same lines give through the parser and mapper directly.
    func expected(_ lines: [String], mapping: String = "accel.x cc=11 smooth=0 speed=none") -> [MIDIEvent] {
        var parser = SensorParser()
        var mapper = Mapper(mappings: [try! Mapping(parsing: mapping)])
        var frame = SensorFrame()
        var out: [MIDIEvent] = []
        for l in lines where parser.parse(l, into: &frame) == .frame { mapper.process(frame) { out.append($0.midi!) } }
        return out
    }

    /// A TCP connection to the listener (from `source`), `chunks` sent with `pauseMicros` between,
    /// closed after unless `close` is false.
    @discardableResult
    func tcpSend(
        _ port: Int, _ chunks: [[UInt8]], pauseMicros: UInt32 = 0, close shouldClose: Bool = true,
        from source: String = "127.0.0.1"
    ) throws -> Loopback.Client {
        let c = try Loopback.Client(.tcp, to: port, from: source)
        for chunk in chunks {
            c.send(chunk)
            if pauseMicros > 0 { usleep(pauseMicros) }
        }
        if shouldClose { c.close() }
        return c
    }

    /// One datagram per line, 0.2 ms apart.
    func udpSend(_ port: Int, _ datagrams: [String]) throws {
        let c = try Loopback.Client(.udp, to: port)
        for d in datagrams {
            c.send(d)
            usleep(200)
        }
        c.close()
    }

    func bytes(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }

    // MARK: transports

    func testTCPServerGivesTheSameStreamAsTheParserAndMapper() throws {
        let h = try Harness()
        let lines = [Self.header] + Self.rows(200)
        _ = try tcpSend(h.tcpPort, [bytes(lines)])
        let want = expected(lines)
        XCTAssertEqual(h.waitFor(want.count).map(\.value), want.map(\.value))
        XCTAssertEqual(h.stop().accepted, 1)
    }

    func testUDPDatagramsOneLineEach() throws {
        let h = try Harness {
            $0.tcpPort = nil; $0.udpPorts = [0]
        }
        let lines = [Self.header] + Self.rows(100)
        try udpSend(h.udpPort, lines)  // no terminators: a datagram ends its line
        let want = expected(lines)
        XCTAssertEqual(h.waitFor(want.count).map(\.value), want.map(\.value))
        _ = h.stop()
    }

    func testTCPClientConnectsToAPhoneServerAndReconnects() throws {
        // a "phone" acting as server: sends a stream to each connection, then closes it
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let lines = [Self.header] + Self.rows(50)
        let payload = bytes(lines)
        let server = try ServerBootstrap(group: group)
            .childChannelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(PhoneServer(payload: payload))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        let port = server.localAddress!.port!
        let h = try Harness {
            $0.tcpPort = nil; $0.connect = [Endpoint(host: "127.0.0.1", port: port)]
        }
        let want = expected(lines)
        // first connection, then a reconnect after the server closed it: the stream twice
        let got = h.waitFor(2 * want.count + 1, seconds: 8)
        XCTAssertGreaterThanOrEqual(got.count, 2 * want.count - 2, "reconnected and received again")
        XCTAssertEqual(Array(got.prefix(want.count)).map(\.value), want.map(\.value))
        let stats = h.stop()
        XCTAssertGreaterThanOrEqual(stats.reconnects, 1)
        try server.close().wait()
    }

    /// Sends its payload to each connection as soon as it is active, then closes it.
    final class PhoneServer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let payload: [UInt8]
        init(payload: [UInt8]) { self.payload = payload }
        func channelActive(context: ChannelHandlerContext) {
            var buf = context.channel.allocator.buffer(capacity: payload.count)
            buf.writeBytes(payload)
            let ch = context.channel
            context.writeAndFlush(NIOAny(buf)).whenComplete { _ in ch.close(promise: nil) }
        }
    }

    // MARK: framing and senders

    func testLinesSplitAtEveryBytePositionOverTCP() throws {
        let lines = [Self.header] + Self.rows(3)
        let all = bytes(lines)
        let want = expected(lines)
        let h = try Harness()
        for cut in stride(from: 1, to: all.count, by: 7) {
            _ = try tcpSend(h.tcpPort, [Array(all[..<cut]), Array(all[cut...])], pauseMicros: 300)
        }
        let n = (all.count - 1 + 6) / 7
        let got = h.waitFor(n * want.count)
        XCTAssertEqual(got.count, n * want.count, "every split gives the full stream")
        XCTAssertEqual(h.stop().parser.totalSkipped, 0)
    }

    func testSeveralSendersWithDifferentHeadersAndAMidStreamHeader() throws {
        let h = try Harness()
        let a = [Self.header] + Self.rows(100)
        let b = [Self.header2] + Self.rows(50, sep: "|", fiveColumns: false) + [Self.header] + Self.rows(50, start: 200)
        let fa = try tcpSend(h.tcpPort, [], close: false)
        let fb = try tcpSend(h.tcpPort, [], close: false)
        for i in 0..<max(a.count, b.count) {
            if i < a.count { fa.send(a[i] + "\n") }
            if i < b.count { fb.send(b[i] + "\n") }
        }
        fa.close(); fb.close()
        _ = h.waitFor(150)
        let stats = h.stop()
        XCTAssertEqual(stats.parser.headers, 3)
        XCTAssertEqual(stats.parser.frames, 200)
        XCTAssertEqual(stats.parser.totalSkipped, 0)
    }

    func testBinaryGarbageFromOneSenderLeavesTheOtherUnaffected() throws {
        // the normal sender's mapping listens to any sender: garbage must not add or change anything
        let h = try Harness()
        let good = [Self.header] + Self.rows(300)
        var rng = SystemRandomNumberGenerator()
        var garbage: [UInt8] = []
        for _ in 0..<200_000 { garbage.append(UInt8.random(in: 0...255, using: &rng)) }
        let bad = try tcpSend(h.tcpPort, [], close: false)
        let ok = try tcpSend(h.tcpPort, [], close: false)
        var offset = 0
        for l in good {
            ok.send(l + "\n")
            let n = min(700, garbage.count - offset)
            if n > 0 { bad.send(Array(garbage[offset..<offset + n])); offset += n }
        }
        ok.close(); bad.close()
        let want = expected(good)
        let got = h.waitFor(want.count)
        XCTAssertEqual(got.map(\.value), want.map(\.value))
        XCTAssertEqual(got.map(\.time), want.map(\.time))
        let stats = h.stop()
        XCTAssertGreaterThan(stats.parser.totalSkipped, 0, "the garbage was counted")
    }

    func testSenderWithoutLineEndsIsCutOffAndMemoryStaysBounded() throws {
        let h = try Harness { $0.maxLineLength = 1024 }
        // the hostile sender: 2 MB and never a newline
        let bad = try tcpSend(h.tcpPort, [], close: false)
        let good = try tcpSend(h.tcpPort, [], close: false)
        let lines = [Self.header] + Self.rows(50)
        var junk = [UInt8](repeating: 0x41, count: 64 << 10)
        var sent = 0
        for (i, l) in lines.enumerated() {
            good.send(l + "\n")
            if i < 32 { let n = send(bad.fd, &junk, junk.count, Int32(MSG_NOSIGNAL)); if n > 0 { sent += n } }
        }
        good.close()
        let want = expected(lines)
        XCTAssertEqual(h.waitFor(want.count).map(\.value), want.map(\.value), "the other sender is unaffected")
        // the listener closed the hostile connection: reading it gives end-of-file (or a reset)
        XCTAssertTrue(bad.readUntilClosed(within: 3).closed, "disconnected")
        bad.close()
        let stats = h.stop()
        XCTAssertEqual(stats.cutOff, 1)
        XCTAssertEqual(stats.parser.skipped(.tooLong), 1)
        XCTAssertGreaterThan(sent, 4096)
    }

    func testOverLongUDPDatagramIsDroppedAndTheSenderKept() throws {
        let h = try Harness {
            $0.tcpPort = nil; $0.udpPorts = [0]; $0.maxLineLength = 256
        }
        let lines = [Self.header] + Self.rows(20)
        try udpSend(h.udpPort, [lines[0], String(repeating: "9", count: 1000)] + Array(lines.dropFirst()))
        let want = expected(lines)
        XCTAssertEqual(h.waitFor(want.count).map(\.value), want.map(\.value))
        XCTAssertEqual(h.stop().parser.skipped(.tooLong), 1)
    }

    func testDisconnectMidLineLosesOnlyThatLine() throws {
        let h = try Harness()
        let lines = [Self.header] + Self.rows(10)
        var payload = bytes(lines)
        payload += Array("2024-01-01T00:00:00.000Z,200.5,0.9".utf8)  // cut mid-line
        _ = try tcpSend(h.tcpPort, [payload])
        let want = expected(lines)
        XCTAssertEqual(h.waitFor(want.count).map(\.value), want.map(\.value))
        let stats = h.stop()
        XCTAssertEqual(stats.partialLinesLost, 1)
        XCTAssertEqual(stats.parser.frames, 10)
    }

    func testAllowListRefusesOtherPeers() throws {
        let h = try Harness { $0.allow = [CIDR("10.0.0.0/8")!] }
        _ = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(10))])
        XCTAssertEqual(h.waitFor(1, seconds: 1).count, 0)
        let stats = h.stop()
        XCTAssertEqual(stats.refused, 1)
        XCTAssertEqual(stats.parser.rows, 0)
        XCTAssertTrue(CIDR("127.0.0.0/8")!.contains(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        XCTAssertFalse(CIDR("192.168.1.0/24")!.contains(try SocketAddress(ipAddress: "192.168.2.1", port: 1)))
        XCTAssertTrue(CIDR("::1")!.contains(try SocketAddress(ipAddress: "::1", port: 1)))
    }

    /// Who may play by default: the local networks (a phone on the same Wi-Fi, a hotspot, USB
    /// tethering, this machine), never an address on the internet.
    func testByDefaultOnlyLocalNetworksMayPlay() throws {
        let h = try Harness()
        defer { _ = h.stop() }
        let table: [(String, Bool)] = [
            ("127.0.0.1", true), ("127.0.0.2", true), ("10.1.2.3", true), ("172.16.0.1", true), ("172.20.10.2", true),
            ("172.32.0.1", false), ("192.168.43.17", true), ("169.254.7.7", true), ("8.8.8.8", false),
            ("100.64.0.1", false), ("::1", true), ("fe80::1", true), ("fd12:3456::1", true), ("2001:db8::1", false),
            ("::ffff:192.168.1.9", true), ("::ffff:8.8.8.8", false)
        ]
        let core = h.listener.core
        for (ip, expected) in table {
            let a = try SocketAddress(ipAddress: ip, port: 5000)
            let got = try core.loop.submit { core.allowed(a) }.wait()
            XCTAssertEqual(got, expected, ip)
        }
        // --allow any lets everyone in
        let any = try Harness { $0.allow = CIDR.everywhere }
        defer { _ = any.stop() }
        let internet = try SocketAddress(ipAddress: "8.8.8.8", port: 5000)
        XCTAssertTrue(try any.listener.core.loop.submit { any.listener.core.allowed(internet) }.wait())
    }

    /// --pair: the first sender plays, another address is ignored until restart; the paired
    /// sender may reconnect.
    func testPairModeKeepsTheFirstSenderOnly() throws {
        let h = try Harness { $0.pair = true }
        _ = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(20))], from: "127.0.0.1")
        let first = h.waitFor(20)
        XCTAssertEqual(first.count, 20)
        _ = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(20, start: 200))], from: "127.0.0.2")
        XCTAssertEqual(h.waitFor(1, seconds: 0.5).count, 0, "a second address played while paired")
        _ = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(20, start: 300))], from: "127.0.0.1")
        XCTAssertGreaterThan(h.waitFor(20).count, 0, "the paired sender could not come back")
        let stats = h.stop()
        XCTAssertEqual(stats.pairRefused, 1)
        // a named pair ignores even the first sender when it is not the one
        let named = try Harness {
            $0.pair = true; $0.pairWith = "127.0.0.3"
        }
        _ = try tcpSend(named.tcpPort, [bytes([Self.header] + Self.rows(10))], from: "127.0.0.1")
        XCTAssertEqual(named.waitFor(1, seconds: 0.5).count, 0)
        _ = try tcpSend(named.tcpPort, [bytes([Self.header] + Self.rows(10))], from: "127.0.0.3")
        XCTAssertEqual(named.waitFor(10).count, 10)
        _ = named.stop()
    }

    func testMaximumNumberOfConnections() throws {
        let h = try Harness { $0.maxConnections = 1 }
        let first = try tcpSend(h.tcpPort, [], close: false)
        let second = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(5))], close: false)
        // the one too many is told why (then closed): it was refused while the first held the slot
        let answer = String(decoding: second.receive(within: 5) ?? [], as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("# refused"), answer)
        second.close()
        first.close()
        XCTAssertEqual(h.stop().refused, 1)
    }

    /// `glide=`: a sender falls silent and its controller glides to rest on the network thread
    /// (10 ms steps over 300 ms), then comes back without a jump when the sender returns.
    func testSilentSenderGlidesToRestAndBack() throws {
        let h = try Harness(
            { $0.restAfter = 0.2 }, mappings: [try! Mapping(parsing: "accel.x cc=11 smooth=0 speed=none glide=300")])
        let up = (0..<20).map { "2024-01-01T00:00:00.000Z,\(100 + Double($0) * 0.01),1,0,-1" }
        let phone = try tcpSend(h.tcpPort, [bytes([Self.header] + up)], close: false)
        var got = h.waitFor(1)
        // silent past rest-after (0.2 s), then the glide's 300 ms down to rest (64)
        _ = try? waitUntil(
            "the glide down to rest", timeout: 5, poll: 0.01,
            observe: {
                got += h.events(); return got.map { Int($0.value) }
            }
        ) { $0.last == 64 }
        got += h.events()
        let values = got.map { Int($0.value) }
        XCTAssertEqual(values.first, 127)
        XCTAssertEqual(values.last, 64, "\(values)")
        let glide = Array(values.drop { $0 == 127 })
        XCTAssertGreaterThan(glide.count, 10, "no glide, a jump: \(values)")
        XCTAssertTrue(zip(glide, glide.dropFirst()).allSatisfy { $0 >= $1 && $0 - $1 <= 6 }, "\(glide)")
        // back at the top: the first value is near rest, not 127
        let again = (0..<40).map { "2024-01-01T00:00:00.000Z,\(101 + Double($0) * 0.01),1,0,-1" }
        phone.send(bytes(again))
        let back = h.waitFor(30).map { Int($0.value) }
        phone.close()
        XCTAssertLessThan(back.first ?? 127, 80, "the return jumped: \(back)")
        XCTAssertEqual(back.last, 127, "\(back)")
        _ = h.stop()
    }

    func testSilentSenderGetsItsControllersRested() throws {
        let h = try Harness { $0.restAfter = 0.3 }
        _ = try tcpSend(h.tcpPort, [bytes([Self.header] + Self.rows(10))])
        let got = h.waitFor(11, seconds: 3)
        XCTAssertEqual(got.last?.value, 64, "rest value (bipolar centre) after silence")
        _ = h.stop()
    }

    func testRecordingIsVerbatimAndReplaysToTheSameStream() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sw-rec-\(getpid())-\(Int.random(in: 0...99999))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let h = try Harness { $0.recordDirectory = dir }
        let lines = [Self.header] + Self.rows(200)
        let payload = bytes(lines)
        _ = try tcpSend(
            h.tcpPort,
            stride(from: 0, to: payload.count, by: 333).map { Array(payload[$0..<min($0 + 333, payload.count)]) },
            pauseMicros: 100)
        let live = h.waitFor(expected(lines).count)
        let stats = h.stop()
        XCTAssertEqual(stats.recordings.count, 1)
        let saved = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stats.recordings[0])))
        XCTAssertEqual(saved, payload, "byte for byte")
        let replayed = expected(String(decoding: saved, as: UTF8.self).split(separator: "\n").map(String.init))
        XCTAssertEqual(replayed.map(\.value), live.map(\.value))
    }

    func testRecorderReportsAWriteErrorAndStops() throws {
        // /dev/full accepts the open and fails every write with ENOSPC: a full disk
        var logger = Logger(label: "t"); logger.logLevel = .critical
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-full-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard let r = StreamRecorder(directory: dir, peer: "x", logger: logger) else { return XCTFail("create") }
        r.redirectForTesting(to: "/dev/full")
        Array("abc\n".utf8).withUnsafeBytes { r.append($0) }
        r.flush()
        XCTAssertTrue(r.failed)
        r.close()
    }
}
