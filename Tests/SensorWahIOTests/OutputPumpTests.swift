import Foundation
import Logging
import XCTest
@testable import SensorWahCore
@testable import SensorWahEngine
@testable import SensorWahIO
import SensorWahRuntime
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// The output thread's hand-off as `listen` wires it: the listener wakes it as bytes arrive
/// (`arriving`), it waits briefly for their message, then hands it to the outputs.
final class OutputPumpTests: XCTestCase {
    /// Collects what the output thread hands over (read only after `stop`, which joins it).
    final class Collect: EventOutput {
        var events: [MIDIEvent] = []
        var flushes = 0
        var closed = false
        var name: String { "collect" }
        func send(_ e: MIDIEvent) { events.append(e) }
        func flush() { flushes += 1 }
        func close() { closed = true }
    }

    /// Rows over real loopback TCP, one every 3 ms as a phone sends them: every message
    /// reaches the outputs, in order, and each has its latency recorded.
    func testLinesOverLoopbackReachTheOutputsInOrderThroughTheEarlyWake() throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 12)
        let out = Collect()
        let pump = OutputPump(queue: queue, outputs: [out])
        pump.start()
        let mapping = try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none")
        let (listener, port) = try Self.listen([mapping], into: pump)
        let phone = try Loopback.Client(.tcp, to: port)
        phone.send(ListenerTests.header + "\n")
        let rows = ListenerTests.rows(128)
        for r in rows {
            phone.send(r + "\n")
            usleep(3000)
        }
        try phone.closeAndAwaitPeerClose()  // every row read, and the departure seen
        _ = listener.stop()
        pump.stop()
        // a sweep from -1 to 1 G over 0..1: the first rows clamp at 0, then every row moves;
        // the sender's departure sends the rest value last
        let values = out.events.map(\.value)
        XCTAssertGreaterThan(values.count, 60, "messages handed to the outputs: \(values.count)")
        XCTAssertEqual(values.last.map(Int.init), mapping.rest)
        let sweep = Array(values.dropLast())
        XCTAssertEqual(sweep, sweep.sorted(), "out of order: \(values)")
        XCTAssertEqual(sweep.last, 127)
        XCTAssertEqual(pump.delivered, values.count)
        XCTAssertEqual(pump.latency.total, values.count)
        XCTAssertEqual(queue.dropped.load(ordering: .relaxed), 0)
        XCTAssertTrue(out.closed)
    }

    /// `listen --latency` reports each sender's own latency: the output thread keeps one
    /// histogram per sender name (a reconnection keeps its slot), counting exactly the messages
    /// that sender's lines caused; the rest values sent at exit belong to no sender.
    func testEachSenderNameHasItsOwnLatencyHistogram() throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 12)
        let out = Collect()
        let pump = OutputPump(queue: queue, outputs: [out])
        pump.latencyBySender = true
        pump.start()
        let mappings = try [
            "accel.x cc=11 smooth=0 speed=none sender=sensorlog",
            "accel.x cc=12 smooth=0 speed=none sender=hyperimu"
        ].map { try Mapping(parsing: $0) }
        let (listener, port) = try Self.listen(mappings, into: pump)
        let first = [ListenerTests.header] + ListenerTests.rows(60)
        let hyper =
            ["timestamp,ST_LIS3DHTR.x,ST_LIS3DHTR.y,ST_LIS3DHTR.z"]
            + (0..<80).map { i in "\(1_700_000_000_000 + i * 10),\(-9.8 + 19.6 * Double(i) / 79),0,-9.8" }
        let again = [ListenerTests.header] + ListenerTests.rows(60, start: 200)
        // one connection after another, so the shared mapper sees them in this order
        for lines in [first, hyper, again] {
            let phone = try Loopback.Client(.tcp, to: port)
            for l in lines { phone.send(l + "\n"); usleep(1000) }
            try phone.closeAndAwaitPeerClose()  // all read and the departure seen before the next connects
        }
        let stats = listener.stop()
        pump.stop()

        // what each sender's lines give through the parser and mapper alone
        var mapper = Mapper(mappings: mappings)
        var counts = ["sensorlog@127.0.0.1": 0, "hyperimu@127.0.0.1": 0]
        for (lines, name) in [
            (first, "sensorlog@127.0.0.1"), (hyper, "hyperimu@127.0.0.1"), (again, "sensorlog@127.0.0.1")
        ] {
            var parser = SensorParser()
            var frame = SensorFrame()
            for l in lines where parser.parse(l, into: &frame) == .frame {
                mapper.process(frame, sender: name) { _ in counts[name]! += 1 }
            }
        }
        XCTAssertEqual(stats.latencySlots, ["sensorlog@127.0.0.1", "hyperimu@127.0.0.1"])
        XCTAssertEqual(pump.senderLatency.count, 2)
        XCTAssertGreaterThan(counts["sensorlog@127.0.0.1"]!, 60)
        XCTAssertGreaterThan(counts["hyperimu@127.0.0.1"]!, 30)
        XCTAssertEqual(pump.senderLatency[0]?.total, counts["sensorlog@127.0.0.1"])
        XCTAssertEqual(pump.senderLatency[1]?.total, counts["hyperimu@127.0.0.1"])
        // every message is in the overall histogram; those of no sender are the exit's rest values
        let restValues = out.events.count - counts.values.reduce(0, +)
        XCTAssertEqual(pump.latency.total, out.events.count)
        XCTAssertTrue((1...2).contains(restValues), "\(out.events.count) messages, \(counts) from lines")
    }

    /// Without `latencyBySender` (no `--latency`) the output thread keeps no per-sender histogram.
    func testNoPerSenderHistogramUnlessAsked() throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 64)
        let pump = OutputPump(queue: queue, outputs: [Collect()])
        pump.start()
        queue.push(
            QueuedEvent(
                event: .midi(MIDIEvent(time: 0, kind: .controlChange, channel: 0, controller: 11, value: 1)),
                receivedNanos: monotonicNanos(), sender: 3))
        pump.wake()
        try waitUntil("the message delivered", observe: { pump.deliveredSoFar.load(ordering: .relaxed) }) { $0 == 1 }
        pump.stop()
        XCTAssertEqual(pump.delivered, 1)
        XCTAssertTrue(pump.senderLatency.isEmpty)
    }

    /// With nothing arriving, the output thread sleeps: no busy wait at all.
    func testAtRestTheOutputThreadNeverBusyWaits() {
        let queue = SPSCQueue<QueuedEvent>(capacity: 64)
        let pump = OutputPump(queue: queue, outputs: [Collect()])
        pump.start()
        usleep(400_000)  // a duration: what is tested is that nothing spins while nothing comes
        pump.stop()
        XCTAssertEqual(pump.spins, 0)
        XCTAssertEqual(pump.spinNanos, 0)
        XCTAssertEqual(pump.watches, 0)
        XCTAssertEqual(pump.delivered, 0)
    }

    /// A sender at a steady 100 Hz over loopback TCP: the output thread is awake before most of
    /// its lines (the forecast's windows, each at most 2 ms), and every message still reaches
    /// the outputs in order; with `anticipate` off it never waits for a line.
    func testASteadySenderFindsTheOutputThreadAwake() throws {
        for anticipate in [true, false] {
            let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 12)
            let out = Collect()
            let pump = OutputPump(queue: queue, outputs: [out])
            pump.anticipate = anticipate
            pump.start()
            let mapping = try Mapping(parsing: "accel.x cc=11 smooth=0 speed=none")
            let (listener, port) = try Self.listen([mapping], into: pump)
            let phone = try Loopback.Client(.tcp, to: port)
            phone.send(ListenerTests.header + "\n")
            // the sender keeps its pace on a busy machine as a phone's own clock does: SCHED_FIFO
            // below the listener's threads where allowed (root, rtprio), as tools/bench-listen
            let sender = Thread {
                var param = sched_param()
                param.sched_priority = 1
                _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
                var due = timespec()
                clock_gettime(CLOCK_MONOTONIC, &due)
                for r in ListenerTests.rows(150) {
                    due.tv_nsec += 10_000_000
                    if due.tv_nsec >= 1_000_000_000 { due.tv_sec += 1; due.tv_nsec -= 1_000_000_000 }
                    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nil) == EINTR {}
                    phone.send(r + "\n")
                }
            }
            sender.start()
            try waitUntil("the sender's 150 lines", timeout: 20, poll: 0.01) { sender.isFinished }
            try phone.closeAndAwaitPeerClose()  // every line read, and the departure seen
            _ = listener.stop()
            pump.stop()
            let sweep = Array(out.events.map(\.value).dropLast())
            XCTAssertEqual(sweep, sweep.sorted(), "out of order")
            XCTAssertEqual(sweep.last, 127)
            XCTAssertEqual(pump.latency.total, out.events.count)
            if anticipate {
                XCTAssertGreaterThan(pump.watches, 50, "awake before \(pump.watches) of 150 lines")
                XCTAssertLessThan(
                    pump.watchNanos, UInt64(pump.watches) * 2_100_000,
                    "\(pump.watches) windows took \(pump.watchNanos / 1000) us")
            } else {
                XCTAssertEqual(pump.watches, 0)
            }
        }
    }

    /// Bytes that give no message (a header, a bad row) end the busy wait when their read ends,
    /// not at the limit; a message after them still arrives.
    func testAReadWithoutAMessageEndsTheBusyWait() throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 64)
        let out = Collect()
        let pump = OutputPump(queue: queue, outputs: [out])
        pump.spinLimitNanos = 50_000_000  // 50 ms: a wait that ran to the limit would show
        pump.start()
        let producer = Thread {
            for _ in 0..<20 {
                pump.arriving(true)
                usleep(1000)
                pump.arriving(false)
                usleep(5000)
            }
            pump.arriving(true)
            queue.push(
                QueuedEvent(
                    event: .midi(MIDIEvent(time: 0, kind: .controlChange, channel: 0, controller: 11, value: 42)),
                    receivedNanos: monotonicNanos(), queuedNanos: monotonicNanos()))
            pump.wake()
            pump.arriving(false)
        }
        producer.start()
        try waitUntil("the producer's reads", poll: 0.01) { producer.isFinished }
        try waitUntil("the message after them delivered", observe: { pump.deliveredSoFar.load(ordering: .relaxed) }) {
            $0 >= 1
        }
        pump.stop()
        XCTAssertEqual(out.events.map(\.value), [42])
        // each wait lasts about the 1 ms read (more on a loaded machine), never the 50 ms limit
        XCTAssertLessThan(
            pump.spinNanos, UInt64(max(pump.spins, 1)) * 20_000_000,
            "\(pump.spins) busy waits took \(pump.spinNanos / 1000) us")
    }

    /// A listener on a free loopback TCP port wired to `pump` as `listen` wires it; returns it
    /// and the port.
    static func listen(_ mappings: [Mapping], into pump: OutputPump) throws -> (Listener, Int) {
        var c = ListenerConfiguration()
        c.bindHost = "127.0.0.1"
        c.tcpPort = 0
        c.restAfter = 0
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let listener = Listener(
            configuration: c, mappings: mappings,
            queue: pump.queue, wake: pump.wake, arriving: pump.arriving, logger: logger)
        try listener.start()
        let port = Int(listener.boundAddresses.first { $0.hasPrefix("tcp") }!.split(separator: ":").last!)!
        return (listener, port)
    }
}

