import XCTest
@testable import SensorWahCore

final class NumberParsingTests: XCTestCase {
    func value(_ s: String) -> FieldValue {
        var t = s
        return t.withUTF8 { parseField($0.baseAddress!, $0.count) }
    }

    func testPlainDecimalsAreExact() {
        for s in [
            "-1.017181396484375", "0.410919189453125", "9130.260591916667", "1741718647.692164", "0", "-0.0", "42",
            "+3.5", "0.0040415954"
        ] {
            XCTAssertEqual(value(s), .number(Double(s)!), s)
        }
    }

    func testJavaStyleExponents() {
        XCTAssertEqual(value("1.015325254E0"), .number(1.015325254))
        XCTAssertEqual(value("-6.231797E-4"), .number(-6.231797E-4))
        XCTAssertEqual(value("2e3"), .number(2000))
    }

    func testLongMantissaFallsBackToStrtodAndStaysExact() {
        let s = "0.12345678901234567890123"
        XCTAssertEqual(value(s), .number(Double(s)!))
        XCTAssertEqual(value("1e308"), .number(1e308))
        XCTAssertEqual(value("1e-320"), .number(Double("1e-320")!))
    }

    func testMissingValuesAreNotZero() {
        for s in ["", "null", "NULL", "  ", "nan", "NaN", "\r"] { XCTAssertEqual(value(s), .missing, "'\(s)'") }
    }

    func testGarbageIsInvalid() {
        for s in ["abc", "1.2.3", "--1", "1e", "0x10", "inf", "-Infinity", "1e400", "12abc", "\u{1}\u{2}", "1,5"] {
            XCTAssertEqual(value(s), .invalid, "'\(s)'")
        }
    }

    func testRandomDecimalsMatchTheStandardLibrary() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            let d = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)  // finite
            let scaled = (Double(rng.next() % 2_000_000) - 1_000_000) / 1e6 * pow(10, Double(rng.next() % 8))
            for x in [scaled, d] {
                let s = "\(x)"
                XCTAssertEqual(value(s), .number(x), s)
            }
        }
    }
}
