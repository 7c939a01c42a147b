import Foundation
import Logging
import SensorWahAudioFiles
import SensorWahCore
@testable import SensorWahJack
import TestSupport
import XCTest

/// The engine in this process against a dummy-backend server (tools/jack-dummy).
final class JackEngineTests: XCTestCase {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    enum ServerError: Error { case notStarted(String) }

    /// jackd (tools/jack-dummy), or with SENSORWAH_JACK_IMPL=pipewire a PipeWire daemon with a
    /// dummy driver (tools/pipewire-dummy). The engine runs in this process, so for PipeWire the
    /// test process itself must have been started with PipeWire's libjack (LD_LIBRARY_PATH as
    /// `pw-jack` sets it; tools/test does): checked in /proc/self/maps.
    static var pipewire: Bool { ProcessInfo.processInfo.environment["SENSORWAH_JACK_IMPL"] == "pipewire" }
    static var script: String {
        repo.appendingPathComponent(pipewire ? "tools/pipewire-dummy" : "tools/jack-dummy").path
    }

    final class Server {
        let name = "swe\(getpid())x\(UInt32.random(in: 0..<UInt32.max))"
        let env: [String: String]
        init(period: Int) throws {
            let server = JackEngineTests.pipewire ? ["pipewire", "pw-metadata"] : ["jackd"]
            for tool in server + ["jack_lsp", "jack_connect"] where !JackEngineTests.have(tool) {
                throw XCTSkip("\(tool) is not installed (tools/install-deps)")
            }
            var e = ["JACK_DEFAULT_SERVER": name, "JACK_NO_START_SERVER": "1"]
            if JackEngineTests.pipewire {
                // (procfs files report size 0: read to the end, not by size)
                let maps =
                    FileHandle(forReadingAtPath: "/proc/self/maps").map {
                        String(decoding: $0.readDataToEndOfFile(), as: UTF8.self)
                    } ?? ""
                guard maps.contains("pipewire-0.3/jack/libjack") else {
                    XCTFail(
                        "SENSORWAH_JACK_IMPL=pipewire, but this process did not load PipeWire's libjack: run the tests under pw-jack (tools/test does)"
                    )
                    throw ServerError.notStarted("wrong libjack")
                }
                let r = try JackEngineTests.run(JackEngineTests.script, ["env", name])
                for line in r.out.split(separator: "\n") {
                    let kv = line.split(separator: "=", maxSplits: 1)
                    if kv.count == 2 { e[String(kv[0])] = String(kv[1]) }
                }
                // the engine in this process finds the daemon's socket through this
                setenv("PIPEWIRE_RUNTIME_DIR", e["PIPEWIRE_RUNTIME_DIR"] ?? "", 1)
            }
            env = e
            let r = try JackEngineTests.run(JackEngineTests.script, ["start", name, "-p", String(period)])
            // jackd / pipewire are installed by tools/install-deps: a server that does not start is a failure
            guard r.status == 0 else {
                XCTFail("cannot start the server: \(r.err)")
                throw ServerError.notStarted(r.err)
            }
        }
        /// jack_bufsize on jackd; PipeWire's period is its settings metadata's clock.force-quantum.
        func setPeriod(_ frames: Int) throws -> (status: Int32, out: String, err: String, process: Process) {
            JackEngineTests.pipewire
                ? try JackEngineTests.run(JackEngineTests.script, ["bufsize", name, String(frames)])
                : try JackEngineTests.run("jack_bufsize", [String(frames)], env: env)
        }
        deinit { _ = try? JackEngineTests.run(JackEngineTests.script, ["stop", name]) }
    }