extension OutputPumpTests {
    /// Held events leave when due, earliest first; one that no sender caused (a rest value)
    /// waits behind what was held before it; stopping hands on everything still held.
    func testHeldEventsLeaveWhenDueAndRestValuesNeverOvertakeThem() throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 64)
        final class Timed: EventOutput {
            var got: [(value: UInt16, at: UInt64)] = []
            var name: String { "timed" }
            func send(_ e: MIDIEvent) { got.append((e.value, monotonicNanos())) }
            func flush() {}
            func close() {}
        }
        let out = Timed()
        let pump = OutputPump(queue: queue, outputs: [out])
        pump.start()
        let now = monotonicNanos()
        func cc(_ v: UInt16) -> MappedEvent {
            .midi(MIDIEvent(time: 0, kind: .controlChange, channel: 0, controller: 1, value: v))
        }
        queue.push(QueuedEvent(event: cc(1), receivedNanos: now, dueNanos: now + 60_000_000, sender: 0))
        queue.push(QueuedEvent(event: cc(2), receivedNanos: now, dueNanos: now + 30_000_000, sender: 1))
        queue.push(QueuedEvent(event: cc(3), receivedNanos: now, sender: 2))  // due at once, from a sender
        queue.push(QueuedEvent(event: cc(4), receivedNanos: now))  // a rest value
        pump.wake()
        try waitUntil("four messages", timeout: 5, observe: { pump.deliveredSoFar.load(ordering: .relaxed) }) {
            $0 >= 4
        }
        queue.push(
            QueuedEvent(event: cc(5), receivedNanos: now, dueNanos: monotonicNanos() + 10_000_000_000, sender: 0))
        pump.wake()
        pump.stop()
        XCTAssertEqual(out.got.map(\.value), [3, 2, 1, 4, 5])
        XCTAssertGreaterThanOrEqual(out.got[1].at, now + 30_000_000)
        XCTAssertGreaterThanOrEqual(out.got[2].at, now + 60_000_000)
        XCTAssertGreaterThanOrEqual(out.got[3].at, now + 60_000_000, "the rest value after the held ones")
        XCTAssertLessThan(out.got[4].at, now + 5_000_000_000, "stop hands on what is held")
    }
}

