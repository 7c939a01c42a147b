import Foundation
import TestSupport
import XCTest
@testable import SensorWahCore

/// `--osc-out-sources`' bundles, read back with a small OSC decoder written here from the
/// OSC 1.0 specification (independent of the encoder's templates).
final class OSCSourceEncoderTests: XCTestCase {
    struct Message: Equatable { var address: String; var args: [Float] }

    static func decodeBundle(_ b: [UInt8]) -> (timetag: UInt64, messages: [Message])? {
        func be32(_ i: Int) -> UInt32 {
            UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
        }
        func string(_ i: inout Int, end: Int) -> String? {
            guard let z = b[i..<end].firstIndex(of: 0) else { return nil }
            let s = String(decoding: b[i..<z], as: UTF8.self)
            i = (z + 4) & ~3
            return s
        }
        guard b.count >= 16, Array(b[0..<8]) == Array("#bundle\0".utf8) else { return nil }
        let tag = UInt64(be32(8)) << 32 | UInt64(be32(12))
        var i = 16, out: [Message] = []
        while i < b.count {
            let size = Int(be32(i)); i += 4
            let end = i + size
            guard size % 4 == 0, end <= b.count else { return nil }
            var j = i
            guard let address = string(&j, end: end), let types = string(&j, end: end), types.first == "," else {
                return nil
            }
            var args: [Float] = []
            for t in types.dropFirst() {
                guard t == "f", j + 4 <= end else { return nil }
                args.append(Float(bitPattern: be32(j))); j += 4
            }
            guard j == end else { return nil }
            out.append(Message(address: address, args: args))
            i = end
        }
        return (tag, out)
    }

    func testAFrameBecomesOneBundleWithEachQuantityPresent() throws {
        var enc = OSCSourceEncoder()
        var f = SensorFrame()
        f[.tiltPitch] = 12.5; f[.tiltRoll] = -30
        f[.tiltX] = 0.6; f[.tiltY] = 0; f[.tiltZ] = -0.8
        var out: [UInt8] = []
        XCTAssertTrue(enc.encode(f, sender: "phone", timetag: 0x0102_0304_0506_0708, into: &out))
        var d = try XCTUnwrap(Self.decodeBundle(out))
        XCTAssertEqual(d.timetag, 0x0102_0304_0506_0708)
        XCTAssertEqual(
            d.messages,
            [
                Message(address: "/sensorwah/source/phone/tilt", args: [12.5, -30]),
                Message(address: "/sensorwah/source/phone/gravity", args: [0.6, 0, -0.8])
            ])
        // a gesture on its frame, with its strength; another sender's name in the address
        f[.flick] = 7.25; f[.tap] = 2
        XCTAssertTrue(enc.encode(f, sender: "watch", timetag: 1, into: &out))
        d = try XCTUnwrap(Self.decodeBundle(out))
        XCTAssertEqual(
            d.messages.map(\.address),
            [
                "/sensorwah/source/watch/tilt", "/sensorwah/source/watch/gravity",
                "/sensorwah/source/watch/flick", "/sensorwah/source/watch/tap"
            ])
        XCTAssertEqual(d.messages[2].args, [7.25])
        XCTAssertEqual(d.messages[3].args, [2])
        // only a gesture (no attitude yet)
        var g = SensorFrame()
        g[.shake] = 1.5
        XCTAssertTrue(enc.encode(g, sender: "phone", timetag: 1, into: &out))
        XCTAssertEqual(
            Self.decodeBundle(out)?.messages, [Message(address: "/sensorwah/source/phone/shake", args: [1.5])])
        // nothing derived: nothing to send
        var raw = SensorFrame()
        raw[.accelX] = 0.1
        XCTAssertFalse(enc.encode(raw, sender: "phone", timetag: 1, into: &out))
        XCTAssertTrue(out.isEmpty)
    }

    func testSenderNamesLoseTheCharactersOSCReserves() {
        XCTAssertEqual(OSCSourceEncoder.addressName("192.168.1.5:50000"), "192.168.1.5:50000")
        XCTAssertEqual(OSCSourceEncoder.addressName("my phone/left {1}"), "my_phone_left__1_")
        XCTAssertEqual(OSCSourceEncoder.addressName("a#b*c,d?e[f]\u{7}"), "a_b_c_d_e_f__")
        XCTAssertEqual(OSCSourceEncoder.addressName(""), "_")
        var enc = OSCSourceEncoder()
        var f = SensorFrame()
        f[.tap] = 1
        var out: [UInt8] = []
        _ = enc.encode(f, sender: "iPhone de Léa", timetag: 1, into: &out)
        XCTAssertEqual(Self.decodeBundle(out)?.messages.first?.address, "/sensorwah/source/iPhone_de_Léa/tap")
    }

    /// Once a sender's messages are built, encoding its frames allocates nothing (malloc
    /// interposer; optimised builds only, as the other allocation tests).
    func testEncodingAFrameAllocatesNothing() throws {
        #if DEBUG
            throw XCTSkip("allocation-freedom is a property of optimised builds: tools/test runs this in release")
        #else
            var enc = OSCSourceEncoder()
            var frames: [SensorFrame] = []
            for i in 0..<2000 {
                var f = SensorFrame()
                f[.tiltPitch] = Double(i % 90); f[.tiltRoll] = -Double(i % 45)
                f[.tiltX] = 0; f[.tiltY] = 0.6; f[.tiltZ] = 0.8
                if i % 50 == 0 { f[.flick] = 3; f[.shake] = 2; f[.tap] = 1 }
                frames.append(f)
            }
            let senders = ["192.168.1.5:50000", "watch"]
            var out: [UInt8] = []
            out.reserveCapacity(512)
            // builds the senders' messages
            for s in senders { _ = enc.encode(frames[0], sender: s, timetag: 1, into: &out) }
            var n = 0
            let allocations = Allocations.least {
                for (i, f) in frames.enumerated()
                where enc.encode(f, sender: senders[i & 1], timetag: UInt64(i), into: &out) { n &+= out.count }
            }
            XCTAssertGreaterThan(n, 2000 * 16)
            XCTAssertEqual(
                allocations.least, 0,
                "allocations while encoding \(frames.count) frames, by round: \(allocations.counts)")
        #endif
    }
}
