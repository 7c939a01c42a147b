// The fuzz targets' entry logic, shared by the libFuzzer binaries (tools/fuzz compiles this file
// with Tests/Fuzz/<target>/main.swift against an instrumented SensorWahCore) and by
// FuzzRegressionTests, which replays every corpus and regression file through it without
// libFuzzer. Each entry returns the problems it saw (an empty list: sane); a trap is a finding too.
import SensorWahCore

enum FuzzEntries {
    static let targets = ["parser", "osc", "push", "phyphox", "mapping", "applemidi"]

    /// Runs one input through `target`'s entry; returns what was not sane.
    static func run(_ target: String, _ data: UnsafeRawBufferPointer) -> [String] {
        switch target {
        case "parser": return parser(data)
        case "osc": return osc(data)
        case "push": return push(data)
        case "phyphox": return phyphox(data)
        case "mapping": return mapping(data)
        case "applemidi": return applemidi(data)
        default: return ["no fuzz target \(target)"]
        }
    }

    /// A frame is sane when every value it holds is finite (unset values are NaN) and the
    /// groups it marks new carry finite times.
    static func check(_ f: borrowing SensorFrame, _ what: String, _ problems: inout [String]) {
        for i in 0..<Quantity.count {
            let v = f.values[i]
            if v.isInfinite { problems.append("\(what): quantity \(i) is \(v)") }
        }
        let custom = f.custom
        for i in 0..<SensorFrame.customSlots where custom[i].isInfinite {
            problems.append("\(what): custom slot \(i) is \(custom[i])")
        }
        let groups = f.newGroups, times = f.times
        for g in 0..<SensorGroup.count where groups & (1 << UInt8(g)) != 0 && !times[g].isFinite {
            problems.append("\(what): group \(g) time is \(times[g])")
        }
    }

    // MARK: every dialect's line and header parser

    /// The input split into lines (as the framer does it), parsed with every format forced and with auto.
    static func parser(_ data: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        // every format forced, and auto; then Sensor Logger's one-file-per-sensor CSV with the
        // sensor named (the first byte picks which), forced and auto
        let sensor = LoggedSensor.allCases[Int(data.first ?? 0) % LoggedSensor.allCases.count]
        var runs = SensorFormat.allCases.map { ParserOptions(format: $0) }
        for format in [SensorFormat.sensorlogger, .auto] {
            var o = ParserOptions(format: format)
            o.sensor = sensor
            runs.append(o)
        }
        for options in runs {
            let format = options.sensor.map { "\(options.format)+\($0)" } ?? "\(options.format)"
            var parser = SensorParser(options: options)
            var framer = LineFramer(maxLineLength: 4096)
            var frame = SensorFrame()
            var frames = 0, lines = 0, tooLong = 0
            func line(_ l: FramedLine) {
                switch l {
                case .tooLong: parser.noteTooLong(); tooLong += 1
                case .line(let b):
                    lines += 1
                    if parser.parse(b, into: &frame) == .frame {
                        frames += 1
                        check(frame, "\(format) line \(lines + tooLong)", &problems)
                    }
                }
            }
            framer.feed(data, line)
            framer.finish(line)
            let s = parser.stats
            if s.frames != frames { problems.append("\(format): \(s.frames) frames counted, \(frames) returned") }
            if s.lines != lines + tooLong {
                problems.append("\(format): \(s.lines) lines counted, \(lines) parsed + \(tooLong) too long")
            }
            if s.lines != s.rows + s.headers + s.comments + s.blank {
                problems.append(
                    "\(format): lines \(s.lines) != rows \(s.rows) + headers \(s.headers) + comments \(s.comments) + blank \(s.blank)"
                )
            }
            if s.rows != s.frames + s.held + s.totalSkipped {
                problems.append(
                    "\(format): rows \(s.rows) != frames \(s.frames) + held \(s.held) + skipped \(s.totalSkipped)")
            }
            if s.skipped(.tooLong) != tooLong {
                problems.append("\(format): \(s.skipped(.tooLong)) too long counted, \(tooLong) seen")
            }
            if frames > 0 && !(s.firstTime.isFinite && s.lastTime.isFinite) {
                problems.append("\(format): frames but first/last time \(s.firstTime)/\(s.lastTime)")
            }
            _ = parser.timingNote
        }
        return problems
    }

    // MARK: OSC decoder and SLIP

    /// The input as one OSC packet (decoder and frame builder), then as a SLIP stream of packets.
    static func osc(_ data: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        var messages = 0
        let decoded = OSC.decode(data) { m in
            messages += 1
            if m.argumentCount < 0 { problems.append("negative argument count") }
            _ = m.addressString; _ = m.typeTagString
            for i in 0..<min(m.argumentCount, OSCMessage.storedArguments) { _ = m.value(i) }
        }
        if case .success(let n) = decoded, n != messages {
            problems.append("decode says \(n) messages, visited \(messages)")
        }
        var builder = OSCFrameBuilder()
        var frames = 0
        func packet(_ p: UnsafeRawBufferPointer) {
            builder.packet(
                p, arrival: 1_000_000_000,
                emit: { f in
                    frames += 1
                    check(f, "osc frame \(frames)", &problems)
                })
        }
        packet(data)
        var slip = SLIPDecoder(maxPacket: 4096)
        var slipPackets = 0
        slip.feed(data) { p in
            slipPackets += 1
            if p.count > 4096 { problems.append("SLIP packet of \(p.count) bytes over its limit") }
            packet(p)
        }
        if slip.pending > 4096 { problems.append("SLIP holds \(slip.pending) bytes over its limit") }
        _ = slip.discardPartial()
        if builder.stats.packets != 1 + slipPackets {
            problems.append("builder counted \(builder.stats.packets) packets of \(1 + slipPackets)")
        }
        return problems
    }

