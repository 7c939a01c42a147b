import ArgumentParser
import Atomics
import SensorWahALSA
import SensorWahCore
import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

/// `sensorwah-alsa-bench` (benchmark machinery, never installed): the Swift side of tools/alsa-bench (seq-bench.c is the C side).
///
/// A recording goes line by line through SensorParser and Mapper; each MIDI event goes out
/// through ALSASequencerOutput (client "sensorwah-bench", port "out") to a second client
/// ("sensorwah-bench-rx") subscribed to it and reading in its own thread with a blocking
/// snd_seq_event_input. Per event, on CLOCK_MONOTONIC, from the moment its sensor line was
/// parsed (right after parse returned .frame):
///   send = until ALSASequencerOutput.send returned (mapping + event set-up + output_direct);
///   recv = until the receiver has read the event (a 14-bit CC: both of its messages).
/// Lockstep, like seq-bench: the next event is sent only after the previous one arrived. The
/// recording is replayed (times shifted, as `replay --loop` does) until W + N events went out;
/// the first W are not measured. Percentiles are nearest-rank. One JSON line with seq-bench's
/// keys and "impl":"swift", plus output_p50_us/output_p99_us: ALSASequencerOutput.send alone
/// (event set-up, flow-control bookkeeping, snd_seq_event_output_direct), which is what
/// seq-bench's "send" times, and flow_waits (times send waited for the receiver: 0 in lockstep).
@main
struct ALSABench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensorwah-alsa-bench",
        abstract: "ALSA sequencer latency from parsed line to subscriber (compare with seq-bench)."
    )

    @Argument(help: "A sensor log.")
    var file = "Recordings/wrist-wah-phone.csv"
    @Option(name: .customShort("n"), help: "Measured events.")
    var events = 10_000
    @Option(name: .customShort("w"), help: "Warm-up events, not measured.")
    var warmup = 100
    @Option(help: ArgumentHelp("Flow-control credit limit of the output (experiments).", visibility: .hidden))
    var creditLimit: Int?
    @Option(name: .customLong("map"), help: "A mapping (repeatable; default: sensorwah's default mapping).")
    var maps: [String] = []
    @Option(help: "Input dialect, as for sensorwah.")
    var format = "auto"

    func validate() throws {
        guard events >= 1, warmup >= 0 else { throw ValidationError("-n must be at least 1 and -w at least 0") }
    }

    func run() throws {
        let mappings: [Mapping]
        do { mappings = maps.isEmpty ? [.default] : try maps.map { try Mapping(parsing: $0) } } catch {
            throw ValidationError("--map: \(error)")
        }
        guard let dialect = SensorFormat(rawValue: format) else {
            throw ValidationError("--format: one of \(SensorFormat.allCases.map(\.rawValue))")
        }
        guard let bytes = readFileBytes(file) else {
            throw ValidationError("cannot read '\(file)': \(String(cString: strerror(errno)))")
        }
        let total = warmup + events
        let out: ALSASequencerOutput
        let rx: ALSASequencerReceiver
        do {
            out = try ALSASequencerOutput(clientName: "sensorwah-bench", portName: "out")
            if let c = creditLimit { out.creditLimit = max(1, c) }
            rx = try ALSASequencerReceiver(clientName: "sensorwah-bench-rx", portName: "in")
            try rx.subscribe(to: out.address)
        } catch {
            printError("sensorwah-alsa-bench: \(error.description)")
            throw ExitCode(1)
        }

        let shared = BenchShared(total: total, receiver: rx)
        var thread = pthread_t()
        let ctx = Unmanaged.passRetained(shared).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { arg in
                let s = Unmanaged<BenchShared>.fromOpaque(arg!).takeRetainedValue()
                s.receiveAll()
                return nil
            }, ctx)
        guard created == 0 else {
            Unmanaged<BenchShared>.fromOpaque(ctx).release()
            printError("sensorwah-alsa-bench: cannot start the receiver thread (\(created))")
            throw ExitCode(1)
        }

        // ---- sender: parse, map, send, wait for arrival
        var i = 0
        var failure: String? = nil
        var offset = 0.0
        var mapper = Mapper(mappings: mappings)
        bytes.withUnsafeBytes { buf in
            while i < total && failure == nil {
                var framer = LineFramer(maxLineLength: 16_384)
                var parser = SensorParser(options: ParserOptions(format: dialect))
                var frame = SensorFrame()
                var latest = 0.0
                let before = i
                let passOffset = offset
                let onLine: (FramedLine) -> Void = { line in
                    guard i < total, failure == nil, case .line(let l) = line else { return }
                    guard parser.parse(l, into: &frame) == .frame else { return }
                    let t0 = monotonicSeconds()
                    if passOffset != 0 { for g in 0..<3 { frame.times[g] += passOffset } }
                    latest = max(latest, frame.latestTime)
                    mapper.process(frame) { mapped in
                        guard i < total, failure == nil, case .midi(let e) = mapped else { return }
                        shared.expect(i, e)
                        shared.lineParsed[i] = t0
                        shared.sendStart[i] = monotonicSeconds()
                        let ok = out.send(e)
                        shared.sendDone[i] = monotonicSeconds()
                        if !ok {
                            failure = "send failed at event \(i) (error \(out.lastError))"
                            return
                        }
                        if !shared.waitForArrival() {
                            failure =
                                shared.receiverError.load(ordering: .acquiring)
                                ? "receiver error at event \(i): \(shared.errorText)"
                                : "event \(i) not received within 2 s"
                            return
                        }
                        i += 1
                    }
                }
                framer.feed(buf, onLine)
                framer.finish(onLine)
                if i == before && failure == nil { failure = "the recording gave no MIDI events with these mappings" }
                offset = latest + 0.01
            }
        }
        if let failure {
            printError("sensorwah-alsa-bench: \(failure)")
            print("{\"impl\":\"swift\",\"n\":\(events),\"error\":\"\(failure)\"}")
            throw ExitCode(1)
        }
        pthread_join(thread, nil)

        var send = [Double](), recv = [Double](), output = [Double]()
        send.reserveCapacity(events); recv.reserveCapacity(events); output.reserveCapacity(events)
        for k in warmup..<total {
            send.append((shared.sendDone[k] - shared.lineParsed[k]) * 1e6)
            recv.append((shared.received[k] - shared.lineParsed[k]) * 1e6)
            output.append((shared.sendDone[k] - shared.sendStart[k]) * 1e6)
        }
        send.sort(); recv.sort(); output.sort()
        let n = events
        print(
            "{\"impl\":\"swift\",\"n\":\(n),\"warmup\":\(warmup),\"mode\":\"lockstep\",\"pace_us\":0,"
                + "\"send_p50_us\":\(fixed2(percentile(send, 0.50))),\"send_p99_us\":\(fixed2(percentile(send, 0.99))),"
                + "\"send_max_us\":\(fixed2(send[n - 1])),"
                + "\"recv_p50_us\":\(fixed2(percentile(recv, 0.50))),\"recv_p99_us\":\(fixed2(percentile(recv, 0.99))),"
                + "\"recv_max_us\":\(fixed2(recv[n - 1])),"
                + "\"output_p50_us\":\(fixed2(percentile(output, 0.50))),\"output_p99_us\":\(fixed2(percentile(output, 0.99))),"
                + "\"flow_waits\":\(out.flowWaits)}")
        rx.close()
        out.close()
    }
}