extension OutputPumpTests {
    /// Records each message with the moment it came and the moment it was meant for.
    final class Scheduled: EventOutput {
        let ahead: Bool
        var got: [(value: UInt16, at: UInt64, due: UInt64)] = []
        init(ahead: Bool) { self.ahead = ahead }
        var name: String { ahead ? "ahead" : "on time" }
        var takesAhead: Bool { ahead }
        func send(_ e: MIDIEvent) { got.append((e.value, monotonicNanos(), 0)) }
        func send(_ e: MIDIEvent, due: UInt64) { got.append((e.value, monotonicNanos(), due)) }
        func flush() {}
        func close() {}
    }

    /// A scheduled message reaches an output with its moment: when it is due, or, for an output
    /// that takes it ahead, as soon as it is taken off the queue (and only then, not again).
    func testScheduledMessagesCarryTheirMomentAndGoAheadToOutputsThatAskForIt() throws {
        let queue = SPSCQueue<QueuedEvent>(capacity: 64)
        let onTime = Scheduled(ahead: false), ahead = Scheduled(ahead: true)
        let pump = OutputPump(queue: queue, outputs: [onTime, ahead])
        pump.start()
        let now = monotonicNanos()
        func cc(_ v: UInt16) -> MappedEvent {
            .midi(MIDIEvent(time: 0, kind: .controlChange, channel: 0, controller: 1, value: v))
        }
        let due1 = now + 200_000_000, due2 = now + 250_000_000
        queue.push(QueuedEvent(event: cc(1), receivedNanos: now, dueNanos: due1, sender: 0))
        queue.push(QueuedEvent(event: cc(2), receivedNanos: now, dueNanos: due2, sender: 0))
        queue.push(QueuedEvent(event: cc(3), receivedNanos: now))  // a rest value: behind them
        pump.wake()
        try waitUntil("three messages", timeout: 5, observe: { pump.deliveredSoFar.load(ordering: .relaxed) }) {
            $0 >= 3
        }
        pump.stop()
        XCTAssertEqual(ahead.got.map(\.value), [1, 2, 3])
        XCTAssertEqual(ahead.got.map(\.due), [due1, due2, due2])
        XCTAssertLessThan(ahead.got[1].at, due1, "taken ahead, before the first was due")
        XCTAssertEqual(onTime.got.map(\.value), [1, 2, 3])
        XCTAssertEqual(onTime.got.map(\.due), [due1, due2, due2])
        XCTAssertGreaterThanOrEqual(onTime.got[0].at, due1)
        XCTAssertGreaterThanOrEqual(onTime.got[1].at, due2)
    }
}
