import Foundation
import XCTest

/// `sensorwah render` as a user runs it: formats from extensions, gesture or held pedal, the
/// summary, clear errors.
final class JackRenderTests: XCTestCase {
    func testRenderGestureAndHeldPedalInEveryFormat() throws {
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("render-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 44_100
        let x = JackTest.noise(rate * 15)
        let input = dir.appendingPathComponent("in.wav").path
        try JackTest.writeWAV(input, rate: rate, channels: [x, x.reversed()])

        let out = dir.appendingPathComponent("out.wav").path
        let r = try JackTest.sh(binary, ["render", "--recording", "Recordings/wrist-wah-phone.csv", input, out])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("661500 frames x 2 channels at 44100 Hz = 15.000 s of audio"), r.err)
        XCTAssertTrue(r.err.contains("gesture Recordings/wrist-wah-phone.csv: 1256 frames"), r.err)
        XCTAssertTrue(r.err.range(of: "= [0-9]+x real time", options: .regularExpression) != nil, r.err)
        let (outRate, ch) = try JackTest.readWAV(out)
        XCTAssertEqual(outRate, rate)
        XCTAssertEqual(ch.count, 2)
        XCTAssertEqual(ch[0].count, x.count)
        XCTAssertTrue(ch[0].allSatisfy { $0.isFinite && abs($0) < 4 })
        XCTAssertNotEqual(ch[0], x, "the wah did nothing")

        // a held pedal is a fixed band-pass: its spectral peak sits at the centre frequency
        for (pedal, centre) in [(0, 450.0), (127, 2200.0)] {
            let held = dir.appendingPathComponent("held\(pedal).wav").path
            XCTAssertEqual(try JackTest.sh(binary, ["render", "--pedal", String(pedal), input, held]).status, 0)
            let y = try JackTest.readWAV(held).channels[0]
            var power = [Double](repeating: 0, count: 2049)
            var start = rate
            while start + 4096 <= y.count {
                let m = JackTest.spectrum(y[start..<(start + 4096)])
                for k in 0..<m.count { power[k] += m[k] * m[k] }
                start += 4096
            }
            let peak = JackTest.peakFrequency(
                power.map { $0.squareRoot() }, rate: rate, n: 4096, lo: 100, hi: 8000, smooth: 2)
            XCTAssertEqual(
                log2(peak / centre), 0, accuracy: 0.1, "pedal \(pedal): peak at \(peak) Hz, expected \(centre)")
        }

        for ext in ["flac", "aiff", "aif"] {
            let o = dir.appendingPathComponent("out.\(ext)").path
            let e = try JackTest.sh(binary, ["render", "--pedal", "64", input, o])
            XCTAssertEqual(e.status, 0, e.err)
            let sox = try? JackTest.sh("soxi", ["-t", o])
            // AIFF with float samples is AIFF-C ("aifc")
            if let sox, sox.status == 0 {
                XCTAssertTrue(sox.out.lowercased().hasPrefix(ext == "flac" ? "flac" : "aif"), sox.out)
            }
        }
        let flacIn = dir.appendingPathComponent("out.flac").path
        XCTAssertEqual(
            try JackTest.sh(binary, ["render", "--pedal", "10", flacIn, dir.appendingPathComponent("again.wav").path])
                .status, 0)
    }

    /// `--voice crybaby`: the held pedal's spectral peak sits at the Cry Baby's resonance (about
    /// 410 Hz at the heel, 1.75 kHz at the toe) and the peak is boosted, as in the circuit.
    func testRenderCrybabyVoice() throws {
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("render-crybaby")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        let x = JackTest.noise(rate * 4).map { $0 * 0.1 }
        let input = dir.appendingPathComponent("in.wav").path
        try JackTest.writeWAV(input, rate: rate, channels: [x])
        for (pedal, resonance) in [(0, 410.0), (64, 880.0), (127, 1750.0)] {
            let held = dir.appendingPathComponent("cb\(pedal).wav").path
            let r = try JackTest.sh(
                binary,
                ["render", "--voice", "crybaby", "--pedal", String(pedal), "--sample-format", "float", input, held])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertTrue(r.err.contains("wah: crybaby"), r.err)
            let y = try JackTest.readWAV(held).channels[0]
            XCTAssertEqual(y.count, x.count)
            var power = [Double](repeating: 0, count: 2049)
            var start = rate / 2
            while start + 4096 <= y.count {
                let m = JackTest.spectrum(y[start..<(start + 4096)])
                for k in 0..<m.count { power[k] += m[k] * m[k] }
                start += 4096
            }
            let peak = JackTest.peakFrequency(
                power.map { $0.squareRoot() }, rate: rate, n: 4096, lo: 100, hi: 8000, smooth: 2)
            XCTAssertEqual(
                log2(peak / resonance), 0, accuracy: 0.15, "pedal \(pedal): peak at \(peak) Hz, expected \(resonance)")
        }
    }

