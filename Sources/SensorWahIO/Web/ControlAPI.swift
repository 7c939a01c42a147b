import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime

// The control page's API on the `--web` port (docs/control.md): the running mappings, the
// senders and the scene as JSON, and the calls that change them. Everything runs on the
// listener's event loop, the thread that owns the pipeline, so a change is the same hand-over a
// reloaded configuration makes (`Pipeline.replaceMappings`): no lock, nothing on the output
// thread or in the audio callback. Every call needs the token (`Authorization: Bearer TOKEN`);
// the page itself carries no secret and reads the token from its URL's fragment.

/// What the API needs from the command that runs it.
public struct ControlHooks: @unchecked Sendable {
    /// The secret every call must carry.
    public var token: String
    /// A mapping from its `--map` text, as the command line would run it (osc: slots are given
    /// by the listener, gesture: and pose: slots by the model running); throws with the command
    /// line's message.
    public var parse: (String) throws -> Mapping
    /// Writes the running mappings (of the scene named, or the top-level list) into the
    /// configuration file; returns its path. Nil without `--config`.
    public var save: ((_ scene: String?, _ texts: [String]) throws -> String)?
    /// Lines about the outputs (the JACK engine, the RTP-MIDI session), as the live view shows
    /// them; read from the network thread.
    public var outputLines: (() -> [String])?
    /// Whether gestures and poses can be taught live (`--gestures FILE` was given).
    public var teaches = false
    public init(
        token: String, parse: @escaping (String) throws -> Mapping,
        save: ((_ scene: String?, _ texts: [String]) throws -> String)? = nil, outputLines: (() -> [String])? = nil
    ) {
        self.token = token; self.parse = parse; self.save = save; self.outputLines = outputLines
    }
}

public enum ControlLimits {
    /// Largest body of an API call.
    public static let maxBody = 16 << 10
    /// API calls a connection may make in a second.
    public static let callsPerSecond = 50
    /// How often `/api/live` pushes the state (30 a second).
    public static let liveIntervalMillis: Int64 = 33
    /// Mappings at most (a bound on what one call can make the mapper hold): the same cap as a
    /// configuration file's list.
    public static let maxMappings = MappingLimits.maxPerList
}

/// The control token: made once, kept in the data folder (readable by the user only).
public enum ControlToken {
    public static func load(folder: String = WebCertificates.defaultFolder()) throws -> String {
        let path = folder + "/control-token"
        try WebCertificates.makeFolder(folder)
        try WebCertificates.tighten(folder)
        if let t = WebCertificates.readText(path)?.trimmingCharacters(in: .whitespacesAndNewlines),
            t.count == 40, t.allSatisfy({ $0.isHexDigit })
        {
            return t
        }
        var g = SystemRandomNumberGenerator()
        let token = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
        try WebCertificates.writePrivate(path, token + "\n")
        return token
    }

    /// Equal in constant time (a wrong guess takes as long as any other).
    static func matches(_ given: Substring, _ token: String) -> Bool {
        let a = Array(given.utf8), b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var d: UInt8 = 0
        for i in a.indices { d |= a[i] ^ b[i] }
        return d == 0
    }

    /// Whether a request carries the token (`Authorization: Bearer TOKEN`).
    static func authorised(_ headers: HTTPHeaders, _ token: String) -> Bool {
        guard let v = headers.first(name: "authorization"), v.lowercased().hasPrefix("bearer ") else { return false }
        return matches(v.dropFirst(7).drop { $0 == " " }, token)
    }

    /// The WebSocket's way (a browser cannot set headers on it): the subprotocol
    /// `sensorwah-token.TOKEN` beside `sensorwah-control`.
    static func authorisedSocket(_ headers: HTTPHeaders, _ token: String) -> Bool {
        for v in headers[canonicalForm: "sec-websocket-protocol"] where v.hasPrefix("sensorwah-token.") {
            if matches(v.dropFirst("sensorwah-token.".count), token) { return true }
        }
        return false
    }
}

/// Why a request's part was refused (its message goes back as the error).
struct ControlRefusal: Error { let message: String; init(_ m: String) { message = m } }

