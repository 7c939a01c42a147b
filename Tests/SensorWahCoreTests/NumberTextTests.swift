// NumberText: a table of values x styles x expected text, and each style checked against the
// copy it replaced (kept here verbatim) over a grid of values, so every output stays the same.

import Foundation
import XCTest
@testable import SensorWahCore

final class NumberTextTests: XCTestCase {
    func testFixed() {
        let table: [(Double, Int, String)] = [
            (12.345, 1, "12.3"), (0.25, 1, "0.3"), (-0.25, 1, "-0.3"), (0.05, 1, "0.1"),
            (-0.04, 1, "0.0"), (-0.0, 1, "0.0"), (0, 2, "0.00"), (3, 0, "3"), (-2.5, 0, "-3"),
            (1.005, 2, "1.00"), (-1.5, 3, "-1.500"), (1e12, 1, "1000000000000.0"), (7.0625, 3, "7.063")
        ]
        for (v, d, want) in table { XCTAssertEqual(NumberText.fixed(v, d), want, "fixed(\(v), \(d))") }
        XCTAssertEqual(NumberText.fixed(.nan, 1), "nan")
        XCTAssertEqual(NumberText.fixed(.infinity, 1), "inf")
        XCTAssertEqual(NumberText.fixed(-.infinity, 1), "-inf")
        XCTAssertEqual(NumberText.fixed(.nan, 1, nonFinite: .nan("-")), "-")
        XCTAssertEqual(NumberText.fixed(-.infinity, 1, nonFinite: .nan("-")), "-inf")
        XCTAssertEqual(NumberText.fixed(.infinity, 1, nonFinite: .all("")), "")
        XCTAssertEqual(NumberText.fixed(1e19, 1), "1e+19")
    }

    func testPrintf() {
        let table: [(Double, Int, String)] = [
            (0.125, 2, "0.12"), (0.375, 2, "0.38"), (2.5, 0, "2"), (3.5, 0, "4"), (1.005, 2, "1.00"),
            (-0.0001, 3, "0.000"), (-0.0, 2, "0.00"), (-0.4, 0, "0"), (-1.25, 1, "-1.2"),
            (1e20, 1, "100000000000000000000.0"), (12.3456, 3, "12.346")
        ]
        for (v, d, want) in table {
            XCTAssertEqual(NumberText.printf(v, d, minusZero: false), want, "printf(\(v), \(d))")
        }
        XCTAssertEqual(NumberText.printf(-0.0001, 3), "-0.000")
        XCTAssertEqual(NumberText.printf(.nan, 2), "nan")
        XCTAssertEqual(NumberText.printf(-.infinity, 2), "-inf")
    }

    func testTrimmed() {
        let table: [(Double, Int, String)] = [
            (0.25, 6, "0.25"), (-1, 6, "-1"), (12.5, 4, "12.5"), (0, 3, "0"), (-0.0, 3, "0"),
            (-0.0004, 3, "0"), (0.0005, 3, "0.001"), (-0.0005, 3, "-0.001"), (1.10, 3, "1.1"),
            (0.000001, 6, "0.000001"), (1e10, 6, "10000000000.0"), (1e10, 3, "10000000000"), (1e17, 1, "1e+17"),
            (123456.7, 1, "123456.7"), (2.5, 0, "3")
        ]
        for (v, d, want) in table { XCTAssertEqual(NumberText.trimmed(v, d), want, "trimmed(\(v), \(d))") }
        XCTAssertEqual(NumberText.trimmed(.nan, 3), "")
        XCTAssertEqual(NumberText.trimmed(.infinity, 3), "")
        XCTAssertEqual(NumberText.trimmed(.nan, 3, nonFinite: .swift), "nan")
    }