/// State shared by the sender and the receiver thread. The sender writes an event's
/// expected messages before sending it; the receiver reads them after it arrived.
private final class BenchShared: @unchecked Sendable {
    let total: Int
    let receiver: ALSASequencerReceiver
    let lineParsed: UnsafeMutablePointer<Double>
    let sendStart: UnsafeMutablePointer<Double>
    let sendDone: UnsafeMutablePointer<Double>
    let received: UnsafeMutablePointer<Double>
    /// Up to two sequencer messages per event.
    let expected: UnsafeMutablePointer<ALSASequencerReceiver.Received>
    let parts: UnsafeMutablePointer<Int>
    let arrived: UnsafeMutablePointer<sem_t>
    let receiverError = ManagedAtomic<Bool>(false)
    var errorText = ""

    init(total: Int, receiver: ALSASequencerReceiver) {
        self.total = total
        self.receiver = receiver
        lineParsed = .allocate(capacity: total); lineParsed.initialize(repeating: 0, count: total)
        sendStart = .allocate(capacity: total); sendStart.initialize(repeating: 0, count: total)
        sendDone = .allocate(capacity: total); sendDone.initialize(repeating: 0, count: total)
        received = .allocate(capacity: total); received.initialize(repeating: 0, count: total)
        expected = .allocate(capacity: 2 * total); expected.initialize(repeating: .timeout, count: 2 * total)
        parts = .allocate(capacity: total); parts.initialize(repeating: 0, count: total)
        arrived = .allocate(capacity: 1)
        sem_init(arrived, 0, 0)
    }

