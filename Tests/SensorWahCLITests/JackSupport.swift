import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
    import Glibc
#endif

/// What the JACK tests need: a dummy-backend server of their own (tools/jack-dummy), processes
/// with output captured in files, WAV files, spectra, and the MIDI streams.
enum JackTest {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static var jackDummy: String { repo.appendingPathComponent("tools/jack-dummy").path }

    /// Which JACK the tests run against: jackd (default) or PipeWire's JACK implementation
    /// (`SENSORWAH_JACK_IMPL=pipewire`: tools/pipewire-dummy starts the server, every client runs
    /// with PipeWire's libjack first on LD_LIBRARY_PATH, as `pw-jack` does).
    enum Impl: String { case jackd, pipewire }
    static var impl: Impl {
        ProcessInfo.processInfo.environment["SENSORWAH_JACK_IMPL"].flatMap(Impl.init(rawValue:)) ?? .jackd
    }
    /// tools/jack-dummy or tools/pipewire-dummy (same commands: start, stop, kill, status).
    static var serverScript: String {
        repo.appendingPathComponent(impl == .pipewire ? "tools/pipewire-dummy" : "tools/jack-dummy").path
    }

    /// The environment a JACK client needs to reach the server `name` (which need not run).
    static func clientEnv(_ name: String) -> [String: String] {
        var e = ["JACK_DEFAULT_SERVER": name, "JACK_NO_START_SERVER": "1"]
        if impl == .pipewire, let r = try? sh(serverScript, ["env", name]), r.status == 0 {
            for line in r.out.split(separator: "\n") {
                let kv = line.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { e[String(kv[0])] = String(kv[1]) }
            }
        }
        return e
    }

