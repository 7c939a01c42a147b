import Foundation
import XCTest
@testable import SensorWahCore

/// The fused tilt against the attitude the device computed itself, on logs that carry both
/// the raw accelerometer + gyro and Core Motion's attitude. The numbers are printed for the
/// README ("Motion").
final class MotionAccuracyTests: XCTestCase {
    /// The project's synthetic phone log (100 Hz, raw + fused attitude).
    func testPhoneLogWithin3Degrees() throws {
        let c = try compareWithDevice(path: repoRoot.appendingPathComponent("Recordings/wrist-wah-phone.csv").path)
        print("accuracy wrist-wah-phone.csv: \(c)")
        XCTAssertGreaterThan(c.frames, 900)
        XCTAssertLessThan(c.gravityRMS, 3)
        XCTAssertLessThan(c.pitchRMS, 3)
        XCTAssertLessThan(c.rollRMS, 3)
    }

    /// The watch log: no raw gyro, so the fusion runs on the motion rotation rate, at ~50 Hz.
    func testWatchLogWithin3Degrees() throws {
        let c = try compareWithDevice(path: repoRoot.appendingPathComponent("Recordings/watch-sweeps.csv").path)
        print("accuracy watch-sweeps.csv: \(c)")
        XCTAssertGreaterThan(c.frames, 500)
        XCTAssertLessThan(c.gravityRMS, 3)
    }

    /// A real iPhone log (walking, ~16.8 Hz) with raw sensors and Core Motion's attitude.
    func testRealIPhoneLog() throws {
        let url = fieldRecordings.appendingPathComponent("sensorlog-iphone-82col-waterways-excerpt.csv")
        guard FileManager.default.fileExists(atPath: url.path) else { throw XCTSkip("field recording not present at \(url.path)") }
        let c = try compareWithDevice(path: url.path)
        print("accuracy field recording sensorlog-iphone-82col-waterways-excerpt.csv (ran): \(c)")
        XCTAssertGreaterThan(c.frames, 1400)
        // Measured 4.0° RMS: the goal of 3° is missed on this log. It is logged at 16.8 Hz while
        // walking (rotation 1.8 rad/s RMS, |a| varying ±0.35 G), so the gyro is sampled far
        // below the motion's bandwidth: integrating it alone differs from Core Motion's 100 Hz
        // attitude by a median 1° per sample. The bound guards against regressions.
        XCTAssertLessThan(c.gravityRMS, 4.5)
        XCTAssertLessThan(c.pitchRMS, 3)
    }

    /// Conventions: with `device` as the tilt source, tilt.pitch / tilt.roll are the log's own
    /// motionPitch / motionRoll in degrees and tilt.x|y|z its motionGravity, frame by frame.
    func testDeviceSourceMatchesTheLogsConventions() throws {
        var paths = [repoRoot.appendingPathComponent("Recordings/wrist-wah-phone.csv").path]
        let field = fieldRecordings.appendingPathComponent("sensorlog-iphone-82col-waterways-excerpt.csv").path
        if FileManager.default.fileExists(atPath: field) { paths.append(field) }
        var settings = MotionSettings()
        settings.tiltSource = .device
        for path in paths {
            let (_, frames) = parseBytes(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), chunks: [])
            var stage = MotionStage(settings: settings)
            var checked = 0
            for var f in frames {
                stage.process(&f)
                guard f.has(.motion), f[.quatW].isFinite else { continue }
                checked += 1
                XCTAssertEqual(f[.tiltPitch], f[.pitch] * 180 / .pi, accuracy: 0.05, path)
                if abs(f[.pitch]) < 1.4 { XCTAssertEqual(wrapDegrees(f[.tiltRoll] - f[.roll] * 180 / .pi), 0, accuracy: 0.05, path) }
                XCTAssertEqual(f[.tiltX], f[.gravityX], accuracy: 0.002, path)
                XCTAssertEqual(f[.tiltY], f[.gravityY], accuracy: 0.002, path)
                XCTAssertEqual(f[.tiltZ], f[.gravityZ], accuracy: 0.002, path)
            }
            XCTAssertGreaterThan(checked, 1000, path)
        }
    }
}