/// An API call's answer: status and JSON.
struct ControlAnswer {
    var status: HTTPResponseStatus
    var json: Any
    static func error(_ status: HTTPResponseStatus, _ message: String) -> ControlAnswer {
        .init(status: status, json: ["error": message])
    }
    /// A command that was not carried out (500: the listener could not do what it was asked).
    static func failed(_ outcome: LiveOutcome) -> ControlAnswer {
        guard case .failed(let why) = outcome else { return .error(.internalServerError, "\(outcome)") }
        return .error(.internalServerError, why)
    }
}

extension ListenerCore {
    /// The texts of the running mappings (`--map` syntax), as given where known.
    var runningTexts: [String] {
        let texts = book.runningTexts
        let running = pipeline.mapper.mappings
        return running.indices.map { i in i < texts.count ? texts[i] : running[i].syntax }
    }

    /// The state `/api/state` and `/api/live` give.
    func controlState() -> [String: Any] {
        func num(_ v: Double) -> Any { v.isFinite ? (v * 10_000).rounded() / 10_000 : NSNull() }
        let now = monotonicNanos()
        var senders: [[String: Any]] = []
        for s in sessions.values.sorted(by: { $0.name < $1.name }) where !s.closed {
            let p = s.parser.stats
            let rate = controlView.rates[s.name]?.rate ?? 0
            senders.append([
                "name": s.name, "rate": (rate * 10).rounded() / 10, "frames": p.frames,
                "skipped": p.totalSkipped + p.lateSamples,
                "silent": s.lastFrameNanos == 0 ? NSNull() : num(Double(now &- s.lastFrameNanos) * 1e-9),
                "pitch": num(s.tilt.pitch), "roll": num(s.tilt.roll),
                "timing": s.playout == nil
                    ? NSNull()
                    : [
                        "delayMs": num(s.timing.delay * 1000), "jitterMs": num(s.timing.jitter * 1000),
                        "late": s.timing.late, "readings": s.timing.readings, "untimed": s.timing.untimed
                    ] as [String: Any]
            ])
        }
        let texts = runningTexts
        let mapper = pipeline.mapper
        var mappings: [[String: Any]] = []
        for (i, m) in mapper.mappings.enumerated() {
            let p = mapper.probe(i)
            mappings.append([
                "index": i + 1, "text": texts[i], "source": m.source.description, "target": m.target.description,
                "raw": num(p.raw), "smoothed": num(p.smoothed), "value": p.output, "max": m.target.maxValue,
                "fires": p.fires
            ])
        }
        var state: [String: Any] = [
            "time": num(Double(now) * 1e-9), "senders": senders, "mappings": mappings,
            "solo": mapper.solo + 1, "scene": NSNull(), "scenes": book.scenes.map(\.name),
            "canSave": config.control?.save != nil, "playout": playoutMode.text
        ]
        if let scene = book.current { state["scene"] = ["index": book.index + 1, "name": scene.name] }
        let g = controlView.gestures
        var fired: [String: Int] = ["flick": g.flick, "shake": g.shake, "tap": g.tap]
        for (c, k) in (learned?.gestures.classes ?? []).prefix(SensorFrame.learnedGestures).enumerated() {
            fired["gesture:" + k.name] = controlView.learned[c]
        }
        state["gestures"] = fired
        state["outputs"] = config.control?.outputLines?() ?? []
        state["message"] = ["serial": controlView.messageSerial, "text": controlView.message]
        // what is taught (gesture:NAME, pose:NAME sources) and what is being taught now
        state["taught"] = [
            "gestures": learned?.gestures.classes.map(\.name) ?? [], "poses": learned?.poses.map(\.name) ?? [],
            "canTeach": config.control?.teaches ?? false
        ]
        state["teach"] = config.live?.teachingLabel ?? NSNull()
        return state
    }

