import XCTest
@testable import SensorWahCore

/// The phone browser's batches (`listen --web`): read, refused with what was seen, and turned
/// into SensorLog's units and signs whichever convention the browser follows.
final class BrowserMotionTests: XCTestCase {
    func decode(_ text: String) throws -> BrowserMotion.Batch {
        try Array(text.utf8).withUnsafeBytes { b in try BrowserMotion.decode(b) }
    }

    func frames(_ texts: [String]) throws -> (frames: [SensorFrame], motion: BrowserMotion) {
        var m = BrowserMotion()
        var out: [SensorFrame] = []
        for t in texts { m.add(try decode(t)) { out.append(copy $0) } }
        return (out, m)
    }

    /// A phone held facing the player, as the W3C specification reports it (Chrome): gravity
    /// read as +y/+z; in SensorLog's convention that is -y/-z in G. The rotation rate's alpha,
    /// beta, gamma (about z, x, y, in degrees a second) become gyro x, y, z in rad/s.
    func testSpecificationSignAndUnits() throws {
        // the first readings vote on the sign: half a second of the phone held facing the player
        let rest = (1...BrowserMotion.signVotes).map { "\(990 - $0 * 10) 0 6.9345 6.9345 - - - - - -" }.reversed()
            .joined(separator: "\n")
        let (all, m) = try frames([
            "SWW1 my%20phone\n" + rest + "\n1000.5 0 6.9345 6.9345 0.5 0 0 90 180 -45\n1020.5 1.0 6.9 6.9 - - - - - -\n"
        ])
        XCTAssertEqual(m.convention, .specification)
        XCTAssertEqual(all.count, BrowserMotion.signVotes + 2)
        let f = Array(all.suffix(2))
        XCTAssertEqual(f[0][.accelY], -6.9345 / 9.80665, accuracy: 1e-12)
        XCTAssertEqual(f[0][.accelZ], -6.9345 / 9.80665, accuracy: 1e-12)
        XCTAssertEqual(f[0][.userX], -0.5 / 9.80665, accuracy: 1e-12)
        XCTAssertEqual(f[0][.gyroX], .pi, accuracy: 1e-12)  // beta
        XCTAssertEqual(f[0][.gyroY], -.pi / 4, accuracy: 1e-12)  // gamma
        XCTAssertEqual(f[0][.gyroZ], .pi / 2, accuracy: 1e-12)  // alpha
        XCTAssertTrue(f[0].has(.accelerometer) && f[0].has(.gyro) && f[0].has(.motion))
        XCTAssertTrue(f[1].has(.accelerometer) && !f[1].has(.gyro) && !f[1].has(.motion), "absent values are absent")
        XCTAssertEqual(
            f[1].time(.accelerometer) - f[0].time(.accelerometer), 0.020, accuracy: 1e-9, "the browser's clock")
        XCTAssertEqual(all[0].time(.accelerometer), 0, "from the first sample")
        XCTAssertEqual(try decode("SWW1 my%20phone\n").name, "my phone")
    }

    /// Older Safari on iOS reports the opposite sign: the same pose reads -y/-z there, and the
    /// frames come out the same as from the specification's browser.
    func testInvertedSignGivesTheSameFrames() throws {
        func take(_ sign: Double) -> String {
            "SWW1 -\n"
                + (0..<40).map { i in
                    let x = 0.3 * Double(i % 5)
                    return "\(i * 10) \(sign * x) \(sign * 6.9) \(sign * 6.9) \(sign * 0.1) 0 0 10 20 30"
                }.joined(separator: "\n") + "\n"
        }
        let spec = try frames([take(1)]).frames
        let ios = try frames([take(-1)])
        XCTAssertEqual(ios.motion.convention, .inverted)
        XCTAssertEqual(spec.count, 40); XCTAssertEqual(ios.frames.count, 40)
        for (a, b) in zip(spec, ios.frames) {
            for q in [Quantity.accelX, .accelY, .accelZ, .userX, .gyroX, .gyroY, .gyroZ] {
                XCTAssertEqual(a[q], b[q], accuracy: 1e-12)
            }
        }
        XCTAssertEqual(spec[2][.accelX], -0.6 / 9.80665, accuracy: 1e-12)
    }

    /// A phone lying the wrong way up for a moment at the start does not decide the sign: the
    /// readings near 1 G vote.
    func testTheSignIsAVote() throws {
        var lines = ["SWW1 -"]
        for i in 0..<5 { lines.append("\(i * 10) 0 -6.9 -6.9 - - - - - -") }  // face down for 50 ms
        for i in 5..<40 { lines.append("\(i * 10) 0 6.9 6.9 - - - - - -") }
        XCTAssertEqual(try frames([lines.joined(separator: "\n") + "\n"]).motion.convention, .specification)
    }

