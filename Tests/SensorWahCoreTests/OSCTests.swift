import TestSupport
import XCTest
@testable import SensorWahCore

/// Builds OSC 1.0 packets for the tests.
enum OSCPacket {
    enum Arg { case i(Int32), f(Float), s(String), b([UInt8]), h(Int64), d(Double), t(UInt64), T, F, N }

    static func string(_ s: String) -> [UInt8] {
        var b = Array(s.utf8) + [0]
        while b.count % 4 != 0 { b.append(0) }
        return b
    }
    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }

    static func message(_ address: String, _ args: [Arg]) -> [UInt8] {
        var tags = ","
        var data: [UInt8] = []
        for a in args {
            switch a {
            case .i(let v): tags += "i"; data += be32(UInt32(bitPattern: v))
            case .f(let v): tags += "f"; data += be32(v.bitPattern)
            case .s(let v): tags += "s"; data += string(v)
            case .b(let v):
                tags += "b"; data += be32(UInt32(v.count)) + v
                while data.count % 4 != 0 { data.append(0) }
            case .h(let v): tags += "h"; data += be64(UInt64(bitPattern: v))
            case .d(let v): tags += "d"; data += be64(v.bitPattern)
            case .t(let v): tags += "t"; data += be64(v)
            case .T: tags += "T"
            case .F: tags += "F"
            case .N: tags += "N"
            }
        }
        return string(address) + string(tags) + data
    }

    static func bundle(_ timetag: UInt64 = 1, _ elements: [[UInt8]]) -> [UInt8] {
        var b = string("#bundle") + be64(timetag)
        for e in elements { b += be32(UInt32(e.count)) + e }
        return b
    }

    static func slip(_ packet: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xC0]
        for b in packet {
            switch b {
            case 0xC0: out += [0xDB, 0xDC]
            case 0xDB: out += [0xDB, 0xDD]
            default: out.append(b)
            }
        }
        return out + [0xC0]
    }
}

struct DecodedMessage: Equatable {
    var address: String
    var tags: String
    var values: [Double]
    var timetag: UInt64
}

func decodeOSC(_ p: [UInt8]) -> Result<[DecodedMessage], OSCError> {
    var out: [DecodedMessage] = []
    let r = p.withUnsafeBytes { b in
        OSC.decode(b) { m in
            out.append(
                DecodedMessage(
                    address: m.addressString, tags: m.typeTagString,
                    values: (0..<m.argumentCount).map { m.value($0) }, timetag: m.timetag))
        }
    }
    switch r {
    case .success(let n): XCTAssertEqual(n, out.count); return .success(out)
    case .failure(let e): XCTAssertTrue(out.isEmpty, "nothing delivered from a refused packet"); return .failure(e)
    }
}

final class OSCDecoderTests: XCTestCase {
    func testEveryTypeTag() throws {
        let p = OSCPacket.message(
            "/all", [.i(-7), .f(1.5), .s("hey"), .b([1, 2, 3]), .h(1 << 40), .d(-0.25), .t(5), .T, .F, .N])
        let m = try decodeOSC(p).get()
        XCTAssertEqual(m.count, 1)
        XCTAssertEqual(m[0].address, "/all")
        XCTAssertEqual(m[0].tags, "ifsbhdtTFN")
        let v = m[0].values
        XCTAssertEqual(v[0], -7); XCTAssertEqual(v[1], 1.5); XCTAssertTrue(v[2].isNaN); XCTAssertTrue(v[3].isNaN)
        XCTAssertEqual(v[4], Double(1 << 40)); XCTAssertEqual(v[5], -0.25); XCTAssertTrue(v[6].isNaN)
        XCTAssertEqual(v[7], 1); XCTAssertEqual(v[8], 0); XCTAssertTrue(v[9].isNaN)
    }