    /// The auto-wah from the command line: `--wah-mode envelope` needs no gesture, `both` adds the
    /// held pedal; each sounds different from the sensor alone.
    func testRenderAutoWah() throws {
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("render-auto")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000
        let x = (0..<(rate * 2)).map { n -> Float in
            let t = Double(n % (rate / 2)) / Double(rate)
            return Float(0.4 * exp(-t / 0.12) * sin(2 * .pi * 196 * t))
        }
        let input = dir.appendingPathComponent("plucks.wav").path
        try JackTest.writeWAV(input, rate: rate, channels: [x])
        var outputs: [[Float]] = []
        for args in [
            ["--pedal", "20"], ["--wah-mode", "envelope"],
            ["--wah-mode", "both", "--pedal", "20", "--attack", "2", "--release", "80", "--sensitivity", "3"],
            ["--wah-mode", "envelope", "--voice", "crybaby"]
        ] {
            let out = dir.appendingPathComponent("o\(outputs.count).wav").path
            let r = try JackTest.sh(binary, ["render"] + args + ["--sample-format", "float", input, out])
            XCTAssertEqual(r.status, 0, r.err)
            if args.contains("envelope") { XCTAssertTrue(r.err.contains("moved by the envelope"), r.err) }
            let y = try JackTest.readWAV(out).channels[0]
            XCTAssertEqual(y.count, x.count)
            XCTAssertTrue(y.allSatisfy { $0.isFinite })
            outputs.append(y)
        }
        XCTAssertNotEqual(outputs[0], outputs[1])
        XCTAssertNotEqual(outputs[1], outputs[2])
        XCTAssertNotEqual(outputs[1], outputs[3])
    }

    func testRenderErrors() throws {
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("render-err")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.wav").path
        try JackTest.writeWAV(input, rate: 48_000, channels: [JackTest.noise(4800)])
        let out = dir.appendingPathComponent("o.wav").path
        let cases: [([String], String)] = [
            (["render", input, out], "give --recording LOG or --pedal N"),
            (["render", "--pedal", "1", "--recording", "x.csv", input, out], "exclude each other"),
            (["render", "--pedal", "128", input, out], "0...127"),
            (["render", "--pedal", "1", input, dir.appendingPathComponent("o.mp3").path], ".wav, .flac, .aif"),
            (["render", "--pedal", "1", dir.appendingPathComponent("missing.wav").path, out], "cannot read"),
            (["render", "--recording", "Recordings/wrist-wah-phone.csv", "--wah-map", "2", input, out], "--wah-map 2"),
            (
                [
                    "render", "--pedal", "1", "--sample-format", "float", input,
                    dir.appendingPathComponent("o.flac").path
                ], "FLAC"
            ),
            (["render", "--pedal", "1", "--wah-switch", "flick", input, out], "--wah-switch needs --recording"),
            (
                ["render", "--recording", "Recordings/wrist-wah-phone.csv", "--wah-switch", "wink", input, out],
                "flick, shake or tap"
            )
        ]
        for (args, message) in cases {
            let r = try JackTest.sh(binary, args)
            XCTAssertNotEqual(r.status, 0, "\(args) succeeded")
            XCTAssertTrue(r.err.contains(message), "\(args): expected '\(message)' in:\n\(r.err)")
            XCTAssertFalse(r.err.contains("Fatal error") || r.err.contains("crashed"), r.err)
        }
    }