    // MARK: Sensor Logger HTTP push

    static func push(_ data: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        let batch: SensorLoggerBatch
        do { batch = try SensorLoggerBatch.decode(data) } catch {
            return error.reason.isEmpty ? ["an empty refusal"] : []
        }
        for s in batch.samples {
            for (_, v) in s.values where v.isInfinite { problems.append("sample value \(v)") }
        }
        var merge = SensorLoggerFrames()
        var frames = 0
        for _ in 0..<2 {  // twice: the second batch repeats the first (late samples)
            merge.add(batch) { f in
                frames += 1
                check(f, "push frame \(frames)", &problems)
            }
        }
        merge.restart()
        merge.add(batch) { f in
            frames += 1; check(f, "push frame \(frames) after restart", &problems)
        }
        if merge.frames != frames { problems.append("\(merge.frames) frames counted, \(frames) emitted") }
        return problems
    }

    // MARK: phyphox /config and /get

    static let phyphoxConfig =
        #"{"title":"Acceleration with g","buffers":[{"name":"accX"},{"name":"accY"},{"name":"accZ"},{"name":"acc_time"},{"name":"gyrX"},{"name":"gyrY"},{"name":"gyrZ"},{"name":"gyr_time"}]}"#

    /// The input as a /config answer, then as two /get answers to a known layout.
    static func phyphox(_ data: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        if let layout = try? PhyphoxLayout.parse(data) {
            if layout.sensors.isEmpty { problems.append("a layout without sensors") }
            for s in layout.sensors where !s.scale.isFinite || s.scale == 0 {
                problems.append("sensor scale \(s.scale)")
            }
            _ = PhyphoxPoll(layout: layout).query
        }
        let config = Array(phyphoxConfig.utf8)
        guard let layout = config.withUnsafeBytes({ try? PhyphoxLayout.parse($0) }) else {
            return ["the fixed /config no longer parses"]
        }
        var poll = PhyphoxPoll(layout: layout)
        var merge = SensorLoggerFrames()
        var frames = 0
        for _ in 0..<2 {
            guard let r = try? poll.read(data) else { break }
            for s in r.batch.samples {
                for (_, v) in s.values where v.isInfinite { problems.append("sample value \(v)") }
            }
            if r.restarted { merge.restart() }
            merge.add(r.batch) { f in
                frames += 1; check(f, "phyphox frame \(frames)", &problems)
            }
            _ = poll.query
        }
        return problems
    }

    // MARK: RTP-MIDI session commands

    /// The input as datagrams on the session's control and data ports, cut at each 0xFFFF
    /// signature: every command decodes, re-encodes and decodes to itself; the session stays
    /// within its bounds whatever arrives.
    static func applemidi(_ data: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        let bytes = Array(data)
        var starts = [0]
        for i in 1..<max(1, bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] == 0xFF { starts.append(i) }
        var session = AppleMIDISession(settings: .init(name: "fuzz", ssrc: 1))
        session.connect(RTPEndpoint(host: "127.0.0.1", port: 5004), now: 0)
        for (k, start) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] : bytes.count
            let d = Array(bytes[start..<end])
            if let c = AppleMIDICommand.decode(d) {
                if case .other = c {
                } else if AppleMIDICommand.decode(c.encoded()) != c {
                    problems.append("\(c) does not survive encoding")
                }
            }
            let from = RTPEndpoint(host: "10.0.0.\(k % 3)", port: 5004 + k % 2)
            for a in session.receive(d, from: from, via: k % 2 == 0 ? .control : .data, now: Double(k)) {
                if case .send(let b, _, _) = a, AppleMIDICommand.decode(b) == nil {
                    problems.append("the session sent an unreadable command")
                }
            }
            _ = session.tick(now: Double(k) + 0.5)
            if session.participants.count > AppleMIDISession.maxParticipants {
                problems.append("\(session.participants.count) participants")
            }
        }
        return problems
    }

    // MARK: mapping syntax

    /// Every line of the input as a mapping: it parses to a usable mapping that writes out and
    /// reads back to itself, or gives a one-line error.
    static func mapping(_ data: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
            let l = String(line)
            do {
                let m = try Mapping(parsing: l)
                if !(m.inputMin.isFinite && m.inputMax.isFinite && m.inputMin < m.inputMax) {
                    problems.append("\(l): input range \(m.inputMin)..\(m.inputMax)")
                }
                if !(m.centre.isFinite && m.smoothing.isFinite && m.beta.isFinite && m.rateLimit.isFinite) {
                    problems.append("\(l): a non-finite parameter")
                }
                if !(0...m.target.maxValue).contains(m.rest) { problems.append("\(l): rest \(m.rest) out of range") }
                let syntax = m.syntax
                do {
                    let back = try Mapping(parsing: syntax)
                    if back.syntax != syntax || back.target != m.target || back.rest != m.rest {
                        problems.append("\(l): written as \(syntax), read back as \(back.syntax)")
                    }
                } catch {
                    problems.append("\(l): written as \(syntax), which does not parse: \(error)")
                }
            } catch let e as MappingSyntaxError {
                if e.message.isEmpty || e.message.contains("\n") {
                    problems.append("\(l): error \(e.message.debugDescription)")
                }
            } catch {
                problems.append("\(l): unexpected error \(error)")
            }
        }
        return problems
    }
}