    /// Sources to watch (`?sources=` and the live socket's `sources ...`): a comma-separated
    /// list of mapping sources (`tilt.x`, `accel.y`, `gesture:swing.progress`, `osc:/x`), at
    /// most eight, each parsed as the command line would; or the reason it is refused.
    func controlSources(_ text: String) -> Result<[(text: String, source: Source)], ControlRefusal> {
        guard let hooks = config.control else { return .failure(ControlRefusal("no control API")) }
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard names.count <= 8 else { return .failure(ControlRefusal("at most 8 sources at once, not \(names.count)")) }
        var out: [(String, Source)] = []
        for n in names {
            guard !n.contains(" ") else { return .failure(ControlRefusal("'\(n)': one source, e.g. tilt.x")) }
            do {
                var m = [try hooks.parse("\(n) cc=1")]
                if let e = LearnedModel.resolve(&m, against: learned) {
                    return .failure(ControlRefusal("source '\(n)': \(e)"))
                }
                out.append((n, m[0].source))
            } catch {
                return .failure(ControlRefusal("source '\(n)': \(error)"))
            }
        }
        return .success(out)
    }

    /// Each sender's last value of every watched source: {sender: {source: value}}.
    func watchedValues(_ sources: [(text: String, source: Source)]) -> [String: Any] {
        var out: [String: Any] = [:]
        for s in sessions.values where !s.closed {
            var v: [String: Any] = [:]
            for (text, source) in sources {
                let x = source.read(s.lastFrame)
                v[text] = x.isFinite ? (x * 10_000).rounded() / 10_000 : NSNull()
            }
            out[s.name] = v
        }
        return out
    }

    /// Once a second: each sender's frame rate over the last second.
    func updateControlRates() {
        let now = monotonicNanos()
        for s in sessions.values {
            controlView.updateRate(s.name, frames: s.parser.stats.frames, now: now)
        }
    }

    /// Runs `list` (with its texts) from now on, on the network thread: the same hand-over as a
    /// reloaded configuration; with scenes, the running scene's mappings change.
    func controlRun(_ list: [Mapping], texts: [String]) {
        loop.assertInEventLoop()
        let before = handoff.pushed
        handoff.stamp(received: monotonicNanos())
        if let s = book.current {
            let i = book.index
            var sets = book.scenes.map(\.mappings)
            sets[i] = list
            let assigned = reassignOSC(sets)
            book.scenes[i] = Scene(name: s.name, mappings: assigned[i], chain: s.chain)
            pipeline.replaceMappings(assigned[i])
        } else {
            pipeline.replaceMappings(reassignOSC([list])[0])
        }
        book.setRunningTexts(texts)
        if handoff.pushed != before { wake() }
    }

    /// Posts `command` to the run's control plane and takes every command waiting (this one
    /// included, after any posted before it); `answer` is given `then`'s answer once it is
    /// carried out. Nil: the answer is on its way; else the answer now (the plane refused).
    func post(
        _ command: LiveCommand, answer: @escaping (ControlAnswer) -> Void,
        then: @escaping (LiveOutcome) -> ControlAnswer
    ) -> ControlAnswer? {
        guard let live = config.live else { return .error(.serviceUnavailable, "this run takes no commands") }
        nonisolated(unsafe) let finish = { (o: LiveOutcome) in answer(then(o)) }
        let loop = self.loop
        let posted = live.post(command) { outcome in
            if loop.inEventLoop { finish(outcome) } else { loop.execute { finish(outcome) } }
        }
        guard posted else {
            return .error(.serviceUnavailable, "\(LiveControl.capacity) commands are waiting already: try again")
        }
        drainCommands()
        return nil
    }