    /// No reading near 1 G yet (the phone is being swung): the frames wait for the sign, then
    /// come out in order; after `maxUndecided` the sign most readings had is taken.
    func testFramesWaitForTheSign() throws {
        var m = BrowserMotion()
        var out: [SensorFrame] = []
        m.add(try decode("SWW1 -\n0 0 25 0 - - - - - -\n10 0 24 0 - - - - - -\n")) { out.append(copy $0) }
        XCTAssertTrue(out.isEmpty)
        XCTAssertNil(m.convention)
        let rest = (2..<(2 + BrowserMotion.signVotes)).map { "\($0 * 10) 0 9.8 0.2 - - - - - -" }.joined(
            separator: "\n")
        m.add(try decode("SWW1 -\n" + rest + "\n")) { out.append(copy $0) }
        XCTAssertEqual(m.convention, .specification)
        XCTAssertEqual(out.count, 2 + BrowserMotion.signVotes)
        XCTAssertEqual(out.prefix(3).map { $0.time(.accelerometer) }, [0, 0.01, 0.02])
        XCTAssertEqual(out[0][.accelY], -25 / 9.80665, accuracy: 1e-12)
        var n = BrowserMotion()
        var many = "SWW1 -\n"
        for i in 0..<BrowserMotion.maxUndecided { many += "\(i * 10) 0 -30 -2 - - - - - -\n" }
        var got = 0
        n.add(try decode(many)) { _ in got += 1 }
        XCTAssertEqual(n.convention, .inverted)
        XCTAssertEqual(got, BrowserMotion.maxUndecided)
    }

    /// The page loaded again: its clock starts near 0 once more; the sender's time goes on from
    /// where it was instead of every reading being dropped as late.
    func testAReloadedPageGoesOn() throws {
        let rest = (0..<30).map { "\(5000 + $0 * 10) 0 6.9 6.9 - - - - - -" }.joined(separator: "\n")
        let again = (0..<5).map { "\(20 + $0 * 10) 0 6.9 6.9 - - - - - -" }.joined(separator: "\n")
        let (f, m) = try frames(["SWW1 p\n" + rest + "\n", "SWW1 p\n" + again + "\n"])
        XCTAssertEqual(f.count, 35)
        XCTAssertEqual(m.late, 0)
        XCTAssertEqual(m.restarts, 1)
        XCTAssertEqual(f[30].time(.accelerometer), f[29].time(.accelerometer) + 0.01, accuracy: 1e-9)
    }

    /// A batch sent again, or late, loses nothing new: samples older than the last frame are dropped.
    func testLateSamplesAreDropped() throws {
        let first = (0..<30).map { "\($0 * 10) 0 9.8 0 - - - - - -" }.joined(separator: "\n")
        let (f, m) = try frames([
            "SWW1 -\n" + first + "\n", "SWW1 -\n290 0 9.8 0 - - - - - -\n300 0 9.8 0 - - - - - -\n"
        ])
        XCTAssertEqual(f.count, 31)
        XCTAssertEqual(m.late, 1)
        XCTAssertEqual(m.restarts, 0)
    }

    func testAnythingElseIsRefusedWithWhatWasSeen() {
        func reason(_ t: String) -> String {
            do { _ = try decode(t); return "" } catch { return (error as? BrowserMotion.Refusal)?.reason ?? "\(error)" }
        }
        XCTAssertEqual(reason(""), "an empty batch (expected a first line SWW1 NAME)")
        XCTAssertTrue(
            reason("{\"messageId\":1}\n").hasPrefix("not a SensorWah web batch: the first line is '{\"messageId\":1}'"))
        XCTAssertEqual(reason("SWW1 -\n1 2 3\n"), "line 2 has 3 fields, expected 10: T AX AY AZ UX UY UZ RA RB RG")
        XCTAssertEqual(reason("SWW1 -\n1 2 3 4 5 6 7 8 9 x\n"), "line 2, field 10: 'x' is not a number")
        XCTAssertEqual(reason("SWW1 -\n- 2 3 4 5 6 7 8 9 1\n"), "line 2 has no time")
        XCTAssertEqual(reason("SWW1 %zz\n"), "the sender's name is not percent-encoded UTF-8 of at most 64 bytes")
        XCTAssertEqual(reason("SWW1 a%0Ab\n"), "the sender's name is not percent-encoded UTF-8 of at most 64 bytes")
        XCTAssertEqual(
            reason("SWW1 -\n" + String(repeating: "1 ", count: 200) + "\n"), "line 2 is longer than 256 bytes")
        XCTAssertEqual(reason("SWW1 -\n" + String(repeating: "a\n", count: 5000)), "more than 2000 lines in one batch")
    }
}