    deinit {
        sem_destroy(arrived); arrived.deallocate()
        lineParsed.deallocate(); sendStart.deallocate(); sendDone.deallocate(); received.deallocate()
        expected.deallocate(); parts.deallocate()
    }

    func expect(_ i: Int, _ e: MIDIEvent) {
        let ch = e.channel & 0x0F
        switch e.kind {
        case .controlChange:
            expected[2 * i] = .controlChange(channel: ch, controller: e.controller & 0x7F, value: UInt8(e.value & 0x7F))
            parts[i] = 1
        case .controlChange14:
            let v = e.value & 0x3FFF
            expected[2 * i] = .controlChange(channel: ch, controller: e.controller & 0x1F, value: UInt8(v >> 7))
            expected[2 * i + 1] = .controlChange(
                channel: ch, controller: (e.controller & 0x1F) + 32, value: UInt8(v & 0x7F))
            parts[i] = 2
        case .pitchBend:
            expected[2 * i] = .pitchBend(channel: ch, value: e.value & 0x3FFF)
            parts[i] = 1
        case .noteOn, .noteOff:
            preconditionFailure("the benchmark sends Control Change and pitch bend only")
        }
    }

    /// Receiver thread: reads every event in order and checks it.
    func receiveAll() {
        for i in 0..<total {
            var part = 0
            while true {
                let got = receiver.receive()
                let now = monotonicSeconds()
                if case .other = got { continue }  // e.g. a subscription notice
                // parts[i] and expected are written before the event is sent
                if got != expected[2 * i + part] {
                    errorText = "got \(got), expected \(expected[2 * i + part])"
                    receiverError.store(true, ordering: .releasing)
                    sem_post(arrived)
                    return
                }
                part += 1
                if part == parts[i] { received[i] = now; break }
            }
            sem_post(arrived)
        }
    }

    /// Lockstep: waits (at most 2 s) until the receiver has the event just sent.
    func waitForArrival() -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += 2
        while sem_timedwait(arrived, &deadline) != 0 {
            if errno == EINTR { continue }
            return false
        }
        return !receiverError.load(ordering: .acquiring)
    }
}

private func percentile(_ sorted: [Double], _ q: Double) -> Double {
    // nearest rank, as seq-bench computes it
    var rank = Int(q * Double(sorted.count) + 0.999999999)
    rank = min(max(rank, 1), sorted.count)
    return sorted[rank - 1]
}

private func fixed2(_ v: Double) -> String {
    let c = Int((v * 100).rounded())
    let frac = abs(c) % 100
    return "\(c < 0 ? "-" : "")\(abs(c) / 100).\(frac < 10 ? "0" : "")\(frac)"
}

private func readFileBytes(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { return bytes }
        bytes += chunk[0..<n]
    }
}