    /// Uniform noise within ±0.3 from a seed (the generator OfflineRenderTests uses, in
    /// SensorWahAudioFilesTests).
    static func noise(_ n: Int, seed: UInt64) -> [Float] {
        var s = seed
        return (0..<n).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return (Float(Double(s >> 11) / Double(1 << 53)) * 2 - 1) * 0.3
        }
    }

    static func have(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    @discardableResult
    static func run(_ program: String, _ args: [String], env: [String: String] = [:], wait: Bool = true) throws -> (
        status: Int32, out: String, err: String, process: Process
    ) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program.contains("/") ? program : "/usr/bin/env")
        p.arguments = program.contains("/") ? args : [program] + args
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("swe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let o = dir.appendingPathComponent("o"), er = dir.appendingPathComponent("e")
        _ = FileManager.default.createFile(atPath: o.path, contents: nil)
        _ = FileManager.default.createFile(atPath: er.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: o)
        p.standardError = try FileHandle(forWritingTo: er)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        Children.stopAtTestEnd(p, ([program] + args).joined(separator: " "))
        if !wait { return (0, "", "", p) }
        p.waitUntilExit()
        let out = (try? String(contentsOf: o, encoding: .utf8)) ?? "",
            err = (try? String(contentsOf: er, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: dir)
        return (p.terminationStatus, out, err, p)
    }

    static func ports(_ server: Server) -> [String] {
        (try? run("jack_lsp", [], env: server.env).out.split(separator: "\n").map(String.init)) ?? []
    }

    static func waitForPort(_ server: Server, prefix: String, seconds: Double = 10) -> String? {
        let seen = try? waitUntil(
            "a JACK port \(prefix)...", timeout: seconds, poll: 0.05, observe: { Self.ports(server) }
        ) {
            $0.contains { $0.hasPrefix(prefix) }
        }
        return seen?.first { $0.hasPrefix(prefix) }
    }

    var logger: Logger {
        var l = Logger(label: "test")
        l.logLevel = .info
        return l
    }

    /// The wah through JACK equals the same wah computed offline over the recorded input, bit for
    /// bit: ports, buffers and state are right, NaN bursts included.
    func testJackOutputEqualsOfflineWahBitForBit() throws {
        for t in ["jack-play", "jack-record"] where !Self.have(t) { throw XCTSkip("\(t) is not installed") }
        let server = try Server(period: 1024)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("swe-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var x = Self.noise(48_000 * 6, seed: 11)
        for i in 48_000..<48_100 { x[i] = .nan }
        for i in 96_000..<96_050 { x[i] = .infinity }
        let input = dir.appendingPathComponent("in.wav").path, output = dir.appendingPathComponent("out.wav").path
        try SoundFile.writeAll(input, sampleRate: 48_000, channels: [x], sampleFormat: .float)

        let rec = try Self.run("jack-record", ["-n", "2", "-t", "5", output], env: server.env, wait: false).process
        let recPrefix = "jack-record-\(rec.processIdentifier):"
        let recIn1 = try XCTUnwrap(Self.waitForPort(server, prefix: recPrefix + "in_1"))
        let recIn2 = try XCTUnwrap(Self.waitForPort(server, prefix: recPrefix + "in_2"))

        var c = JackEngineConfiguration()
        c.serverName = server.name
        c.channels = 1
        c.initialPedal = 0.8
        c.connections = [.port(local: "out_1", peer: recIn2)]
        let engine = JackEngine(configuration: c, logger: logger)
        XCTAssertTrue(engine.start())
        let play = try Self.run("jack-play", [input], env: server.env, wait: false).process
        let playPort = try XCTUnwrap(Self.waitForPort(server, prefix: "jack-play-\(play.processIdentifier):out_1"))
        // the recorder hears the player first; sensorwah from a later period on
        XCTAssertEqual(try Self.run("jack_connect", [playPort, recIn1], env: server.env).status, 0)
        XCTAssertEqual(try Self.run("jack_connect", [playPort, "sensorwah:in_1"], env: server.env).status, 0)
        rec.waitUntilExit()
        engine.stop()
        play.terminate()
        play.waitUntilExit()
        XCTAssertEqual(engine.stats.connects, 1)

        let (_, ch) = try SoundFile.readAll(output)
        var recordedIn = ch[0]
        let recordedOut = ch[1]
        XCTAssertGreaterThan(recordedIn.filter { $0.isNaN }.count, 50, "the NaN burst was not played")
        // sensorwah's input starts at the first period its output is not silent (noise never is):
        // before that, it processed silence
        let firstSound = try XCTUnwrap(recordedOut.firstIndex { $0 != 0 })
        XCTAssertEqual(firstSound % 1024, 0, "sensorwah's input did not start at a period boundary")
        XCTAssertGreaterThan(recordedIn.count - firstSound, 48_000 * 2, "too little audio recorded")
        for i in 0..<firstSound { recordedIn[i] = 0 }
        var wah = WahProcessor(settings: WahSettings())
        wah.setPedal(0.8)
        wah.prepare(sampleRate: 48_000)
        var offline = [Float](repeating: 0, count: recordedIn.count)
        recordedIn.withUnsafeBufferPointer { i in
            offline.withUnsafeMutableBufferPointer { o in
                wah.process(i.baseAddress!, o.baseAddress!, count: i.count)
            }
        }
        XCTAssertTrue(recordedOut.allSatisfy { $0.isFinite })
        let diff = zip(recordedOut, offline).enumerated().first { $0.element.0 != $0.element.1 }
        XCTAssertNil(
            diff, "JACK output differs from the offline wah at sample \(diff?.offset ?? -1) (sound from \(firstSound))")
    }

    /// MIDI written in order, once each, across a period-size change (jack_bufsize).
    func testMIDICountedAcrossBufferSizeChange() throws {
        let server = try Server(period: 1024)
        var c = JackEngineConfiguration()
        c.serverName = server.name
        c.channels = 1
        c.midiOut = true
        let engine = JackEngine(configuration: c, logger: logger)
        XCTAssertTrue(engine.start())
        XCTAssertTrue(Self.ports(server).contains("sensorwah:midi_out"))
        XCTAssertTrue(Self.ports(server).contains("sensorwah:in_1"))
        for i in 0..<2000 {
            engine.send(.cc(11, UInt16(i % 128), at: Double(i) * 0.001))
            engine.setPedal(Float(i % 128) / 127)
            if i == 1000 {
                let r = try server.setPeriod(256)
                XCTAssertEqual(r.status, 0, r.err)
            }
            usleep(1000)
        }
        _ = try? waitUntil("2000 MIDI messages written by the process callback", observe: { engine.stats.midiWritten })
        { $0 >= 2000 }
        engine.stop()
        let s = engine.stats
        XCTAssertEqual(s.midiWritten, 2000)
        XCTAssertEqual(s.midiDroppedFull, 0)
        XCTAssertEqual(s.periodFrames, 256)
        XCTAssertGreaterThan(s.cycles, 50)
    }

    func testNoServer() throws {
        var c = JackEngineConfiguration()
        c.serverName = "nosuchserver\(getpid())x\(UInt32.random(in: 0..<UInt32.max))"
        c.midiOut = true
        c.channels = 2
        let engine = JackEngine(configuration: c, logger: logger)
        let t0 = Date()
        XCTAssertFalse(engine.start())
        XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
        XCTAssertFalse(engine.isConnected)
        engine.send(.cc(1, 2))
        engine.setPedal(0.5)
        XCTAssertEqual(engine.pedal, 0.5)
        engine.stop()
        XCTAssertEqual(engine.stats.connects, 0)
        XCTAssertEqual(engine.stats.midiDroppedOffline, 1)
    }

    /// The producer side (the pipeline thread): queuing MIDI and setting the pedal allocate nothing.
    /// Optimised builds only: at -Onone, unspecialised generic integer conversions in the test and
    /// the library allocate (2 per call measured). tools/test runs it in its release step
    /// (`swift test -c release -Xswiftc -enable-testing --filter AllocatesNothing`).
    func testProducerSideAllocatesNothing() throws {
        #if DEBUG
            throw XCTSkip("allocation-freedom is a property of optimised builds (swift test -c release)")
        #else
            let server = try Server(period: 1024)
            var c = JackEngineConfiguration()
            c.serverName = server.name
            c.channels = 1
            c.midiOut = true
            c.midiCapacity = 1 << 16
            let engine = JackEngine(configuration: c, logger: logger)
            XCTAssertTrue(engine.start())
            defer { engine.stop() }
            let events = (0..<20_000).map { MIDIEvent.cc(11, UInt16($0 % 128), at: Double($0)) }
            for e in events.prefix(100) { engine.send(e) }  // warm up (lazy symbol binding, metadata)
            let allocations = Allocations.least {
                for e in events.dropFirst(100) {
                    engine.send(e)
                    engine.setPedal(Float(e.value) / 127)
                }
            }
            XCTAssertEqual(
                allocations.least, 0,
                "allocations while queuing \(events.count - 100) messages, by round: \(allocations.counts)")
        #endif
    }
}
