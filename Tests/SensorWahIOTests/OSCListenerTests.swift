import Foundation
import Logging
import XCTest
@testable import SensorWahCore
@testable import SensorWahIO
import SensorWahRuntime
import TestSupport

/// OSC senders on real loopback sockets (UDP datagrams, SLIP over TCP) into an in-process listener.
final class OSCListenerTests: XCTestCase {
    static func string(_ s: String) -> [UInt8] {
        var b = Array(s.utf8) + [0]
        while b.count % 4 != 0 { b.append(0) }
        return b
    }
    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func message(_ address: String, _ floats: [Float]) -> [UInt8] {
        string(address) + string("," + String(repeating: "f", count: floats.count))
            + floats.flatMap { be32($0.bitPattern) }
    }
    static func bundle(_ elements: [[UInt8]]) -> [UInt8] {
        var b = string("#bundle") + be32(0) + be32(1)
        for e in elements { b += be32(UInt32(e.count)) + e }
        return b
    }
    static func slip(_ p: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xC0]
        for b in p { out += b == 0xC0 ? [0xDB, 0xDC] : b == 0xDB ? [0xDB, 0xDD] : [b] }
        return out + [0xC0]
    }

    final class Harness {
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 16)
        var listener: Listener!
        var udp = 0, tcp = 0

        var lineTCP = 0

        init(mappings: [String], record: String? = nil, lineServer: Bool = false) throws {
            var c = ListenerConfiguration()
            c.bindHost = "127.0.0.1"
            c.tcpPort = lineServer ? 0 : nil
            c.restAfter = 0
            c.oscPorts = [0]
            c.oscTCPPorts = [0]
            c.recordDirectory = record
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            var maps = try mappings.map { try Mapping(parsing: $0) }
            _ = OSCRoutes.assign(&maps)
            listener = Listener(configuration: c, mappings: maps, queue: queue, wake: {}, logger: logger)
            try listener.start()
            for a in listener.boundAddresses {
                let port = Int(a.split(separator: ":").last!)!
                if a.hasPrefix("osc.udp") {
                    udp = port
                } else if a.hasPrefix("osc.tcp") {
                    tcp = port
                } else if a.hasPrefix("tcp") {
                    lineTCP = port
                }
            }
        }

        /// Waits until `n` events arrived (or the time runs out); them all, with what came in
        /// the 50 ms after.
        func waitFor(_ n: Int, seconds: Double = 5) -> [MIDIEvent] {
            var got: [MIDIEvent] = []
            func drain() { while let e = queue.pop() { got.append(e.event.midi!) } }
            _ = try? waitUntil(
                "\(n) events", timeout: seconds, poll: 0.002,
                observe: {
                    drain(); return got.count
                }
            ) { $0 >= n }
            usleep(50_000)
            drain()
            return got
        }
    }

    func testTwoZIGSIMDevicesOnOneSocketAreTwoSendersAndGarbageIsRefused() throws {
        let h = try Harness(mappings: [
            "user.x cc=1 smooth=0 speed=none sender=phoneA",
            "user.x cc=2 smooth=0 speed=none sender=phoneB",
            "quat.w cc=3 smooth=0 speed=none sender=zigsim"
        ])
        let sock = try Loopback.Client(.udp, to: h.udp)
        for i in 0..<20 {
            let a = Float(i) / 19  // 0 ... 1 G
            sock.send(
                Self.bundle([Self.message("/phoneA/accel", [a, 0, 0]), Self.message("/phoneA/quaternion", [0, 0, 0, a])]
                ))
            sock.send(Self.bundle([Self.message("/ZIGSIM/phoneB/accel", [-a, 0, 0])]))
            if i == 5 { sock.send([0x2F, 0x61, 0x00]) }  // not a multiple of 4: refused
            if i == 6 { sock.send(Array(repeating: 0xFF, count: 64)) }
            usleep(1000)
        }
        sock.close()
        let events = h.waitFor(60)
        let stats = h.listener.stop()
        let cc1 = events.filter { $0.controller == 1 }.map(\.value)
        let cc2 = events.filter { $0.controller == 2 }.map(\.value)
        XCTAssertEqual(cc1.first, 64); XCTAssertEqual(cc1.last, 127)
        XCTAssertEqual(cc2.first, 64); XCTAssertEqual(cc2.last, 0)
        XCTAssertEqual(
            events.filter { $0.controller == 3 }.count, 20, "sender=zigsim selects the app: every quaternion of phoneA")
        XCTAssertEqual(stats.osc.malformed, 2)
        XCTAssertEqual(stats.osc.packets, 42)
        XCTAssertEqual(stats.osc.frames, 40)
        XCTAssertEqual(stats.accepted, 2)
    }

    func testZIGSIMJSONDatagramsOnTheOSCPort() throws {
        let h = try Harness(mappings: ["user.x cc=5 smooth=0 speed=none sender=zigsim@127.0.0.1/j1"])
        let sock = try Loopback.Client(.udp, to: h.udp)
        for i in 0...10 {
            sock.send(
                Array(#"{"device":{"uuid":"j1"},"sensordata":{"accel":{"x":\#(Double(i) / 10),"y":0,"z":0}}}"#.utf8))
            usleep(1000)
        }
        sock.send(Array("{not json".utf8))
        sock.close()
        let events = h.waitFor(11)
        let stats = h.listener.stop()
        XCTAssertEqual(events.map { Int($0.value) }, (0...10).map { 64 + Int((Double($0) / 10 * 63).rounded()) })
        XCTAssertEqual(stats.osc.malformed, 1)
        XCTAssertEqual(stats.senderNames, ["zigsim@127.0.0.1/j1"])
    }

    func testSLIPOverTCPSplitAnywhereAndAnOSCAddressAsASource() throws {
        let h = try Harness(mappings: ["osc:/fader[1] cc=7 smooth=0"])
        var stream: [UInt8] = []
        for i in 0...10 { stream += Self.slip(Self.message("/fader", [9, Float(i) / 10])) }
        let sock = try Loopback.Client(.tcp, to: h.tcp)
        var i = 0
        while i < stream.count {  // 3-byte pieces: packets split everywhere
            sock.send(Array(stream[i..<min(i + 3, stream.count)]))
            i += 3
            if i % 60 == 0 { usleep(500) }
        }
        sock.close()
        let events = h.waitFor(11)
        let stats = h.listener.stop()
        let want: [Int] = (0...10).map { (i: Int) -> Int in Int((Double(Float(i) / 10) * 127).rounded()) }
        XCTAssertEqual(events.map { Int($0.value) }, want)
        XCTAssertEqual(stats.osc.frames, 11)
        XCTAssertEqual(stats.osc.malformed, 0)
    }

    func testLineSendersAreNamedAfterTheirFormatAndTheirAddressStillMatches() throws {
        let h = try Harness(
            mappings: [
                "accel.x cc=1 smooth=0 speed=none sender=sensorlog",
                "accel.x cc=2 smooth=0 speed=none sender=127.0.0.1",
                "accel.x cc=3 smooth=0 speed=none sender=sensorlog@127.0.0.1",
                "accel.x cc=4 smooth=0 speed=none sender=hyperimu"
            ], lineServer: true)
        let sock = try Loopback.Client(.tcp, to: h.lineTCP)
        var text =
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)\n"
        for i in 0..<10 { text += "2024-01-01T00:00:00.000Z,\(100 + Double(i) * 0.01),\(Double(i) / 10),0,-1\n" }
        sock.send(Array(text.utf8))
        sock.close()
        let events = h.waitFor(30)
        let stats = h.listener.stop()
        for cc in [1, 2, 3] { XCTAssertEqual(events.filter { $0.controller == cc }.count, 10, "cc \(cc)") }
        XCTAssertEqual(events.filter { $0.controller == 4 }.count, 0)
        XCTAssertEqual(stats.senderNames, ["sensorlog@127.0.0.1"])
    }

    func testRecordedOSCReplaysToTheSameEvents() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sw-osc-rec-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mapping = "accel.x cc=11 smooth=20 speed=none"
        let h = try Harness(mappings: [mapping], record: dir)
        let sock = try Loopback.Client(.udp, to: h.udp)
        for i in 0..<100 {
            sock.send(Self.message("/accxyz", [Float(sin(Double(i) / 10)), 0, -1]))
            usleep(2000)
        }
        sock.close()
        let live = h.waitFor(50)
        _ = h.listener.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertEqual(files.count, 1)
        let text = try String(contentsOfFile: "\(dir)/\(files[0])", encoding: .utf8)
        var parser = SensorParser()
        var mapper = Mapper(mappings: [try Mapping(parsing: mapping)])
        var frame = SensorFrame()
        var replayed: [MIDIEvent] = []
        for l in text.split(separator: "\n") where parser.parse(String(l), into: &frame) == .frame {
            mapper.process(frame) { replayed.append($0.midi!) }
        }
        XCTAssertGreaterThan(live.count, 10)
        // the live run ends with the rest value (stop); everything before it replays the same
        XCTAssertEqual(replayed, Array(live.prefix(replayed.count)))
        XCTAssertLessThanOrEqual(live.count - replayed.count, 1)
    }
}
