import Foundation
import TestSupport
import XCTest

/// Runs the built `sensorwah` binary as a user would.
enum CLI {
    /// False under `tools/test --sanitize` (it sets SENSORWAH_SANITIZER): AddressSanitizer's
    /// quarantine and both sanitizers' shadow memory make resident memory say nothing about the
    /// program's own, so the tests that bound memory growth leave that one check out there.
    static var memoryBoundsHold: Bool { ProcessInfo.processInfo.environment["SENSORWAH_SANITIZER"] == nil }
    /// The sanitizer the binaries are built with under `tools/test --sanitize` ("address",
    /// "thread"), nil otherwise.
    static var sanitizer: String? { ProcessInfo.processInfo.environment["SENSORWAH_SANITIZER"] }

    static let repo: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The binary built with this test bundle (`swift build --build-tests`, in the same scratch
    /// folder: under `tools/test --sanitize` the sanitized one, never a stale `.build`).
    static var binary: URL { URL(fileURLWithPath: JackTest.debugBinary) }

    static func recording(_ name: String) -> String { repo.appendingPathComponent("Recordings/\(name)").path }

    struct Result { var status: Int32; var stdout: String; var stderr: String }

    final class Running: @unchecked Sendable {
        let process = Process()
        let out = Pipe(), err = Pipe()
        private var outData = Data(), errData = Data()
        private let lock = NSLock()
        private let group = DispatchGroup()

        /// `launcher`: a program that starts sensorwah (e.g. `["/usr/bin/prlimit", "--fsize=65536", "--"]`).
        init(_ args: [String], env: [String: String] = [:], launcher: [String] = []) throws {
            if let first = launcher.first {
                process.executableURL = URL(fileURLWithPath: first)
                process.arguments = Array(launcher.dropFirst()) + [CLI.binary.path] + args
            } else {
                process.executableURL = CLI.binary
                process.arguments = args
            }
            process.currentDirectoryURL = CLI.repo
            var e = ProcessInfo.processInfo.environment
            for (k, v) in env { e[k] = v }
            process.environment = e
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            for (pipe, isOut) in [(out, true), (err, false)] {
                group.enter()
                let h = pipe.fileHandleForReading
                DispatchQueue.global().async { [self] in
                    while true {
                        let d = h.availableData
                        if d.isEmpty { break }
                        lock.lock(); if isOut { outData.append(d) } else { errData.append(d) }; lock.unlock()
                    }
                    group.leave()
                }
            }
            try process.run()
            Children.stopAtTestEnd(process, "sensorwah " + args.joined(separator: " "))
        }

        var stdoutSoFar: String {
            lock.lock(); defer { lock.unlock() }; return String(decoding: outData, as: UTF8.self)
        }

        func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

        var stderrSoFar: String {
            lock.lock(); defer { lock.unlock() }; return String(decoding: errData, as: UTF8.self)
        }

        /// Waits for a line matching `pattern` on stderr; returns the first capture group (the
        /// whole match without one), nil after `seconds`.
        func waitForStderr(_ pattern: String, seconds: Double = 10) -> String? {
            try? awaitStderr(pattern, seconds: seconds)
        }

        /// `waitForStderr` that throws `WaitTimedOut` (with stderr so far) instead of returning nil.
        @discardableResult
        func awaitStderr(_ pattern: String, seconds: Double = 10) throws -> String {
            let re = try! NSRegularExpression(pattern: pattern)
            var found = ""
            try waitUntil(
                "/\(pattern)/ on the stderr of sensorwah \(process.arguments?.first ?? "")", timeout: seconds,
                observe: { stderrSoFar }
            ) { s in
                guard let m = re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) else { return false }
                found = String(s[Range(m.range(at: m.numberOfRanges > 1 ? 1 : 0), in: s)!])
                return true
            }
            return found
        }

        /// Waits until `ok` holds for stdout so far; throws `WaitTimedOut` naming `what`.
        @discardableResult
        func awaitStdout(_ what: String, seconds: Double = 10, _ ok: (String) -> Bool) throws -> String {
            try waitUntil(
                "\(what) on the stdout of sensorwah \(process.arguments?.first ?? "")", timeout: seconds,
                observe: { stdoutSoFar }, ok)
        }

        func interrupt() { process.interrupt() }

        /// Ctrl-C if it still runs, and the wait for its end (SIGTERM after `timeout`): for the
        /// teardown of a test that may have stopped it already, or failed before it could.
        func stopIfRunning(timeout: Double = 20) {
            guard process.isRunning else { return }
            process.interrupt()
            _ = wait(timeout: timeout)
        }

        func wait(timeout: Double = 60) -> Result {
            if (try? waitUntil("sensorwah to exit", timeout: timeout, poll: 0.01, { !process.isRunning })) == nil {
                process.terminate(); XCTFail("timed out: \(process.arguments ?? [])")
            }
            process.waitUntilExit()
            group.wait()
            return Result(
                status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                stderr: String(decoding: errData, as: UTF8.self))
        }
    }

    static func run(_ args: [String], timeout: Double = 60) throws -> Result {
        try Running(args).wait(timeout: timeout)
    }

    static func lines(_ s: String) -> [String] { s.split(separator: "\n").map(String.init) }

    /// One of the repository's tools (`tools/NAME`) run to its end: its exit status and what it
    /// printed (stdout and stderr together), also printed into the test's log.
    static func tool(_ name: String, _ args: [String]) throws -> (status: Int32, text: String) {
        let p = Process()
        p.executableURL = repo.appendingPathComponent("tools/\(name)")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        print(text)
        return (p.terminationStatus, text)
    }
}
