import XCTest
@testable import SensorWahCore

/// A small fuzz of the mapping syntax: random words built from the syntax's own pieces and from
/// junk. Every string must either parse to a usable mapping or give a one-line error; a trap
/// would end the test process.
final class MappingFuzzTests: XCTestCase {
    func testRandomMappingsEitherParseOrFailCleanly() {
        var rng = SeededRandom(seed: 0x5EED_0014)
        let sources = [
            "accel.x", "gyro.z", "pitch", "user.mag", "elbow", "accel.", ".x", "=", "", "accel.x=1", "tilt.x",
            "tilt.pitch", "zero.y", "flick", "tap", "shake", "tilt."
        ]
        let keys = [
            "cc", "cc14", "bend", "ch", "range", "bipolar", "unipolar", "centre", "invert", "deadzone", "curve",
            "smooth", "beta", "reject", "glide", "speed", "rate", "rest", "sender", "", "wobble", "CC", "Range", "zero",
            "note", "toggle", "length", "hold", "relative"
        ]
        let values = [
            "", "0", "1", "-1", "127", "128", "16383", "16384", "31", "32", "1e308", "-1e308", "inf", "-inf",
            "nan", "0.5", "..", "-1..1", "1..-1", "1..", "..1", "1..2..3", "exp:2", "exp:", ":", ":3", "log:0",
            "linear:4", "lin", "none", "off", "shake", "flick", "40ms", "ms", "=", "==", "x", "\u{0}", "é",
            "9999999999999999999999"
        ]
        var parsed = 0, refused = 0
        for _ in 0..<30_000 {
            var words = [sources[Int(rng.next() % UInt64(sources.count))]]
            for _ in 0..<Int(rng.next() % 6) {
                let k = keys[Int(rng.next() % UInt64(keys.count))]
                switch rng.next() % 4 {
                case 0: words.append(k)
                case 1: words.append(k + "=")
                default: words.append(k + "=" + values[Int(rng.next() % UInt64(values.count))])
                }
            }
            let separator = [" ", ",", "\t", ", "][Int(rng.next() % 4)]
            let text = words.joined(separator: separator)
            do {
                let m = try Mapping(parsing: text)
                parsed += 1
                XCTAssertTrue(m.inputMin.isFinite && m.inputMax.isFinite && m.inputMin < m.inputMax, text)
                XCTAssertTrue(
                    m.centre.isFinite && m.smoothing.isFinite && m.beta.isFinite && m.rateLimit.isFinite, text)
                XCTAssertTrue((0...m.target.maxValue).contains(m.rest), text)
                // written out in full (configuration files do this) it parses back to itself
                let back = try? Mapping(parsing: m.syntax)
                XCTAssertEqual(back?.syntax, m.syntax, text)
                XCTAssertEqual(back?.target, m.target, text)
                XCTAssertEqual(back?.rest, m.rest, text)
            } catch let e as MappingSyntaxError {
                refused += 1
                XCTAssertFalse(e.message.isEmpty, text)
                XCTAssertFalse(e.message.contains("\n"), "a multi-line error for \(text): \(e.message)")
            } catch {
                XCTFail("\(text): unexpected error type \(error)")
            }
        }
        XCTAssertGreaterThan(parsed, 500, "the fuzz hardly produced valid mappings")
        XCTAssertEqual(try Mapping(parsing: Mapping.default.syntax), Mapping.default)
        XCTAssertGreaterThan(refused, 500)
    }
}