    func testRounded() {
        let table: [(Double, Int, String)] = [
            (0.12345, 3, "0.123"), (2, 3, "2.0"), (-0.0001, 3, "-0.0"), (0.25, 1, "0.3"), (-0.25, 1, "-0.3"),
            (9.80665, 4, "9.8067"), (1e20, 1, "1e+20"), (-12.34, 0, "-12.0")
        ]
        for (v, d, want) in table { XCTAssertEqual(NumberText.rounded(v, d), want, "rounded(\(v), \(d))") }
        XCTAssertEqual(NumberText.rounded(.nan, 3), "nan")
        XCTAssertEqual(NumberText.rounded(-.infinity, 3), "-inf")
        let padded: [(Double, Int, String)] = [
            (2, 2, "2.00"), (0.5, 3, "0.500"), (-0.001, 2, "-0.00"), (2.5, 0, "3"), (-0.4, 0, "0"),
            (1.23456, 2, "1.23"), (1e-7, 8, "1e-07"), (1e20, 2, "1e+20")
        ]
        for (v, d, want) in padded {
            XCTAssertEqual(NumberText.rounded(v, d, padded: true), want, "padded(\(v), \(d))")
        }
        XCTAssertEqual(NumberText.rounded(.nan, 2, padded: true), "nan")
        XCTAssertEqual(NumberText.rounded(.infinity, 0, padded: true), "inf")
    }

    func testWhole() {
        let table: [(Double, String)] = [
            (3, "3"), (-0.0, "0"), (2.5, "2.5"), (-7, "-7"), (0.1, "0.1"), (1e20, "1e+20"), (1e14, "100000000000000"),
            (1e15, "1000000000000000.0"), (1e16, "1e+16"), (.nan, "nan"), (.infinity, "inf")
        ]
        for (v, want) in table { XCTAssertEqual(NumberText.whole(v), want, "whole(\(v))") }
        XCTAssertEqual(NumberText.whole(1e9, limit: 1e9), "1000000000.0")
    }

    // MARK: against the copies it replaced

    static let grid: [Double] = {
        var g: [Double] = [
            0, -0.0, 0.5, -0.5, 0.25, -0.25, 0.125, 0.05, -0.05, 0.0005, -0.0005, 0.00005, 1.005, 2.675,
            9.80665, -9.80665, 1e6, -1e6 - 0.5, 123456.789, 1e-9, -1e-9, 1e10, 0.1, 0.2, 0.3
        ]
        var x = -50.0
        while x <= 50 { g.append(x); x += 0.0137 }
        for i in 0..<2000 { g.append(sin(Double(i) * 12.9898) * pow(10, Double(i % 9) - 4)) }
        return g
    }()

    func testFixedIsTheLiveViewAndJackCopies() {
        for v in Self.grid + [.nan, .infinity, -.infinity] {
            for d in 0...4 {
                XCTAssertEqual(NumberText.fixed(v, d, nonFinite: .nan("-")), Self.liveViewFmt(v, d), "\(v) \(d)")
            }
            XCTAssertEqual(NumberText.fixed(v, 1), Self.jackFmt1(v), "\(v)")
        }
    }

    func testPrintfIsTheGesturesFileAndTeachCopies() {
        for v in Self.grid + [
            .nan, -.nan, .infinity, -.infinity, 0 * -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude
        ] {
            for d in [0, 1, 2, 3, 4, 5, 6, 12, 40] {
                if d > 0 { XCTAssertEqual(NumberText.printf(v, d, minusZero: false), Self.gestureF(v, d), "\(v) \(d)") }
                XCTAssertEqual(NumberText.printf(v, d), String(format: "%.\(d)f", v), "\(v) \(d)")
            }
        }
    }

    func testTrimmedIsTheExportCopy() {
        for v in Self.grid + [.nan, .infinity, -.infinity] {
            for d in 0...6 { XCTAssertEqual(NumberText.trimmed(v, d), Self.exportFormat(v, digits: d), "\(v) \(d)") }
        }
    }

    func testRoundedIsTheShortestCopies() {
        for v in Self.grid + [.nan, .infinity, -.infinity] {
            XCTAssertEqual(NumberText.rounded(v, 3), String((v * 1000).rounded() / 1000))
            XCTAssertEqual(NumberText.rounded(v, 2), String((v * 100).rounded() / 100))
            XCTAssertEqual(NumberText.rounded(v, 4), String((v * 10_000).rounded() / 10_000))
            XCTAssertEqual(NumberText.rounded(max(v, 0), 1), String((max(v, 0) * 10).rounded() / 10))
            for d in 0...4 where !(d == 0 && abs(v) > 1e15) {
                XCTAssertEqual(NumberText.rounded(v, d, padded: true), Self.renderFmt(v, d), "\(v) \(d)")
            }
        }
    }