    /// One API call (already authorised): its answer now, or nil when `answer` is given it
    /// once the command it posted is carried out.
    func controlCall(
        _ method: HTTPMethod, _ path: String, query: String = "", body: [UInt8],
        answer: @escaping (ControlAnswer) -> Void
    ) -> ControlAnswer? {
        loop.assertInEventLoop()
        guard let hooks = config.control else { return .error(.notFound, "no control API") }
        let parts = path.split(separator: "/").map(String.init)  // ["api", ...]
        func index(_ s: String, count: Int) -> Int? { Int(s).flatMap { $0 >= 1 && $0 <= count ? $0 : nil } }
        var texts = runningTexts
        var list = pipeline.mapper.mappings
        // the body's mapping, parsed as the command line would (nil: `problem` says why)
        var problem = ControlAnswer.error(.badRequest, "")
        func parsed() -> (Mapping, String)? {
            guard let o = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                problem = .error(.badRequest, "the body must be JSON: {\"text\": \"MAPPING\"}")
                return nil
            }
            guard let t = (o["text"] as? String)?.trimmingCharacters(in: .whitespaces), !t.isEmpty else {
                problem = .error(
                    .badRequest, "the body's \"text\" must be a mapping in the --map syntax, e.g. \"tilt.y cc=11\"")
                return nil
            }
            // one line of a configuration file: what is saved reads back as what runs
            if let c = MappingLimits.forbiddenCharacter(in: t) {
                problem = .error(
                    .badRequest,
                    "the mapping's text holds \(c): a mapping is one line of text, without control characters")
                return nil
            }
            do {
                // gesture: and pose: sources take their slots in the model running now
                var m = [try hooks.parse(t)]
                if let e = LearnedModel.resolve(&m, against: learned) {
                    problem = .error(.badRequest, "mapping \"\(t)\": \(e)")
                    return nil
                }
                return (m[0], t)
            } catch {
                problem = .error(.badRequest, "\(error)")
                return nil
            }
        }
        switch (method, parts.dropFirst().first ?? "", parts.count) {
        case (.GET, "state", 2):
            var state = controlState()
            // ?sources=tilt.x,accel.y: those values of each sender's last frame too
            for item in query.split(separator: "&") where item.hasPrefix("sources=") {
                let text = String(item.dropFirst("sources=".count)).removingPercentEncoding ?? ""
                switch controlSources(text) {
                case .success(let list): state["sources"] = watchedValues(list)
                case .failure(let why): return .error(.badRequest, why.message)
                }
            }
            return .init(status: .ok, json: state)
        case (.PUT, "mappings", 3), (.DELETE, "mappings", 3):
            guard let n = index(parts[2], count: list.count) else {
                return .error(
                    .notFound,
                    "there \(list.count == 1 ? "is 1 mapping" : "are \(list.count) mappings"), not '\(parts[2])'")
            }
            let change: String
            if method == .DELETE {
                list.remove(at: n - 1); texts.remove(at: n - 1)
                change = "control: mapping \(n) removed"
            } else {
                guard let (m, t) = parsed() else { return problem }
                list[n - 1] = m; texts[n - 1] = t
                change = "control: mapping \(n) is now \(t)"
            }
            return post(.runMappings(list, texts: texts), answer: answer) { outcome in
                guard outcome == .done else { return .failed(outcome) }
                self.logger.notice("\(change)")
                return .init(status: .ok, json: self.controlState())
            }
        case (.POST, "mappings", 2):
            guard list.count < ControlLimits.maxMappings else {
                return .error(
                    .badRequest,
                    "already \(list.count) mappings, the most one list holds (\(ControlLimits.maxMappings))")
            }
            guard let (m, t) = parsed() else { return problem }
            list.append(m); texts.append(t)
            let change = "control: mapping \(list.count) added: \(t)"
            return post(.runMappings(list, texts: texts), answer: answer) { outcome in
                guard outcome == .done else { return .failed(outcome) }
                self.logger.notice("\(change)")
                return .init(status: .created, json: self.controlState())
            }
        case (.POST, "scene", 3):
            let scenes = book.scenes
            guard !scenes.isEmpty else { return .error(.conflict, "no scenes: they live in the --config file") }
            let n =
                index(parts[2], count: scenes.count)
                ?? scenes.firstIndex { $0.name == parts[2].removingPercentEncoding }.map { $0 + 1 }
            guard let n else {
                return .error(
                    .notFound,
                    "no scene '\(parts[2])': the scenes are \(scenes.enumerated().map { "\($0.offset + 1) \($0.element.name)" }.joined(separator: ", "))"
                )
            }
            return post(.selectScene(n - 1), answer: answer) { outcome in
                outcome == .done ? .init(status: .ok, json: self.controlState()) : .failed(outcome)
            }
        case (.POST, "solo", 3):
            guard let n = Int(parts[2]), (0...list.count).contains(n) else {
                return .error(.notFound, "solo takes 0 (every mapping) to \(list.count)")
            }
            config.live?.solo.store(n - 1, ordering: .relaxed)
            logger.notice(n == 0 ? "control: every mapping sends" : "control: only mapping \(n) sends (solo)")
            return .init(status: .ok, json: ["solo": n])
        case (.POST, "calibrate", 3):
            guard let n = index(parts[2], count: list.count) else {
                return .error(.notFound, "calibrate takes a mapping, 1 to \(list.count)")
            }
            guard hooks.save != nil else {
                return .error(
                    .conflict, "calibrate writes the range into the configuration file: start listen with --config FILE"
                )
            }
            config.live?.post(.calibrate(mapping: n))
            return .init(
                status: .accepted,
                json: [
                    "calibrate": n,
                    "steps":
                        "hold your rest pose 1.5 s, then move through your comfortable range; the state's message says how it goes"
                ])
        case (.POST, "teach", 2):
            guard hooks.teaches else {
                return .error(
                    .conflict,
                    "teaching writes into a gestures file: start listen with --gestures FILE (it may not exist yet)")
            }
            guard let o = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                let name = o["name"] as? String, LearnedSource.validName(Substring(name))
            else {
                return .error(
                    .badRequest,
                    "the body must be JSON: {\"name\": \"swing\"} for a gesture, {\"name\": \"wah\", \"value\": 1} for a pose (names: letters, digits, - and _)"
                )
            }
            var value: Double?
            if let v = o["value"] {
                guard let n = v as? Double, n.isFinite else {
                    return .error(.badRequest, "a pose's \"value\" must be a number")
                }
                value = n
            }
            config.live?.post(.teach(.start(name: name, value: value)))
            return .init(
                status: .accepted,
                json: [
                    "teach": name,
                    "steps": value == nil
                        ? "perform it and call /api/teach/mark during or just after each one, then /api/teach/finish; the state's message says how it goes"
                        : "hold the pose and call /api/teach/mark, then /api/teach/finish"
                ])
        case (.POST, "teach", 3):
            guard hooks.teaches else {
                return .error(
                    .conflict,
                    "teaching writes into a gestures file: start listen with --gestures FILE (it may not exist yet)")
            }
            switch parts[2] {
            case "mark": config.live?.post(.teach(.mark(nanos: monotonicNanos())))
            case "finish": config.live?.post(.teach(.finish))
            case "cancel": config.live?.post(.teach(.cancel))
            default: return .error(.notFound, "teach takes mark, finish or cancel, not '\(parts[2])'")
            }
            return .init(status: .accepted, json: ["teach": parts[2]])
        case (.POST, "playout", 3):
            guard let mode = Playout.Mode(parsing: parts[2].removingPercentEncoding ?? parts[2]) else {
                return .error(.badRequest, "playout takes off, auto, or a delay in milliseconds from 0 to 1000")
            }
            return post(.playout(mode), answer: answer) { outcome in
                outcome == .done ? .init(status: .ok, json: ["playout": mode.text]) : .failed(outcome)
            }
        case (.POST, "rezero", 2):
            config.live?.post(.rezero)
            return .init(status: .ok, json: ["rezero": "hold the sensor still for half a second"])
        case (.POST, "save", 2):
            guard hooks.save != nil else {
                return .error(.conflict, "no configuration file to save to: start listen with --config FILE")
            }
            return post(.save, answer: answer) { outcome in
                guard case .saved(let path) = outcome else { return .failed(outcome) }
                self.logger.notice("control: mappings saved to \(path)")
                return .init(status: .ok, json: ["saved": path])
            }
        case (_, "state", 2), (_, "mappings", _), (_, "scene", 3), (_, "solo", 3), (_, "calibrate", 3),
            (_, "rezero", 2), (_, "save", 2), (_, "teach", 2), (_, "teach", 3), (_, "playout", 3):
            return .error(.methodNotAllowed, "not with \(method)")
        default:
            return .error(.notFound, "no such call: see docs/control.md")
        }
    }
}

