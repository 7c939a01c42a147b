import Foundation
import Logging
import XCTest
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahRuntime
import TestSupport
@testable import sensorwah

/// `listen`'s live rig in this process, against a clock the test drives: commands posted to
/// the run's `LiveControl` are carried out on the listener's loop, a configuration file that
/// is rewritten is reloaded once it has held still for `ConfigWatch.settleNanos` and not
/// before, the scene playing keeps playing across the reload, and `quit` ends the run.
final class LiveRigTests: XCTestCase {
    /// Every event the pipeline sends, kept (the pump's thread writes, the test reads after a stop).
    final class Kept: EventOutput, @unchecked Sendable {
        var name: String { "kept" }
        private let lock = NSLock()
        private var events: [MIDIEvent] = []
        func send(_ e: MIDIEvent) { lock.withLock { events.append(e) } }
        func flush() {}
        func close() {}
        var all: [MIDIEvent] { lock.withLock { events } }
    }

    struct Run {
        let rig: LiveRig
        let listener: Listener
        let pump: OutputPump
        let live: LiveControl
        func stop() {
            _ = listener.stop()
            pump.stop()
        }
        /// The running mappings' targets, as the logs name them.
        var targets: [String] { listener.runningMappings().map(\.target.description) }
    }

    func config(_ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sw-rig-\(getpid())-\(UInt32.random(in: 0..<UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("rig.yaml").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// `listen` as `Listen.run` wires it, without a live view, a control page or MIDI ports:
    /// the events go to `Kept`.
    func start(_ argv: [String], controlPage: Bool = false) throws -> Run {
        let arguments = try ConfigArguments(argv: argv)
        let listen = try Listen.parse(Array(arguments.arguments.dropFirst()))
        let (scenes, startScene) = try listen.loadScenes()
        let mappings =
            scenes.isEmpty
            ? try listen.output.jack.resolve(listen.mapping.mappings() + listen.output.jack.switchMappings())
            : scenes[startScene].mappings
        let live = LiveControl()
        let config = try Wiring.listenerConfiguration(listen, scenes: scenes, startScene: startScene, live: live)
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 12)
        let pump = OutputPump(queue: queue, outputs: [Kept()])
        pump.start()
        let logger = Logger(label: "test.rig")
        let listener = Listener(
            configuration: config, mappings: mappings, queue: queue, wake: pump.wake,
            arriving: pump.arriving, logger: logger)
        try listener.start()
        let rig = LiveRig(
            listen: listen, listener: listener, pump: pump, control: live, view: nil, controlPage: controlPage,
            scenes: scenes, startScene: startScene, sourceTap: nil, logger: logger, arguments: argv)
        return Run(rig: rig, listener: listener, pump: pump, live: live)
    }

    static let twoScenes = """
        listen:
          bind: 127.0.0.1
          port: 0
        scenes:
          verse:
            - accel.x cc=11
          chorus:
            - accel.x cc=12
        """

    /// Each post wakes the listener's loop, which carries the command out there: the step
    /// after it (or any later look from the loop) sees it done.
    func testPostedCommandsAreCarriedOutOnTheListenersLoop() throws {
        let path = try config(Self.twoScenes)
        let run = try start(["listen", "--config", path])
        defer { run.stop() }
        XCTAssertEqual(run.targets, ["CC 11 on channel 1"])
        XCTAssertTrue(run.live.post(.nextScene))
        XCTAssertEqual(run.targets, ["CC 12 on channel 1"], "done before the loop's next look")
        run.live.post(.nextScene)
        XCTAssertEqual(run.targets, ["CC 11 on channel 1"], "the next after the last is the first")
        run.live.post(.programChange(program: 1, channel: 1))
        XCTAssertEqual(run.targets, ["CC 12 on channel 1"], "program 1 is the second scene")
        run.live.post(.programChange(program: 7, channel: 1))
        XCTAssertEqual(run.targets, ["CC 12 on channel 1"], "a program with no scene changes nothing")
        let outcome = Outcome()
        run.live.post(.selectScene(5)) { outcome.set($0) }
        XCTAssertEqual(
            try waitUntil("the outcome", observe: { outcome.value }) { $0 != nil }, .failed("no scene 6: there are 2"))
        run.live.post(.selectScene(0))
        XCTAssertEqual(run.targets, ["CC 11 on channel 1"])
    }

    /// `quit` (the live view's `q`) ends `run`, which waits on the main thread.
    func testQuitEndsTheRun() throws {
        let path = try config(Self.twoScenes)
        let run = try start(["listen", "--config", path])
        defer { run.stop() }
        let returned = Outcome()
        nonisolated(unsafe) let rig = run.rig
        Thread.detachNewThread {
            rig.run()
            returned.set(.done)
        }
        run.rig.step(now: 1_000_000_000)
        XCTAssertNil(returned.value, "the run goes on until asked to stop")
        XCTAssertFalse(run.rig.quitAsked)
        run.live.post(.quit)
        try waitUntil("run to return", observe: { returned.value }) { $0 == .done }
        XCTAssertTrue(run.rig.quitAsked)
    }

    /// A `LiveOutcome` set on one thread and read on another.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var outcome: LiveOutcome?
        func set(_ o: LiveOutcome) { lock.withLock { outcome = o } }
        var value: LiveOutcome? { lock.withLock { outcome } }
    }

    func testARewrittenFileIsReloadedOnceItHoldsStill() throws {
        let path = try config(Self.twoScenes)
        let run = try start(["listen", "--config", path])
        defer { run.stop() }
        var now: UInt64 = 1_000_000_000
        run.live.post(.nextScene)
        run.rig.step(now: now)
        XCTAssertEqual(run.targets, ["CC 12 on channel 1"])
        try Self.twoScenes.replacingOccurrences(of: "cc=12", with: "cc=13").write(
            toFile: path, atomically: false, encoding: .utf8)
        // the first look sees the change; it must then hold still for the settle time
        now += 50_000_000
        run.rig.step(now: now)
        XCTAssertEqual(run.targets, ["CC 12 on channel 1"], "not reloaded at the first sight of a change")
        now += ConfigWatch.settleNanos - 1
        run.rig.step(now: now)
        XCTAssertEqual(run.targets, ["CC 12 on channel 1"], "not reloaded before it held still for the settle time")
        now += 1
        run.rig.step(now: now)
        XCTAssertEqual(run.targets, ["CC 13 on channel 1"], "reloaded, and the scene playing (chorus) keeps playing")
        // once only
        now += 1_000_000_000
        run.rig.step(now: now)
        XCTAssertEqual(run.targets, ["CC 13 on channel 1"])
    }

    func testReloadOnRequestKeepsTheRunningConfigurationWhenTheFileIsBroken() throws {
        let path = try config(Self.twoScenes)
        let run = try start(["listen", "--config", path])
        defer { run.stop() }
        try "scenes:\n  verse:\n    - accel.x cc=nope\n".write(toFile: path, atomically: false, encoding: .utf8)
        run.live.post(.reload)
        run.rig.step(now: 1_000_000_000)
        XCTAssertEqual(run.targets, ["CC 11 on channel 1"], "a file that does not parse changes nothing")
    }

    /// A phone on loopback TCP: the header, then `x` of the accelerometer at 100 Hz from time 0.
    func stream(_ run: Run, _ xs: [Double]) throws {
        let port = run.listener.boundAddresses.first { $0.hasPrefix("tcp://") }.flatMap {
            Int($0.split(separator: ":").last ?? "")
        }
        let phone = try Loopback.Client(.tcp, to: try XCTUnwrap(port))
        defer { close(phone.fd) }
        var text =
            "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)\n"
        for (i, x) in xs.enumerated() { text += "\(Double(i) / 100),\(x),0,-1\n" }
        XCTAssertTrue(phone.send(text))
        try waitUntil("the listener to read every line", observe: { run.listener.snapshot().parser.frames }) {
            $0 >= xs.count
        }
    }

    static let oneMapping = """
        listen:
          bind: 127.0.0.1
          port: 0
        mappings:
          - accel.x cc=11
        """

    /// Calibrate (the live view's `c`, the page's Calibrate) traces the sender through the rest
    /// and the range, and at the rig's step 6 s after the first reading writes the range into
    /// the file, whose watch then reloads it.
    func testCalibrateWritesTheRangeAtTheStepAfterTheTrace() throws {
        let path = try config(Self.oneMapping)
        let run = try start(["listen", "--config", path], controlPage: true)
        defer { run.stop() }
        run.live.post(.calibrate(mapping: 1))
        // 2 s at rest, then a sweep from -0.6 to 0.9 and back
        let sweep = (0..<200).map { i in -0.6 + 1.5 * Double(i) / 199 }
        try stream(run, Array(repeating: 0, count: 200) + sweep + sweep.reversed())
        let start = monotonicNanos()
        run.rig.step(now: start + 5_000_000_000)
        XCTAssertFalse(try String(contentsOfFile: path, encoding: .utf8).contains("range="), "still tracing at 5 s")
        run.rig.step(now: start + 7_000_000_000)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        let line = try XCTUnwrap(written.split(separator: "\n").first { $0.contains("accel.x cc=11") })
        let range = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("range=") })
        let ends = range.dropFirst("range=".count).components(separatedBy: "..").compactMap(Double.init)
        XCTAssertEqual(ends.count, 2, String(line))
        XCTAssertEqual(ends.first ?? 0, -0.6, accuracy: 0.1, String(line))
        XCTAssertEqual(ends.last ?? 0, 0.9, accuracy: 0.1, String(line))
    }

    /// Teach a pose (the live view's `t`, the page's Teach): the sender's frames are captured
    /// from the start, a mark takes the pose held, finish writes the gestures file the run was
    /// given (made now) and what is being taught is cleared.
    func testTeachAPoseWritesTheGesturesFile() throws {
        let path = try config(Self.oneMapping)
        let gestures = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("g.yaml").path
        let run = try start(["listen", "--config", path, "--gestures", gestures])
        defer { run.stop() }
        run.live.post(.teach(.start(name: "wah", value: 1)))
        // the rig takes the command on the listener's loop
        try waitUntil("the rig to start teaching", observe: { run.live.teachingLabel }) { $0 == "wah=1" }
        try stream(run, Array(repeating: 0.5, count: 150))
        run.live.post(.teach(.mark(nanos: monotonicNanos())))
        run.live.post(.teach(.finish))
        run.rig.step(now: monotonicNanos())
        try waitUntil("nothing taught once finished", observe: { run.live.teachingLabel }) { $0 == nil }
        let model = try GestureModelFile.read(gestures)
        XCTAssertEqual(model.poses.map(\.name), ["wah"])
    }
}