    func testNestedBundlesInOrderWithTheirTimetags() throws {
        let inner = OSCPacket.bundle(77, [OSCPacket.message("/b", [.f(2)])])
        let p = OSCPacket.bundle(55, [OSCPacket.message("/a", [.f(1)]), inner, OSCPacket.message("/c", [])])
        let m = try decodeOSC(p).get()
        XCTAssertEqual(m.map(\.address), ["/a", "/b", "/c"])
        XCTAssertEqual(m.map(\.timetag), [55, 77, 55])
        XCTAssertEqual(m[2].values, [])
    }

    func testMessageWithoutTypeTagsHasNoArguments() throws {
        let m = try decodeOSC(OSCPacket.string("/old")).get()
        XCTAssertEqual(m, [DecodedMessage(address: "/old", tags: "", values: [], timetag: 1)])
    }

    func testToleratedExtensionsAndArrays() throws {
        // c (char), r (colour), m (MIDI) are 4 bytes; I has none; [ ] do not count as arguments
        let p =
            OSCPacket.string("/ext") + OSCPacket.string(",crmI[f]") + [0, 0, 0, 65] + [1, 2, 3, 4] + [0, 0x90, 60, 100]
            + OSCPacket.be32(Float(0.5).bitPattern)
        let m = try decodeOSC(p).get()
        XCTAssertEqual(m[0].values.count, 5)
        XCTAssertEqual(m[0].values[4], 0.5)
    }

    func testMalformedPacketsAreRefusedWhole() {
        let good = OSCPacket.message("/a", [.f(1)])
        var hugeBlob = OSCPacket.string("/b") + OSCPacket.string(",b") + OSCPacket.be32(0x7FFF_FFFF)
        hugeBlob += [0, 0, 0, 0]
        let negativeBlob = OSCPacket.string("/b") + OSCPacket.string(",b") + OSCPacket.be32(0xFFFF_FFF0)
        var deep = good
        for _ in 0..<9 { deep = OSCPacket.bundle(1, [deep]) }
        let table: [(String, [UInt8], OSCError)] = [
            ("empty", [], .empty),
            ("not a multiple of 4", Array(good.dropLast()), .misaligned),
            ("address without terminator", Array("/abc".utf8), .truncated),
            ("not an address", OSCPacket.string("abc"), .badAddress),
            ("type tags without comma", OSCPacket.string("/a") + OSCPacket.string("f") + [0, 0, 0, 0], .badTypeTags),
            ("missing float", OSCPacket.string("/a") + OSCPacket.string(",f"), .truncated),
            ("missing string", OSCPacket.string("/a") + OSCPacket.string(",s"), .truncated),
            ("huge blob count", hugeBlob, .truncated),
            ("negative blob count", negativeBlob, .truncated),
            (
                "unknown type",
                OSCPacket.string("/a") + OSCPacket.string(",fQ") + OSCPacket.be32(0) + OSCPacket.be32(0),
                .unknownType(0x51)
            ),
            ("trailing bytes", good + [0, 0, 0, 0], .trailingBytes),
            ("bundle too short", OSCPacket.string("#bundle"), .truncated),
            (
                "bundle element larger than the packet",
                OSCPacket.string("#bundle") + OSCPacket.be64(1) + OSCPacket.be32(1000) + good, .truncated
            ),
            (
                "bundle element of size 0", OSCPacket.string("#bundle") + OSCPacket.be64(1) + OSCPacket.be32(0),
                .badBundle
            ),
            (
                "bundle element of negative size",
                OSCPacket.string("#bundle") + OSCPacket.be64(1) + OSCPacket.be32(0xFFFF_FFFC), .truncated
            ),
            (
                "bundle element not aligned",
                OSCPacket.string("#bundle") + OSCPacket.be64(1) + OSCPacket.be32(3) + [0x2F, 0x61, 0, 0], .misaligned
            ),
            ("bundle with a half size field", OSCPacket.bundle(1, [good]) + [0, 0], .misaligned),
            ("bundle element that is neither", OSCPacket.bundle(1, [OSCPacket.string("xyz")]), .badBundle),
            (
                "a good message then a bad one",
                OSCPacket.bundle(1, [good, OSCPacket.string("/a") + OSCPacket.string(",i")]), .truncated
            ),
            ("nested too deep", deep, .tooDeep),
            ("#bund", OSCPacket.string("#bund"), .badBundle)
        ]
        for (name, p, want) in table {
            XCTAssertEqual(decodeOSC(p).failureValue, want, name)
        }
    }