extension WebHTTPHandler {
    /// `/control` and `/api/...`; false when the path is neither.
    func answerControl(_ context: ChannelHandlerContext, _ h: HTTPRequestHead, path: String) -> Bool {
        guard let hooks = core.config.control else { return false }
        if path == "/control" {
            guard h.method == .GET || h.method == .HEAD else {
                respond(context, .methodNotAllowed, text: "not with \(h.method)"); return true
            }
            respond(
                context, .ok, type: "text/html; charset=utf-8", Array(ControlPage.html.utf8), head: h.method == .HEAD)
            return true
        }
        guard path == "/api" || path.hasPrefix("/api/") else { return false }
        let reply = { (a: ControlAnswer) in
            let data = (try? JSONSerialization.data(withJSONObject: a.json, options: [.sortedKeys])) ?? Data("{}".utf8)
            self.respond(context, a.status, type: "application/json", Array(data) + [10])
        }
        guard ControlToken.authorised(h.headers, hooks.token) else {
            core.stats.web.refused += 1
            reply(
                .error(
                    .unauthorized,
                    "the control token is missing or wrong: open the control address listen printed (…/control#TOKEN), or send Authorization: Bearer TOKEN"
                ))
            return true
        }
        guard controlLimiter.admit(monotonicNanos(), limit: ControlLimits.callsPerSecond) else {
            reply(.error(.tooManyRequests, "more than \(ControlLimits.callsPerSecond) calls a second"))
            return true
        }
        if tooLarge || body.count > ControlLimits.maxBody {
            reply(.error(.payloadTooLarge, "body over \(ControlLimits.maxBody) bytes"))
            return true
        }
        let query = h.uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        if let now = core.controlCall(h.method, path, query: query, body: body, answer: reply) { reply(now) }
        return true
    }
}

