import Foundation
import XCTest

/// `--midi alsa` for real: in a qemu guest with a real ALSA sequencer (tools/alsa-vm), and on
/// this host, whose kernel has no sound at all (the one-error-line fallback).
///
/// The guest test runs the RELEASE binary, .build/release/sensorwah (tools/test builds it
/// before `swift test`; SENSORWAH_RELEASE_BINARY overrides the path). The host tests run the
/// binary built next to this test bundle.
final class ALSAGuestTests: XCTestCase {
    /// <repo>/Tests/SensorWahCLITests/ALSAGuestTests.swift -> <repo>
    static let repoRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static let recording = "Recordings/wrist-wah-phone.csv"

    var releaseBinary: String {
        ProcessInfo.processInfo.environment["SENSORWAH_RELEASE_BINARY"] ?? Self.repoRoot + "/.build/release/sensorwah"
    }

    /// The sensorwah built with this test bundle (debug or release, whatever `swift test` built).
    var builtBinary: String {
        let next = Bundle.main.bundleURL.appendingPathComponent("sensorwah").path
        if FileManager.default.isExecutableFile(atPath: next) { return next }
        for b in Bundle.allBundles where b.bundlePath.hasSuffix(".xctest") {
            let p = b.bundleURL.deletingLastPathComponent().appendingPathComponent("sensorwah").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return releaseBinary
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program in the repository root; stdout and stderr go through files (no pipe
    /// deadlocks, whatever the size).
    func run(_ program: String, _ arguments: [String]) throws -> Result {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("sensorwah-alsa-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: Self.repoRoot)
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = out
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        try out.close(); try err.close()
        return Result(
            status: p.terminationStatus,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    // MARK: - in the guest

    /// aseqdump (connected by sensorwah) and a DAW-like client that subscribes itself must
    /// both receive exactly what `--midi stdout` prints; `listen` with scenes switches on a
    /// Program Change that aplaymidi sends to SensorWah:control in (case `scenes`); and when
    /// aseqdump is killed while `listen` runs (case `gone`), the other keeps getting every event.
    /// See tools/alsa-guest-test.
    func testSequencerOutputInGuestMatchesStdout() throws {
        let binary = releaseBinary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            XCTFail(
                "no release binary at \(binary): build it first with `swift build -c release --product sensorwah` (tools/test does)"
            )
            return
        }
        let make = try run("/usr/bin/env", ["make", "-s", "-C", "tools/alsa-bench"])
        XCTAssertEqual(make.status, 0, "make -C tools/alsa-bench failed:\n\(make.stdout)\(make.stderr)")
        guard make.status == 0 else { return }

        let r = try run(
            Self.repoRoot + "/tools/alsa-vm",
            ["--timeout", "300", "--", "tools/alsa-guest-test", binary, Self.recording])
        print("---- tools/alsa-vm -- tools/alsa-guest-test (exit \(r.status))\n\(r.stdout)\(r.stderr)----")
        XCTAssertEqual(
            r.status, 0, "the guest test failed (125: the guest did not run it; 124: timeout):\n\(r.stdout)\(r.stderr)")
        let events =
            r.stdout.split(separator: "\n")
            .first { $0.hasPrefix("alsa-guest-test: PASS events=") }
            .flatMap { Int($0.split(separator: "=").last ?? "") } ?? 0
        XCTAssertGreaterThan(events, 100, "too few events compared")
        XCTAssertTrue(
            r.stdout.contains("case scenes: Program Change 1 on channel 2 switched verse -> solo"),
            "the scenes case did not pass:\n\(r.stdout)")
        XCTAssertTrue(
            r.stdout.contains("alsa-guest-test: case gone: aseqdump killed after"),
            "the subscriber-gone case did not pass")
    }

    // MARK: - on this host (no sequencer)

    func testWithoutSequencerReplayPrintsOneErrorLineAndStillWritesStdout() throws {
        try XCTSkipIf(
            FileManager.default.fileExists(atPath: "/dev/snd/seq"),
            "this machine has an ALSA sequencer; the no-sequencer case needs one without")
        let binary = builtBinary
        let both = try run(binary, ["replay", Self.recording, "--fast", "--midi", "alsa", "--midi", "stdout"])
        let alone = try run(binary, ["replay", Self.recording, "--fast", "--midi", "stdout"])
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertEqual(alone.status, 0, alone.stderr)

        let lines = both.stderr.split(separator: "\n")
        let about = lines.filter { $0.localizedCaseInsensitiveContains("sequencer") || $0.contains("ALSA") }
        XCTAssertEqual(about.count, 1, "want exactly one line about the sequencer on stderr, got:\n\(both.stderr)")
        XCTAssertTrue(about.first?.contains("no ALSA sequencer: /dev/snd/seq is missing") ?? false, both.stderr)
        XCTAssertFalse(both.stderr.contains("ALSA lib"), "libasound's own noise on stderr:\n\(both.stderr)")

        XCTAssertFalse(alone.stdout.isEmpty)
        XCTAssertGreaterThan(alone.stdout.split(separator: "\n").count, 100)
        XCTAssertEqual(
            both.stdout, alone.stdout, "stdout with --midi alsa (no sequencer) differs from --midi stdout alone")
    }

    func testWithoutSequencerPortsSaysWhatIsMissing() throws {
        try XCTSkipIf(
            FileManager.default.fileExists(atPath: "/dev/snd/seq"),
            "this machine has an ALSA sequencer; the no-sequencer case needs one without")
        let r = try run(builtBinary, ["ports"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(
            r.stderr.hasPrefix("sensorwah: no ALSA sequencer: /dev/snd/seq is missing (load the snd-seq kernel module"),
            r.stderr)
        XCTAssertFalse(r.stderr.contains("ALSA lib"), r.stderr)
    }
}