    /// The binary built with this test bundle.
    static var debugBinary: String {
        if let b = ProcessInfo.processInfo.environment["SENSORWAH_BINARY"] { return b }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for dir in [runner, Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()] {
            let p = dir.appendingPathComponent("sensorwah").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        for b in Bundle.allBundles where b.bundlePath.hasSuffix(".xctest") {
            let p = b.bundleURL.deletingLastPathComponent().appendingPathComponent("sensorwah").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return repo.appendingPathComponent(".build/debug/sensorwah").path
    }

    /// The release binary (real-time claims hold for it only): SENSORWAH_RELEASE_BINARY, else
    /// `release/sensorwah` next to the debug products, else .build/release/sensorwah.
    static var releaseBinary: String {
        if let b = ProcessInfo.processInfo.environment["SENSORWAH_RELEASE_BINARY"] { return b }
        let products = URL(fileURLWithPath: debugBinary).deletingLastPathComponent()
        let sibling = products.deletingLastPathComponent().appendingPathComponent("release/sensorwah").path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        return repo.appendingPathComponent(".build/release/sensorwah").path
    }

    /// The binary a user installs: SENSORWAH_SHIPPED_BINARY, else the static build tools/setup
    /// and tools/package make (.build-static, no -enable-testing), else the release binary.
    static var shippedBinary: String {
        if let b = ProcessInfo.processInfo.environment["SENSORWAH_SHIPPED_BINARY"] { return b }
        let staticBuild = repo.appendingPathComponent(".build-static/release/sensorwah").path
        return FileManager.default.isExecutableFile(atPath: staticBuild) ? staticBuild : releaseBinary
    }

    /// `sensorwah-jack-check` (test machinery, not installed) beside the debug binary, or beside
    /// the release binary with `release: true` (real-time claims hold for the release build only).
    static func checkTool(release: Bool) -> String {
        URL(fileURLWithPath: release ? releaseBinary : debugBinary).deletingLastPathComponent()
            .appendingPathComponent("sensorwah-jack-check").path
    }

    static func have(_ tool: String) -> Bool {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            if FileManager.default.isExecutableFile(atPath: "\(dir)/\(tool)") { return true }
        }
        return false
    }

    /// Skips unless jackd and the helper clients are installed (tools/install-deps installs them).
    static func requireJackTools(_ extra: [String] = []) throws {
        let server = impl == .pipewire ? ["pipewire", "pw-metadata"] : ["jackd"]
        for t in server + ["jack_lsp", "jack_connect"] + extra where !have(t) {
            throw XCTSkip("\(t) is not installed (tools/install-deps)")
        }
    }

    /// Builds Tests/Tools/jack-midi-send.c (a JACK MIDI client playing raw messages into a
    /// port) into `dir`; returns its path.
    static func buildMIDISender(_ dir: URL) throws -> String {
        let out = dir.appendingPathComponent("jack-midi-send").path
        let src = repo.appendingPathComponent("Tests/Tools/jack-midi-send.c").path
        let cc = have("cc") ? "cc" : "/opt/swift/usr/bin/clang"
        let r = try sh(cc, ["-O2", "-Wall", "-o", out, src, "-ljack"], timeout: 60)
        XCTAssertEqual(r.status, 0, "cannot build jack-midi-send: \(r.err)")
        return out
    }

    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)\(getpid())x\(UInt32.random(in: 0..<UInt32.max))"
    }

    static func tempDir(_ label: String) throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// Runs a command to completion (short helpers: jack_lsp, sox, the jack-dummy script).
    @discardableResult
    static func sh(_ program: String, _ args: [String], env: [String: String] = [:], timeout: Double = 30) throws -> (
        status: Int32, out: String, err: String
    ) {
        let p = try Proc(program, args, env: env)
        let r = p.wait(timeout: timeout)
        return (r.status, p.stdout, p.stderr)
    }

    /// A child process; stdout and stderr go to files (no pipe can fill up).
    final class Proc: @unchecked Sendable {
        let process = Process()
        let dir: URL
        let outURL: URL
        let errURL: URL
        private let outHandle: FileHandle
        private let errHandle: FileHandle
        private let stdinPipe: Pipe?

        /// `openStdin`: standard input is a pipe the test writes lines to (`send`) and closes
        /// (`closeStdin`), instead of /dev/null.
        init(
            _ program: String, _ args: [String], env: [String: String] = [:], cwd: URL = JackTest.repo,
            openStdin: Bool = false
        ) throws {
            dir = try JackTest.tempDir("proc")
            outURL = dir.appendingPathComponent("stdout")
            errURL = dir.appendingPathComponent("stderr")
            FileManager.default.createFile(atPath: outURL.path, contents: nil)
            FileManager.default.createFile(atPath: errURL.path, contents: nil)
            outHandle = try FileHandle(forWritingTo: outURL)
            errHandle = try FileHandle(forWritingTo: errURL)
            if program.contains("/") {
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = args
            } else {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = [program] + args
            }
            process.currentDirectoryURL = cwd
            var e = ProcessInfo.processInfo.environment
            for (k, v) in env { e[k] = v }
            process.environment = e
            stdinPipe = openStdin ? Pipe() : nil
            process.standardInput = stdinPipe ?? FileHandle.nullDevice
            process.standardOutput = outHandle
            process.standardError = errHandle
            try process.run()
            Children.stopAtTestEnd(process, ([program] + args).joined(separator: " "))
        }

        deinit {
            closeStdin()
            if process.isRunning { process.terminate(); process.waitUntilExit() }
            try? outHandle.close()
            try? errHandle.close()
            try? FileManager.default.removeItem(at: dir)
        }

        var pid: Int32 { process.processIdentifier }
        var isRunning: Bool { process.isRunning }
        var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

        func signal(_ s: Int32) { if process.isRunning { kill(process.processIdentifier, s) } }

        /// Writes a line to standard input (`openStdin: true`); nothing if the process has gone.
        func send(_ line: String) {
            guard let p = stdinPipe, process.isRunning else { return }
            Glibc.signal(SIGPIPE, SIG_IGN)  // a reader that just quit must not kill the test
            try? p.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        }

        /// Ends standard input (`openStdin: true`): the process reads end of file.
        func closeStdin() { try? stdinPipe?.fileHandleForWriting.close() }

        /// Waits for exit (SIGTERM after `timeout`, then SIGKILL); returns the status.
        @discardableResult
        func wait(timeout: Double) -> (status: Int32, timedOut: Bool) {
            let timedOut =
                (try? waitUntil("\(name) to exit", timeout: timeout, poll: 0.01, { !process.isRunning })) == nil
            if timedOut { Children.stop(process) }
            process.waitUntilExit()
            return (process.terminationStatus, timedOut)
        }

        /// Ends a `jack-record` started without `-t` once what it records is over: its file (32-bit
        /// float, `channels` wide) grows by `tail` seconds more at `rate`, then SIGINT makes it
        /// write the file out. So a recording follows what it records, however long the programs
        /// around it took to start, and nobody waits for a fixed length.
        @discardableResult
        func stopRecording(_ path: String, rate: Int, channels: Int, tail: Double = 0.3) -> (
            status: Int32, timedOut: Bool
        ) {
            let size = { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
            let wanted = size() + Int(tail * Double(rate)) * channels * 4
            _ = try? waitUntil("\(path) to grow by \(tail) s", timeout: 10 + tail, poll: 0.02) { size() >= wanted }
            signal(SIGINT)
            return wait(timeout: 10)
        }

        /// Waits until stderr matches `pattern` (a regular expression); false after `seconds`, or
        /// as soon as the process has exited without it.
        func waitForStderr(_ pattern: String, seconds: Double) -> Bool {
            (try? awaitStderr(pattern, seconds: seconds)) != nil
        }

        /// `waitForStderr` that throws, saying what was awaited and the stderr seen.
        func awaitStderr(_ pattern: String, seconds: Double) throws {
            let re = try! NSRegularExpression(pattern: pattern)
            try waitUntil(
                "/\(pattern)/ on the stderr of \(name)", timeout: seconds, observe: { (stderr, process.isRunning) }
            ) { s, running in
                if re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil { return true }
                if !running {
                    let last = stderr  // all it wrote: it has exited
                    if re.firstMatch(in: last, range: NSRange(last.startIndex..., in: last)) != nil { return true }
                    throw WaitTimedOut(
                        what: "/\(pattern)/ on the stderr of \(name), which exited first", seconds: seconds,
                        lastSeen: last)
                }
                return false
            }
        }

        /// Waits until `ok` holds for stdout so far; throws `WaitTimedOut` naming `what`.
        @discardableResult
        func awaitStdout(_ what: String, seconds: Double = 10, _ ok: (String) -> Bool) throws -> String {
            try waitUntil("\(what) on the stdout of \(name)", timeout: seconds, observe: { stdout }, ok)
        }

        /// The program and its first argument, for messages.
        var name: String {
            let args = process.arguments ?? []
            let words =
                process.executableURL?.path == "/usr/bin/env"
                ? args : [process.executableURL?.lastPathComponent ?? "?"] + args
            return words.prefix(2).joined(separator: " ")
        }
    }

    /// A jackd on the dummy backend with a name of its own, started and stopped by tools/jack-dummy;
    /// with SENSORWAH_JACK_IMPL=pipewire a PipeWire daemon with a dummy driver (tools/pipewire-dummy)
    /// that the clients run reach through PipeWire's libjack.
    final class Server {
        let name: String
        let options: [String]
        let impl = JackTest.impl
        let env: [String: String]

        init(period: Int = 1024, rate: Int = 48000, sync: Bool = false, name: String = JackTest.uniqueName("swt"))
            throws
        {
            self.name = name
            options = ["-r", String(rate), "-p", String(period)] + (sync ? ["-S"] : [])
            env = JackTest.clientEnv(name)
            try start()
        }

        func start() throws {
            let r = try JackTest.sh(JackTest.serverScript, ["start", name] + options, timeout: 30)
            // jackd / pipewire are installed by tools/install-deps: a server that does not start is a failure
            guard r.status == 0 else {
                XCTFail("cannot start a dummy \(impl) server: \(r.err)")
                throw ServerError.notStarted(r.err)
            }
        }

        enum ServerError: Error { case notStarted(String) }

        func stop() { _ = try? JackTest.sh(JackTest.serverScript, ["stop", name], timeout: 30) }
        /// SIGKILL, as a crash would.
        func kill() { _ = try? JackTest.sh(JackTest.serverScript, ["kill", name], timeout: 30) }

        /// Changes the period: `jack_bufsize` on jackd; on PipeWire the settings metadata's
        /// clock.force-quantum (pipewire-jack's jack_set_buffer_size only asks for a latency while
        /// its client lives, so `jack_bufsize N` returns 0 and changes nothing).
        @discardableResult
        func setPeriod(_ frames: Int) throws -> (status: Int32, out: String, err: String) {
            impl == .pipewire
                ? try JackTest.sh(JackTest.serverScript, ["bufsize", name, String(frames)])
                : try JackTest.sh("jack_bufsize", [String(frames)], env: env)
        }

        deinit { stop() }

        func ports() -> [String] {
            guard let r = try? JackTest.sh("jack_lsp", [], env: env, timeout: 10), r.status == 0 else { return [] }
            return r.out.split(separator: "\n").map { String($0) }
        }

        /// Waits until a port whose name matches `pattern` exists; returns it, nil after `seconds`.
        func waitForPort(_ pattern: String, seconds: Double = 10) -> String? {
            try? awaitPort(pattern, seconds: seconds)
        }

        /// The `out_N` port of a `jack-play` started with `run`, awaited up to 20 s (on a loaded
        /// machine jack-play may take seconds to open its file and register); in vain, the
        /// failure says whether it was still running and what it printed.
        func playerPort(_ player: Proc, _ n: Int = 1) throws -> String {
            let port = "jack-play-\(player.pid):out_\(n)"
            try waitUntil(
                "the port \(port) (jack-play \(player.isRunning ? "running" : "exited"), its stderr: \(player.stderr))",
                timeout: 20, poll: 0.05, observe: { self.ports() }
            ) { $0.contains(port) }
            return port
        }

        /// `waitForPort` that throws, saying which port was awaited and the ports there were.
        @discardableResult
        func awaitPort(_ pattern: String, seconds: Double = 10) throws -> String {
            let re = try! NSRegularExpression(pattern: pattern)
            func match(_ ports: [String]) -> String? {
                ports.first { re.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
            }
            let seen = try waitUntil(
                "a JACK port /\(pattern)/ on \(name)", timeout: seconds, poll: 0.05, observe: { self.ports() }
            ) { match($0) != nil }
            return match(seen)!
        }

        func run(_ program: String, _ args: [String], extraEnv: [String: String] = [:], openStdin: Bool = false) throws
            -> Proc
        {
            try Proc(program, args, env: env.merging(extraEnv) { $1 }, openStdin: openStdin)
        }
    }

    // MARK: Real-time audit

    /// The `rt-audit: key=value ...` line the audit library (tools/jack-rtaudit) prints.
    struct Audit {
        var values: [String: String] = [:]
        func int(_ k: String) -> Int { Int(values[k] ?? "") ?? -1 }

        /// The first `rt-audit: ` line of `stderr`, nil if there is none.
        init?(_ stderr: String) {
            guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("rt-audit: ") }) else {
                return nil
            }
            for tok in line.dropFirst("rt-audit: ".count).split(separator: " ") {
                let kv = tok.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { values[String(kv[0])] = String(kv[1]) }
            }
        }
    }

    // MARK: WAV

    /// Reads a RIFF WAV: 32-bit float or 16/24/32-bit PCM, any channel count.
    static func readWAV(_ path: String) throws -> (rate: Int, channels: [[Float]]) {
        let d = try Data(contentsOf: URL(fileURLWithPath: path))
        func u32(_ o: Int) -> UInt32 { d.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt32.self) } }
        func u16(_ o: Int) -> UInt16 { d.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt16.self) } }
        guard d.count >= 12, d[0..<4] == Data("RIFF".utf8), d[8..<12] == Data("WAVE".utf8) else {
            throw NSError(domain: "wav", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(path): not a WAV file"])
        }
        var i = 12
        var format = 0, channels = 0, rate = 0, bits = 0
        var dataRange: Range<Int>? = nil
        while i + 8 <= d.count {
            let id = String(decoding: d[i..<i + 4], as: UTF8.self)
            var size = Int(u32(i + 4))
            if id == "fmt " {
                format = Int(u16(i + 8)); channels = Int(u16(i + 10)); rate = Int(u32(i + 12)); bits = Int(u16(i + 22))
                if format == 0xFFFE && size >= 40 { format = Int(u16(i + 32)) }  // WAVE_FORMAT_EXTENSIBLE sub-format
            } else if id == "data" {
                if size == 0 || i + 8 + size > d.count { size = d.count - i - 8 }  // unfinished header
                dataRange = (i + 8)..<(i + 8 + size)
                break
            }
            i += 8 + size + (size & 1)
        }
        guard let r = dataRange, channels > 0 else {
            throw NSError(domain: "wav", code: 2, userInfo: [NSLocalizedDescriptionKey: "\(path): no data"])
        }
        let bytesPer = bits / 8
        let frames = r.count / (bytesPer * channels)
        var out = [[Float]](repeating: [Float](repeating: 0, count: frames), count: channels)
        d.withUnsafeBytes { raw in
            for f in 0..<frames {
                for c in 0..<channels {
                    let o = r.lowerBound + (f * channels + c) * bytesPer
                    let v: Float
                    switch (format, bits) {
                    case (3, 32): v = raw.loadUnaligned(fromByteOffset: o, as: Float.self)
                    case (1, 16): v = Float(raw.loadUnaligned(fromByteOffset: o, as: Int16.self)) / 32768
                    case (1, 24):
                        let b0 = Int32(raw[o]), b1 = Int32(raw[o + 1]), b2 = Int32(Int8(bitPattern: raw[o + 2]))
                        v = Float(b0 | (b1 << 8) | (b2 << 16)) / 8_388_608
                    case (1, 32): v = Float(raw.loadUnaligned(fromByteOffset: o, as: Int32.self)) / 2_147_483_648
                    default: v = .nan
                    }
                    out[c][f] = v
                }
            }
        }
        return (rate, out)
    }

    /// Writes a 32-bit float WAV.
    static func writeWAV(_ path: String, rate: Int, channels: [[Float]]) throws {
        let n = channels.first?.count ?? 0
        let ch = channels.count
        var d = Data()
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func put16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let dataBytes = n * ch * 4
        d.append(contentsOf: Array("RIFF".utf8)); put32(UInt32(36 + dataBytes));
        d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); put32(16); put16(3); put16(UInt16(ch)); put32(UInt32(rate))
        put32(UInt32(rate * ch * 4)); put16(UInt16(ch * 4)); put16(32)
        d.append(contentsOf: Array("data".utf8)); put32(UInt32(dataBytes))
        var samples = [Float](repeating: 0, count: n * ch)
        for c in 0..<ch { for i in 0..<n { samples[i * ch + c] = channels[c][i] } }
        samples.withUnsafeBytes { d.append(contentsOf: $0) }
        try d.write(to: URL(fileURLWithPath: path))
    }

    /// Deterministic white noise in -amplitude...amplitude.
    static func noise(_ count: Int, amplitude: Float = 0.25, seed: UInt64 = 0x5EED) -> [Float] {
        var s = seed
        return (0..<count).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return (Float(Double(s >> 11) / Double(1 << 53)) * 2 - 1) * amplitude
        }
    }

    // MARK: Spectra

    /// Magnitude spectrum (bins 0...n/2) of a Hann-windowed frame, n a power of two.
    static func spectrum(_ x: ArraySlice<Float>) -> [Double] {
        let n = x.count
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        var k = 0
        for v in x {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(n - 1))
            re[k] = Double(v) * w
            k += 1
        }
        // bit reversal
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let ang = -2 * Double.pi / Double(len)
            for start in stride(from: 0, to: n, by: len) {
                for m in 0..<(len / 2) {
                    let wr = cos(ang * Double(m)), wi = sin(ang * Double(m))
                    let a = start + m, b = a + len / 2
                    let tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            len <<= 1
        }
        return (0...(n / 2)).map { (re[$0] * re[$0] + im[$0] * im[$0]).squareRoot() }
    }

    /// Frequency of the largest smoothed magnitude between `lo` and `hi` Hz.
    static func peakFrequency(_ mag: [Double], rate: Int, n: Int, lo: Double, hi: Double, smooth: Int = 4) -> Double {
        let binHz = Double(rate) / Double(n)
        let a = max(Int(lo / binHz), smooth), b = min(Int(hi / binHz), mag.count - 1 - smooth)
        var best = a, bestV = -1.0
        for k in a...b {
            var s = 0.0
            for d in -smooth...smooth { s += mag[k + d] * mag[k + d] }
            if s > bestV { bestV = s; best = k }
        }
        return Double(best) * binHz
    }

    /// How closely the spectral peak of `y` (the svf voice on noise) follows the centre frequency
    /// `heel * (toe/heel)^(value/127)` of a stream of pedal events (in time order, seconds from the
    /// stream's start; before the first event the pedal rests at `rest`): peaks of 4096-sample
    /// Hann windows every 1024 samples where the output is not silent, in octaves, against the
    /// expected centre, at the lag (-1...8 s, 10 ms steps: the replay's start on a busy machine
    /// comes seconds after the recording's) that correlates best. Returns the
    /// correlation, that lag, the median error (octaves), the windows compared and the windows
    /// with sound.
    static func peakFollowsPedal(
        _ y: [Float], rate: Int, events: [Event], rest: Int = 64,
        heel: Double = 450, toe: Double = 2200
    ) -> (r: Double, lag: Double, median: Double, count: Int, windows: Int) {
        let n = 4096, hop = 1024
        var times: [Double] = [], peaks: [Double] = []
        var start = 0
        while start + n <= y.count {
            let frame = y[start..<(start + n)]
            let rms = (frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(n)).squareRoot()
            if rms > 1e-3 {
                let mag = spectrum(frame)
                peaks.append(log2(peakFrequency(mag, rate: rate, n: n, lo: 250, hi: 4000)))
                times.append(Double(start + n / 2) / Double(rate))
            }
            start += hop
        }
        let expected = (0...127).map { log2(heel * pow(toe / heel, Double($0) / 127)) }
        let lastEvent = events.last?.t ?? 0
        var best = (r: -2.0, lag: 0.0, median: 1.0, count: 0, windows: times.count)
        for lagStep in 0...900 {
            let lag = -1.0 + Double(lagStep) * 0.01
            var a: [Double] = [], b: [Double] = []
            var value = rest, next = 0  // the pedal at s: the last event at or before it
            for (i, t) in times.enumerated() {
                let s = t - lag
                while next < events.count && events[next].t <= s { value = events[next].value; next += 1 }
                if s < 0.1 || s > lastEvent { continue }
                a.append(peaks[i]); b.append(expected[min(max(value, 0), 127)])
            }
            guard a.count > 100 else { continue }
            let r = pearson(a, b)
            if r > best.r {
                let errors = zip(a, b).map { abs($0 - $1) }.sorted()
                best = (r, lag, errors[errors.count / 2], a.count, times.count)
            }
        }
        return best
    }

    static func pearson(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        guard a.count == b.count, a.count > 2 else { return 0 }
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in 0..<a.count {
            sab += (a[i] - ma) * (b[i] - mb); saa += (a[i] - ma) * (a[i] - ma); sbb += (b[i] - mb) * (b[i] - mb)
        }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
    }

    // MARK: MIDI streams

    struct Event: Equatable { var t: Double; var type: String; var ch: Int; var cc: Int; var value: Int }

    /// `--midi stdout` JSON lines.
    static func jsonEvents(_ text: String) -> [Event] {
        text.split(separator: "\n").compactMap { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let t = obj["t"] as? Double, let type = obj["type"] as? String,
                let ch = obj["ch"] as? Int, let value = obj["value"] as? Int
            else { return nil }
            return Event(t: t, type: type, ch: ch, cc: obj["cc"] as? Int ?? 0, value: value)
        }
    }

    /// The wire messages (3 bytes each) an event stands for.
    static func wireMessages(_ e: Event) -> [[UInt8]] {
        let status = UInt8(e.ch - 1) & 0x0F
        switch e.type {
        case "cc": return [[0xB0 | status, UInt8(e.cc & 0x7F), UInt8(e.value & 0x7F)]]
        case "cc14":
            return [
                [0xB0 | status, UInt8(e.cc & 0x1F), UInt8((e.value >> 7) & 0x7F)],
                [0xB0 | status, UInt8((e.cc & 0x1F) + 32), UInt8(e.value & 0x7F)]
            ]
        default: return [[0xE0 | status, UInt8(e.value & 0x7F), UInt8((e.value >> 7) & 0x7F)]]
        }
    }

    /// `jack_midi_dump` lines: `  234: b0 0b 40 control change ...` -> bytes.
    static func dumpMessages(_ text: String) -> [[UInt8]] {
        text.split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":"), Int(line[..<colon].trimmingCharacters(in: .whitespaces)) != nil
            else { return nil }
            var bytes: [UInt8] = []
            for tok in line[line.index(after: colon)...].split(separator: " ") {
                guard tok.count == 2, let b = UInt8(tok, radix: 16) else { break }
                bytes.append(b)
            }
            return bytes.isEmpty ? nil : bytes
        }
    }
}
