import CWahReference
import Foundation
@testable import SensorWahAudioFiles
import SensorWahCore
import XCTest

/// `renderWah`: libsndfile in and out, the pedal applied at exact samples, the same result as the
/// C reference wah, whatever the block size; WAV, FLAC and AIFF.
final class OfflineRenderTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    static func noise(_ n: Int, seed: UInt64) -> [Float] {
        var s = seed
        return (0..<n).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return (Float(Double(s >> 11) / Double(1 << 53)) * 2 - 1) * 0.3
        }
    }

    /// A gesture: a value every 7-40 ms, on CC 11 (plus noise on CC 12 that must be ignored).
    static func automation(rate: Double, seconds: Double) -> PedalAutomation {
        var a = PedalAutomation(target: .controlChange(channel: 0, controller: 11), sampleRate: rate, initialPedal: 0.3)
        var t = 0.013, s: UInt64 = 7
        while t < seconds + 0.5 {
            s = s &* 6364136223846793005 &+ 1
            a.add(.cc(11, UInt16((s >> 33) % 128), at: t))
            a.add(.cc(12, 5, at: t))
            t += 0.007 + Double((s >> 20) % 33) * 0.001
        }
        return a
    }

    /// The C reference over the same input and breakpoints.
    static func reference(_ x: [Float], rate: Double, automation: PedalAutomation) -> [Float] {
        var cs = wah_ref_settings()
        wah_ref_default_settings(&cs)
        var st = wah_ref_state()
        wah_ref_prepare(&st, rate, &cs)
        wah_ref_set_pedal(&st, automation.initialPedal)
        wah_ref_reset(&st)
        var y = [Float](repeating: 0, count: x.count)
        var pos = 0
        let points = automation.breakpoints.filter { $0.frame < x.count }
        var k = 0
        x.withUnsafeBufferPointer { xin in
            y.withUnsafeMutableBufferPointer { yout in
                while pos < x.count {
                    while k < points.count && points[k].frame <= pos { wah_ref_set_pedal(&st, points[k].pedal); k += 1 }
                    let end = k < points.count ? points[k].frame : x.count
                    wah_ref_process(&st, xin.baseAddress! + pos, yout.baseAddress! + pos, Int32(end - pos))
                    pos = end
                }
            }
        }
        return y
    }

    func testRenderEqualsTheCReferenceBitForBitInAnyBlockSize() throws {
        let rate = 48_000, n = rate * 3
        let left = Self.noise(n, seed: 1), right = Self.noise(n, seed: 2)
        try SoundFile.writeAll(path("in.wav"), sampleRate: rate, channels: [left, right], sampleFormat: .float)
        let a = Self.automation(rate: Double(rate), seconds: 3)
        XCTAssertGreaterThan(a.breakpoints.count, 100)
        let refL = Self.reference(left, rate: Double(rate), automation: a)
        let refR = Self.reference(right, rate: Double(rate), automation: a)
        for block in [4096, 1000, 1, 333_333] {
            let input = try SoundFile.openForReading(path("in.wav"))
            let out = path("out-\(block).wav")
            let r = try renderWah(input: input, output: out, settings: WahSettings(), automation: a, blockFrames: block)
            XCTAssertEqual(r.frames, n)
            XCTAssertEqual(r.channels, 2)
            XCTAssertEqual(r.outputFormat, .float, "float in -> float out")
            XCTAssertEqual(r.pedalChanges, a.breakpoints.filter { $0.frame < n }.count)
            let (outRate, ch) = try SoundFile.readAll(out)
            XCTAssertEqual(outRate, rate)
            XCTAssertTrue(ch[0] == refL, "left channel differs from the C reference (block \(block))")
            XCTAssertTrue(ch[1] == refR, "right channel differs from the C reference (block \(block))")
        }
    }

    func testHeldPedalAndFormats() throws {
        let rate = 44_100, n = rate
        let x = Self.noise(n, seed: 3)
        try SoundFile.writeAll(path("in.flac"), sampleRate: rate, channels: [x], sampleFormat: .pcm24)
        let source = try SoundFile.readAll(path("in.flac")).channels[0]
        XCTAssertEqual(source.count, n)
        XCTAssertLessThan(zip(source, x).map { abs($0 - $1) }.max()!, 2e-7, "FLAC 24-bit round trip")
        let held = PedalAutomation.constant(WahProcessor.pedal(fromMIDI: 90), sampleRate: Double(rate))
        let ref = Self.reference(source, rate: Double(rate), automation: held)
        for (name, format) in [
            ("out.wav", SoundSampleFormat.float), ("out.aiff", .float), ("out.aif", .pcm24),
            ("out.flac", .pcm24), ("out16.wav", .pcm16)
        ] {
            let r = try renderWah(
                input: try SoundFile.openForReading(path("in.flac")), output: path(name),
                settings: WahSettings(), automation: held, sampleFormat: format)
            XCTAssertEqual(r.frames, n, name)
            let y = try SoundFile.readAll(path(name)).channels[0]
            let tolerance: Float = format == .float ? 0 : (format == .pcm24 ? 2e-7 : 4e-5)
            XCTAssertLessThanOrEqual(zip(y, ref).map { abs($0 - $1) }.max()!, tolerance, name)
        }
        // default encoding: the input's (24-bit PCM from FLAC)
        let r = try renderWah(
            input: try SoundFile.openForReading(path("in.flac")), output: path("same.wav"),
            settings: WahSettings(), automation: held)
        XCTAssertEqual(r.outputFormat, .pcm24)
    }

    func testErrors() throws {
        try SoundFile.writeAll(path("in.wav"), sampleRate: 48_000, channels: [[0, 0.5, -0.5]], sampleFormat: .float)
        let held = PedalAutomation.constant(0.5, sampleRate: 48_000)
        XCTAssertThrowsError(
            try renderWah(
                input: try SoundFile.openForReading(path("in.wav")), output: path("out.mp3"),
                settings: WahSettings(), automation: held))
        XCTAssertThrowsError(
            try renderWah(
                input: try SoundFile.openForReading(path("in.wav")), output: path("out.flac"),
                settings: WahSettings(), automation: held, sampleFormat: .float))
        XCTAssertThrowsError(try SoundFile.openForReading(path("missing.wav")))
        _ = FileManager.default.createFile(atPath: path("garbage.wav"), contents: Data("not audio".utf8))
        XCTAssertThrowsError(try SoundFile.openForReading(path("garbage.wav")))
        // float in, FLAC out without a format: falls back to 24-bit
        let r = try renderWah(
            input: try SoundFile.openForReading(path("in.wav")), output: path("ok.flac"),
            settings: WahSettings(), automation: held)
        XCTAssertEqual(r.outputFormat, .pcm24)
    }
}