    func testWholeIsTheSecondsAndParameterCopies() {
        for v in Self.grid + [.nan] {
            XCTAssertEqual(NumberText.whole(v), v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v))
            XCTAssertEqual(NumberText.whole(v), v == v.rounded() ? String(Int(v)) : String(v))
        }
    }

    func testWholeWithSignificantDigitsIsTheTeachCopy() {
        for v in Self.grid + [.nan, .infinity, -.infinity, 1e9, 123_456_789, 1_234_567, 0.000012345] {
            XCTAssertEqual(NumberText.whole(v, limit: 1e9, significant: 6), Self.teachF(v), "\(v)")
        }
        XCTAssertEqual(NumberText.whole(1_234_567, limit: 1e9, significant: 6), "1234567")
        XCTAssertEqual(NumberText.whole(1e9, limit: 1e9, significant: 6), "1e+09")
        XCTAssertEqual(NumberText.whole(0.1234567, limit: 1e9, significant: 6), "0.123457")
    }

    func testTrimmedIsTheEffectParameterCopy() {
        for v in Self.grid + [.nan] {
            XCTAssertEqual(NumberText.trimmed(v, 2, nonFinite: .swift), Self.effectShow(v), "\(v)")
        }
    }

    func testRoundedIsTheRateCheckCopy() {
        for v in Self.grid + [.nan, .infinity, -.infinity, 1234.5678, 0.00012345678] {
            let a = abs(v)
            let digits = a >= 100 ? 0 : (a >= 1 ? 2 : (a >= 0.001 ? 5 : 9))
            XCTAssertEqual(NumberText.rounded(v, digits), Self.rateCheckText(v), "\(v)")
        }
    }

    // The copies, verbatim.

    static func teachF(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(format: "%g", v)
    }

    static func effectShow(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    static func rateCheckText(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let a = abs(x)
        let digits: Double = a >= 100 ? 1 : (a >= 1 ? 100 : (a >= 0.001 ? 1e5 : 1e9))
        return "\((x * digits).rounded() / digits)"
    }

    static func liveViewFmt(_ v: Double, _ digits: Int) -> String {
        guard v.isFinite else { return v.isNaN ? "-" : "\(v)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let n = Int((abs(v) * scale).rounded())
        let whole = n / Int(scale)
        var frac = "\(n % Int(scale))"
        while frac.count < digits { frac = "0" + frac }
        return (v < 0 && n != 0 ? "-" : "") + "\(whole)" + (digits > 0 ? "." + frac : "")
    }

    static func jackFmt1(_ v: Double) -> String {
        guard v.isFinite else { return String(v) }
        let tenths = Int((v * 10).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    static func gestureF(_ v: Double, _ digits: Int) -> String {
        let s = String(format: "%.\(digits)f", v)
        return s == "-0." + String(repeating: "0", count: digits) ? "0." + String(repeating: "0", count: digits) : s
    }

    static func exportFormat(_ v: Double, digits: Int) -> String {
        guard v.isFinite else { return "" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        guard abs(v) * scale < 9e15 else { return "\(v)" }
        let n = Int((abs(v) * scale).rounded())
        if n == 0 { return "0" }
        let whole = n / Int(scale), frac = n % Int(scale)
        var s = v < 0 ? "-" : ""
        s += String(whole)
        if frac != 0 {
            var f = String(frac)
            f = String(repeating: "0", count: digits - f.count) + f
            while f.last == "0" { f.removeLast() }
            s += "." + f
        }
        return s
    }

    static func renderFmt(_ v: Double, _ decimals: Int) -> String {
        guard v.isFinite else { return String(v) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (v * scale).rounded() / scale
        if decimals == 0 { return String(Int(r)) }
        var s = String(r)
        if let dot = s.firstIndex(of: ".") {
            let have = s.distance(from: dot, to: s.endIndex) - 1
            if have < decimals { s += String(repeating: "0", count: decimals - have) }
        }
        return s
    }
}