    /// `--wah-switch flick`: the wah starts bypassed (the output is the input, sample for
    /// sample), the recording's first flick (6.28 s) engages it and the second (6.98 s) bypasses
    /// it again, at the flicks' own samples, with the 5 ms crossfade: no step in the output
    /// larger than the sine's own.
    func testRenderHonoursTheWahSwitch() throws {
        let binary = JackTest.debugBinary
        let dir = try JackTest.tempDir("render-switch")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 44_100
        // 300 Hz: far below the toe's band, so the engaged wah is clearly quieter than the input
        let x = (0..<(rate * 10)).map { Float(0.25 * sin(2 * Double.pi * 300 * Double($0) / Double(rate))) }
        let input = dir.appendingPathComponent("sine.wav").path
        try JackTest.writeWAV(input, rate: rate, channels: [x])
        let out = dir.appendingPathComponent("switched.wav").path
        let r = try JackTest.sh(
            binary, ["render", "--recording", "Recordings/wrist-wah-phone.csv", "--wah-switch", "flick", input, out])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("wah switched by flick: 2 switches, starts bypassed"), r.err)
        XCTAssertTrue(r.err.contains(", 2 switches"), r.err)
        let y = try JackTest.readWAV(out).channels[0]
        XCTAssertEqual(y.count, x.count)
        let changed = (0..<y.count).filter { abs(y[$0] - x[$0]) > 1e-4 }
        let first = try XCTUnwrap(changed.first, "the wah was never engaged")
        let last = try XCTUnwrap(changed.last)
        // the flicks, from `replay --map "flick cc=20"`: 6.282 s and 6.980 s, plus the 5 ms fade out
        XCTAssertEqual(Double(first) / Double(rate), 6.282, accuracy: 0.002)
        XCTAssertEqual(Double(last) / Double(rate), 6.985, accuracy: 0.003)
        func rms(_ from: Double, _ to: Double) -> Double {
            let s = y[Int(from * Double(rate))..<Int(to * Double(rate))]
            return (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count)).squareRoot()
        }
        XCTAssertEqual(rms(1, 6), 0.25 / 2.0.squareRoot(), accuracy: 1e-3, "bypassed before the first flick")
        XCTAssertLessThan(rms(6.35, 6.9), 0.05, "engaged between the flicks")
        XCTAssertEqual(rms(7.1, 9.9), 0.25 / 2.0.squareRoot(), accuracy: 1e-3, "bypassed after the second flick")
        // no click: the largest step near each switch is no larger than the sine's own
        let sineStep = (1..<x.count).map { abs(x[$0] - x[$0 - 1]) }.max()!
        for edge in [first, last] {
            let steps = (edge - 2000..<edge + 2000).map { abs(y[$0] - y[$0 - 1]) }
            XCTAssertLessThanOrEqual(
                steps.max()!, sineStep * 1.05, "a step at the switch near \(Double(edge) / Double(rate)) s")
        }
        // the same from a configuration file (`jack:` keys that need a JACK client are not render's)
        let config = dir.appendingPathComponent("wah.yaml").path
        try "jack:\n  wah: true\n  wah-switch: flick\n".write(toFile: config, atomically: true, encoding: .utf8)
        let fromFile = dir.appendingPathComponent("from-file.wav").path
        let c = try JackTest.sh(
            binary, ["render", "--config", config, "--recording", "Recordings/wrist-wah-phone.csv", input, fromFile])
        XCTAssertEqual(c.status, 0, c.err)
        XCTAssertTrue(c.err.contains("wah switched by flick: 2 switches"), c.err)
        XCTAssertEqual(try JackTest.readWAV(fromFile).channels[0], y)
        // without the switch, the same render is engaged from the start
        let plain = dir.appendingPathComponent("plain.wav").path
        XCTAssertEqual(
            try JackTest.sh(binary, ["render", "--recording", "Recordings/wrist-wah-phone.csv", input, plain]).status, 0
        )
        let z = try JackTest.readWAV(plain).channels[0]
        XCTAssertGreaterThan(
            abs(z[rate] - x[rate]) + abs(z[rate + 37] - x[rate + 37]) + abs(z[rate + 91] - x[rate + 91]), 1e-3)
    }
}