    func testRandomBytesAndEveryTruncationNeverTrap() {
        var rng = SystemRandomNumberGenerator()
        let good = OSCPacket.bundle(
            9,
            [
                OSCPacket.message("/x", [.i(1), .s("abc"), .b([1, 2, 3, 4, 5]), .d(2)]),
                OSCPacket.bundle(3, [OSCPacket.message("/y/z", [.f(1), .f(2)])])
            ])
        XCTAssertEqual(try decodeOSC(good).get().count, 2)
        for n in 0..<good.count { _ = decodeOSC(Array(good.prefix(n))) }
        for _ in 0..<20_000 {
            var p = good
            for _ in 0..<3 { p[Int.random(in: 0..<p.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = decodeOSC(p)
            let junk = (0..<(4 * Int.random(in: 0...16, using: &rng))).map { _ in UInt8.random(in: 0...255, using: &rng)
            }
            _ = decodeOSC(junk)
        }
    }

    func testSLIPFramingEscapesSplitsAndLimits() {
        let a = OSCPacket.message("/a", [.i(Int32(bitPattern: 0xC0DB_C0DB))])  // END and ESC inside the data
        let b = OSCPacket.message("/b", [.f(2)])
        let stream = OSCPacket.slip(a) + OSCPacket.slip(b)
        for chunk in [1, 2, 3, 7, stream.count] {
            var d = SLIPDecoder()
            var got: [[UInt8]] = []
            var i = 0
            while i < stream.count {
                let part = Array(stream[i..<min(i + chunk, stream.count)])
                part.withUnsafeBytes { d.feed($0) { got.append(Array($0)) } }
                i += chunk
            }
            XCTAssertEqual(got, [a, b], "chunks of \(chunk)")
        }
        var d = SLIPDecoder(maxPacket: 8)
        var got: [[UInt8]] = []
        let long =
            OSCPacket.slip(Array(repeating: 1, count: 100)) + OSCPacket.slip([1, 2, 3, 4]) + [0xDB, 0x01, 0xC0]
            + OSCPacket.slip([5, 6, 7, 8])
        long.withUnsafeBytes { d.feed($0) { got.append(Array($0)) } }
        XCTAssertEqual(got, [[1, 2, 3, 4], [5, 6, 7, 8]])
        XCTAssertEqual(d.tooLong, 1)
        XCTAssertEqual(d.malformed, 1)
        [UInt8]([9, 9]).withUnsafeBytes { d.feed($0) { _ in XCTFail() } }
        XCTAssertEqual(d.discardPartial(), 2)
    }
}

final class OSCAppTests: XCTestCase {
    func recognise(_ address: String) -> (OSCApp, [Quantity], Double, String?)? {
        let bytes = Array(address.utf8)
        return bytes.withUnsafeBytes { b in
            OSCBuiltIn.recognise(b).map { r in
                (
                    r.builtIn.app, r.builtIn.quantities, r.builtIn.scale,
                    r.device.map { String(decoding: bytes[$0], as: UTF8.self) }
                )
            }
        }
    }

    func testBuiltInAddressesOfTheCommonApps() throws {
        let g = 1 / 9.80665
        let table: [(String, OSCApp, [Quantity], Double, String?)] = [
            ("/gyrosc/accel", .gyrosc, [.accelX, .accelY, .accelZ], 1, nil),
            ("/gyrosc/gyro", .gyrosc, [.pitch, .roll, .yaw], 1, nil),
            ("/gyrosc/rrate", .gyrosc, [.rateX, .rateY, .rateZ], 1, nil),
            ("/gyrosc/grav", .gyrosc, [.gravityX, .gravityY, .gravityZ], 1, nil),
            ("/gyrosc/quat", .gyrosc, [.quatW, .quatX, .quatY, .quatZ], 1, nil),
            ("/ABC-123/accel", .zigsim, [.userX, .userY, .userZ], 1, "ABC-123"),
            ("/ABC-123/gravity", .zigsim, [.gravityX, .gravityY, .gravityZ], 1, "ABC-123"),
            ("/ABC-123/gyro", .zigsim, [.rateX, .rateY, .rateZ], 1, "ABC-123"),
            ("/ABC-123/quaternion", .zigsim, [.quatX, .quatY, .quatZ, .quatW], 1, "ABC-123"),
            ("/ZIGSIM/dev1/accel", .zigsim, [.userX, .userY, .userZ], 1, "dev1"),
            ("/accelerometer", .sensors2osc, [.accelX, .accelY, .accelZ], g, nil),
            ("/linearacceleration", .sensors2osc, [.userX, .userY, .userZ], g, nil),
            ("/gravity", .sensors2osc, [.gravityX, .gravityY, .gravityZ], g, nil),
            ("/gyroscope", .sensors2osc, [.gyroX, .gyroY, .gyroZ], 1, nil),
            ("/orientation", .sensors2osc, [.yaw, .pitch, .roll], Double.pi / 180, nil),
            ("/accxyz", .touchosc, [.accelX, .accelY, .accelZ], 1, nil)
        ]
        for (address, app, qs, scale, device) in table {
            let r = try XCTUnwrap(recognise(address), address)
            XCTAssertEqual(r.0, app, address); XCTAssertEqual(r.1, qs, address)
            XCTAssertEqual(r.2, scale, accuracy: 1e-12, address); XCTAssertEqual(r.3, device, address)
        }
        for other in [
            "/", "//accel", "/gyrosc/other", "/1/fader1", "/a/b/c/d", "/ZIGSIM/x/touch0", "/accel/", "/gyrosc"
        ] {
            XCTAssertNil(recognise(other), other)
        }
    }

    func frames(_ packets: [([UInt8], UInt64)], routes: OSCRoutes = OSCRoutes()) -> ([SensorFrame], OSCFrameBuilder) {
        var b = OSCFrameBuilder(routes: routes)
        var out: [SensorFrame] = []
        for (p, at) in packets { p.withUnsafeBytes { _ = b.packet($0, arrival: at, emit: { out.append($0) }) } }
        return (out, b)
    }

    func testAZIGSIMBundleIsOneFrameInG() throws {
        let tick = OSCPacket.bundle(
            1,
            [
                OSCPacket.message("/dev/accel", [.f(0.5), .f(0), .f(-0.25)]),
                OSCPacket.message("/dev/gyro", [.f(1), .f(2), .f(3)]),
                OSCPacket.message("/dev/quaternion", [.f(0), .f(0), .f(0), .f(1)]),
                OSCPacket.message("/dev/deviceinfo", [.s("iPhone")])
            ])
        let (f, b) = frames([(tick, 1_000_000_000), (tick, 1_100_000_000)])
        XCTAssertEqual(f.count, 2)
        XCTAssertEqual(f[0].newGroups, SensorGroup.motion.bit | SensorGroup.gyro.bit)
        XCTAssertEqual(f[0][.userX], 0.5); XCTAssertEqual(f[0][.userZ], -0.25)
        XCTAssertEqual(f[0][.rateY], 2); XCTAssertEqual(f[0][.gyroY], 2)
        XCTAssertEqual(f[0][.quatW], 1)
        XCTAssertTrue(f[0][.accelX].isNaN, "no raw accelerometer in ZIG SIM's accel")
        XCTAssertEqual(f[0].time(.motion), 0); XCTAssertEqual(f[1].time(.motion), 0.1, accuracy: 1e-9)
        XCTAssertEqual(b.stats.unused, 2)
        XCTAssertEqual(b.stats.frames, 2)
    }

    func testZIGSIMJSONModeIsOneFrameWithTheOSCModesUnits() throws {
        let json =
            #"{"device":{"name":"iPhone","uuid":"dev-1","os":"ios"},"timestamp":"2024_01_01_00:00:00.000","sensordata":{"accel":{"x":0.5,"y":0,"z":-0.25},"gyro":{"x":1,"y":2,"z":3},"quaternion":{"x":0,"y":0,"z":0,"w":1},"compass":{"angle":3}}}"#
        let bytes = Array(json.utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { ZigSimJSON.decode($0)?.device }, "dev-1")
        var b = OSCFrameBuilder()
        var frames: [SensorFrame] = []
        bytes.withUnsafeBytes { XCTAssertNil(b.zigSimJSON($0, arrival: 5, emit: { frames.append($0) })) }
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(frames[0][.userX], 0.5); XCTAssertEqual(frames[0][.rateZ], 3);
        XCTAssertEqual(frames[0][.gyroZ], 3)
        XCTAssertEqual(frames[0][.quatW], 1); XCTAssertTrue(frames[0][.gravityX].isNaN)
        for bad in ["{", "{}", "{\"sensordata\": 3}", "[1]"] {
            Array(bad.utf8).withUnsafeBytes {
                XCTAssertEqual(b.zigSimJSON($0, arrival: 6, emit: { _ in XCTFail() }), .badJSON, bad)
            }
        }
        XCTAssertEqual(b.stats.malformed, 4)
    }

    func testSensors2OSCUnitsAndOneFramePerMessage() throws {
        let (f, _) = frames([
            (OSCPacket.message("/accelerometer", [.f(0), .f(0), .f(9.80665)]), 1000),
            (OSCPacket.message("/gyroscope", [.f(0.5), .f(0), .f(0)]), 2000),
            (OSCPacket.message("/orientation", [.f(90), .f(0), .f(0)]), 3000)
        ])
        XCTAssertEqual(f.count, 3)
        XCTAssertEqual(f[0][.accelZ], 1, accuracy: 1e-6)
        XCTAssertEqual(f[0].newGroups, SensorGroup.accelerometer.bit)
        XCTAssertEqual(f[1][.gyroX], 0.5)
        XCTAssertTrue(f[1][.accelZ].isNaN, "values of earlier messages are not carried into later frames")
        XCTAssertEqual(f[2][.yaw], Double.pi / 2, accuracy: 1e-6)
    }

    func testTimeIsMonotonicAndRepeatsSplitAFrame() throws {
        // two accelerometer readings in one bundle: two frames, 1 µs apart; a timetag going
        // backwards does not move time back
        let two = OSCPacket.bundle(
            1,
            [
                OSCPacket.message("/accxyz", [.f(0.1), .f(0), .f(0)]),
                OSCPacket.message("/accxyz", [.f(0.2), .f(0), .f(0)])
            ])
        let tt1: UInt64 = 100 << 32, tt2: UInt64 = (100 << 32) + (1 << 31), tt0: UInt64 = 99 << 32
        let (f, _) = frames([
            (two, 5_000_000_000),
            (OSCPacket.bundle(tt1, [OSCPacket.message("/accxyz", [.f(0.3)])]), 5_010_000_000),
            (OSCPacket.bundle(tt2, [OSCPacket.message("/accxyz", [.f(0.4)])]), 5_900_000_000),
            (OSCPacket.bundle(tt0, [OSCPacket.message("/accxyz", [.f(0.5)])]), 6_000_000_000)
        ])
        XCTAssertEqual(f.map { $0[.accelX] }, [0.1, 0.2, 0.3, 0.4, 0.5].map { Double(Float($0)) })
        let t = f.map { $0.time(.accelerometer) }
        XCTAssertEqual(t[0], 0); XCTAssertEqual(t[1], 1e-6, accuracy: 1e-12)
        XCTAssertEqual(t[2], 0.01, accuracy: 1e-9, "the first timetag is aligned to its arrival")
        XCTAssertEqual(t[3], 0.51, accuracy: 1e-9, "then the timetag's own clock")
        XCTAssertEqual(t[4], t[3] + 1e-6, accuracy: 1e-9)
    }

    func testMalformedPacketIsCountedAndChangesNothing() {
        var b = OSCFrameBuilder()
        var n = 0
        let bad = Array(OSCPacket.message("/accxyz", [.f(1)]).dropLast(4))
        bad.withUnsafeBytes { XCTAssertEqual(b.packet($0, arrival: 1, emit: { _ in n += 1 }), .truncated) }
        XCTAssertEqual(n, 0)
        XCTAssertEqual(b.stats.malformed, 1)
        XCTAssertEqual(b.stats.packets, 1)
    }

    func testCustomOSCSourcesFeedTheMapper() throws {
        var maps = [
            try Mapping(parsing: "osc:/1/fader1 cc=20 smooth=0"),
            try Mapping(parsing: "osc:/multi[2] cc=21 smooth=0 range=0..10"),
            try Mapping(parsing: "osc:/1/fader1 cc=22 smooth=0 invert")
        ]
        let (routes, error) = OSCRoutes.assign(&maps)
        XCTAssertNil(error)
        XCTAssertEqual(routes.routes.count, 2, "two mappings of one address share a slot")
        var mapper = Mapper(mappings: maps)
        let (f, _) = frames(
            [
                (OSCPacket.message("/1/fader1", [.f(0.5)]), 10),
                (OSCPacket.message("/multi", [.i(1), .i(2), .f(10)]), 20),
                (OSCPacket.message("/1/fader1", [.f(1)]), 30)
            ], routes: routes)
        var events: [MIDIEvent] = []
        for fr in f { mapper.process(fr) { events.append($0.midi!) } }
        XCTAssertEqual(events.map { "\($0.controller)=\($0.value)" }, ["20=64", "22=64", "21=127", "20=127", "22=0"])
    }

    func testOSCSourceSyntax() throws {
        XCTAssertEqual(
            try Mapping(parsing: "osc:/a/b[3] cc=1").source, .custom(OSCSource(address: "/a/b", argument: 3)))
        XCTAssertEqual(Source(parsing: "OSC:/Case/Kept")?.description, "osc:/Case/Kept")
        for bad in ["osc:", "osc:a", "osc:/a[16]", "osc:/a[-1]", "osc:/a[x]", "osc:/", "osc:/a//b", "osc:/a/"] {
            XCTAssertThrowsError(try Mapping(parsing: "\(bad) cc=1"), bad) { e in
                XCTAssertTrue("\(e)".contains("osc:/address"), "\(e)")
            }
        }
        var many = try (0..<17).map { try Mapping(parsing: "osc:/a\($0) cc=1") }
        XCTAssertNotNil(OSCRoutes.assign(&many).error)
    }

    func testSenderNamesMatchTheirParts() {
        let name = "zigsim@192.168.1.5/UUID-1"
        for w in [name, "zigsim", "192.168.1.5", "zigsim@192.168.1.5", "UUID-1"] {
            XCTAssertTrue(Mapping.sender(name, matches: w), w)
        }
        for w in ["192.168.1.6", "gyrosc", "UUID", "192.168.1.5/UUID-1", ""] {
            XCTAssertFalse(Mapping.sender(name, matches: w), w)
        }
        XCTAssertTrue(Mapping.sender("10.0.0.2", matches: "10.0.0.2"), "plain addresses as before")
        XCTAssertFalse(Mapping.sender("10.0.0.2", matches: "10.0.0.3"))
        XCTAssertFalse(Mapping.sender(nil, matches: "x"))
    }

    func testRecordedFramesParseBackToTheSameFrames() throws {
        let packets: [([UInt8], UInt64)] = [
            (
                OSCPacket.bundle(
                    1,
                    [
                        OSCPacket.message("/d/accel", [.f(0.1), .f(0.2), .f(0.3)]),
                        OSCPacket.message("/d/gyro", [.f(1.25), .f(-2), .f(3)])
                    ]), 1_000_000_000
            ),
            (OSCPacket.message("/gyrosc/quat", [.f(1), .f(0), .f(0), .f(0)]), 1_010_000_000),
            (OSCPacket.message("/accxyz", [.f(-0.5), .f(0), .f(-1)]), 1_020_000_123),
            (OSCPacket.message("/gyrosc/gyro", [.f(0.1), .f(0.2), .f(0.3)]), 1_030_000_000),
            (OSCPacket.message("/accxyz", [.f(0.5), .N, .f(1)]), 1_040_000_000)
        ]
        let (live, _) = frames(packets)
        var w = FrameCSVWriter()
        var text: [UInt8] = Array(FrameCSVWriter.header.utf8)
        for f in live { w.append(f, to: &text) }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
        let parsed = parseLines(lines)
        XCTAssertEqual(parsed.frames.count, live.count, lines.joined(separator: "\n"))
        for (a, b) in zip(live, parsed.frames) {
            XCTAssertEqual(a.newGroups, b.newGroups)
            for g in SensorGroup.allCases where a.has(g) { XCTAssertEqual(a.time(g), b.time(g)) }
            for q in Quantity.allCases where a.has(q.group) {
                XCTAssertTrue(a[q] == b[q] || (a[q].isNaN && b[q].isNaN), "\(q): \(a[q]) vs \(b[q])")
            }
        }
    }
}

final class OSCAllocationTests: XCTestCase {
    func testOSCPacketsToMappedEventsAllocatesNothing() throws {
        #if DEBUG
            throw XCTSkip("allocation-freedom is a property of optimised builds: tools/test runs this in release")
        #else
            var maps = [
                try Mapping(parsing: "accel.x cc=11"), try Mapping(parsing: "quat.w cc=12 sender=zigsim"),
                try Mapping(parsing: "osc:/1/fader1 cc=13")
            ]
            let (routes, _) = OSCRoutes.assign(&maps)
            var builder = OSCFrameBuilder(routes: routes)
            var mapper = Mapper(mappings: maps)
            let name = "zigsim@10.0.0.2/dev"
            let packets: [[UInt8]] = (0..<2000).map { i in
                let x = Float(sin(Double(i) / 10))
                switch i % 3 {
                case 0: return OSCPacket.message("/accxyz", [.f(x), .f(0), .f(-1)])
                case 1:
                    return OSCPacket.bundle(
                        1,
                        [
                            OSCPacket.message("/dev/accel", [.f(x), .f(0), .f(0)]),
                            OSCPacket.message("/dev/quaternion", [.f(0), .f(0), .f(0), .f(x)])
                        ])
                default: return OSCPacket.message("/1/fader1", [.f(abs(x))])
                }
            }
            var events = 0
            var arrival: UInt64 = 1_000_000_000
            for p in packets.prefix(30) {
                arrival += 1_000_000
                p.withUnsafeBytes {
                    _ = builder.packet(
                        $0, arrival: arrival, emit: { f in mapper.process(f, sender: name) { _ in events += 1 } })
                }
            }
            let allocations = Allocations.least {
                for p in packets.dropFirst(30) {
                    arrival += 1_000_000
                    p.withUnsafeBytes {
                        _ = builder.packet(
                            $0, arrival: arrival, emit: { f in mapper.process(f, sender: name) { _ in events += 1 } })
                    }
                }
            }
            XCTAssertGreaterThan(events, 500)
            XCTAssertEqual(
                allocations.least, 0,
                "allocations while decoding and mapping \(packets.count - 30) OSC packets, by round: \(allocations.counts)"
            )
        #endif
    }
}

extension Result {
    var failureValue: Failure? { if case .failure(let e) = self { return e } else { return nil } }
}