/// `/api/live`: the state pushed 30 times a second while the socket is open.
final class ControlLiveHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    let core: ListenerCore
    var task: RepeatedTask?
    var received = 0
    /// What this page watches besides the mappings (`sources tilt.x,accel.y`).
    var sources: [(text: String, source: Source)] = []
    var sourcesError: String?
    var limiter = BatchLimiter()
    var pongPending = false

    init(core: ListenerCore) { self.core = core }

    func handlerAdded(context: ChannelHandlerContext) {
        let core = self.core
        let ctx = context
        nonisolated(unsafe) let unsafeCtx = ctx
        task = context.eventLoop.scheduleRepeatedTask(
            initialDelay: .zero, delay: .milliseconds(ControlLimits.liveIntervalMillis)
        ) { [weak self] _ in
            guard let self, unsafeCtx.channel.isActive else { return }
            // a page that cannot keep up (a backgrounded tab) is not queued more
            guard unsafeCtx.channel.isWritable else { return }
            var state = core.controlState()
            if !self.sources.isEmpty { state["sources"] = core.watchedValues(self.sources) }
            if let e = self.sourcesError { state["sourcesError"] = e }
            let data = (try? JSONSerialization.data(withJSONObject: state, options: [.sortedKeys])) ?? Data()
            var buf = unsafeCtx.channel.allocator.buffer(capacity: data.count)
            buf.writeBytes(data)
            unsafeCtx.writeAndFlush(
                self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buf)), promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { task?.cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            task?.cancel()
            context.close(promise: nil)
        case .ping:
            // a flood of pings gets one pong at a time, and closes the socket past the rate
            guard limiter.admit(monotonicNanos(), limit: ControlLimits.callsPerSecond) else {
                if limiter.count == 4 * ControlLimits.callsPerSecond { task?.cancel(); context.close(promise: nil) }
                return
            }
            ConnectionGuard.progress(context)
            guard !pongPending else { return }
            pongPending = true
            var d = frame.unmaskedData
            let pong = WebSocketFrame(
                fin: true, opcode: .pong,
                data: d.readSlice(length: d.readableBytes) ?? context.channel.allocator.buffer(capacity: 0))
            context.writeAndFlush(wrapOutboundOut(pong)).whenComplete { [self] _ in pongPending = false }
        default:
            // the page says it is alive now and then (the idle timeout), or which sources it
            // watches: `sources tilt.x,accel.y` (bounded: a message of 1 KiB, 1 MiB in all)
            received += frame.length
            if received > 1 << 20 { task?.cancel(); context.close(promise: nil); return }
            guard frame.opcode == .text, frame.fin, frame.length <= 1024 else { return }
            ConnectionGuard.progress(context)
            var data = frame.unmaskedData
            let text = data.readString(length: data.readableBytes) ?? ""
            if text.hasPrefix("sources") {
                switch core.controlSources(String(text.dropFirst("sources".count))) {
                case .success(let list): sources = list; sourcesError = nil
                case .failure(let why): sourcesError = why.message
                }
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        task?.cancel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        task?.cancel()
        context.close(promise: nil)
    }
}
