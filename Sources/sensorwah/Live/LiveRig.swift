import Foundation
import Logging
import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahJack
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// `listen`'s live rig: what changes a running listener besides the senders and is not the
/// listener's own (scenes, mapping edits and re-zero are carried out by the listener). It owns
/// the configuration file's reload and watch, the gestures file's reload and watch, the
/// calibration and the teaching state machines, the rest pose's saving and the outputs'
/// failure notices. The live view's keys, the control page, the signals, a Program Change and
/// the file watchers only post `LiveCommand`s (or set the solo); the listener takes them on its
/// event loop and hands the rig its own (`carry`). The rig's watch (`step`) runs on that loop
/// too, every `intervalNanos`: one thread does all of it, never the data path's output thread.
final class LiveRig {
    let listen: Listen
    let listener: Listener
    let pump: OutputPump
    let control: LiveControl
    let view: LiveView?
    /// Whether the control page runs (calibrate and teach come from it as well as the view).
    let controlPage: Bool
    /// Program Change inputs (ALSA, JACK) that select a scene.
    let programChanges: [any ProgramChangeInput]
    /// The chains the audio engine prepared at the start (nil: no engine runs).
    let runningChains: [EffectChainSpec]?
    /// The frame tap that runs anyway (`--osc-out-sources`), kept beside a trace or a teaching.
    let sourceTap: ((String, SensorFrame) -> Void)?
    let logger: Logger
    /// The command line the run was started with (a reload reads the configuration file with
    /// it again, as the start did).
    let arguments: [String]

    private var configWatch: ConfigWatch?
    private var modelWatch: ConfigWatch?
    private var scenesRun: Bool
    private var calibration: KeyCalibration?
    private var teaching: LiveTeach?
    private var savedRestVersion = 0
    private var toldFailures = 0, dead = false
    /// The live view's `q`: the run ends.
    private(set) var quitAsked = false
    private var stopWatch: (() -> Void)?
    private let ended = DispatchSemaphore(value: 0)
    private var ending = false

    init(
        listen: Listen, listener: Listener, pump: OutputPump, control: LiveControl, view: LiveView?, controlPage: Bool,
        scenes: [Scene], startScene: Int, sourceTap: ((String, SensorFrame) -> Void)?, logger: Logger,
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) {
        self.listen = listen; self.listener = listener; self.pump = pump; self.control = control; self.view = view
        self.controlPage = controlPage; self.sourceTap = sourceTap; self.logger = logger; self.arguments = arguments
        programChanges = Wiring.programChangeInputs(pump.outputs)
        runningChains = JackSession.engine(in: pump.outputs).flatMap { $0.wah ? $0.engine.chainSpecs : nil }
        scenesRun = !scenes.isEmpty
        configWatch = listen.global.config.map { ConfigWatch(path: $0) }
        modelWatch = listen.mapping.gesturesFile.map { ConfigWatch(path: $0) }
        control.teachingLabel = nil
        listener.onLoop { listener.setRig { [unowned self] in self.carry($0) } }
        if let path = listen.mapping.gesturesFile, !FileManager.default.fileExists(atPath: path) {
            logger.notice(
                "\(path) does not exist yet: teach gestures and poses live (t in the live view, Teach on the control page) and it is made"
            )
        }
        if !scenes.isEmpty {
            Shutdown.installSceneSignal()
            logger.notice(
                "scene '\(scenes[startScene].name)' of \(scenes.map(\.name).joined(separator: ", ")); next scene: kill -USR2 \(getpid())\(listen.sceneGesture.map { " or a \($0)" } ?? "")"
            )
            for c in programChanges {
                let channel = listen.sceneChannel.map { "channel \($0)" } ?? "any channel"
                logger.notice(
                    "Program Change (\(channel)) on \(c.programChangeInputName ?? "") selects a scene: 0 \(scenes[0].name)\(scenes.count > 1 ? ", 1 \(scenes[1].name)" : "")\(scenes.count > 2 ? ", ..." : "")"
                )
            }
        }
    }

    /// How long the rig waits between steps: 10 ms with a Program Change input (a foot switch
    /// should not lag), else 50 ms.
    var intervalNanos: Int { programChanges.isEmpty ? 50_000_000 : 10_000_000 }

    /// Watches on the listener's loop until a stop is asked for (a signal, `quit`), ends what is
    /// under way there, and returns.
    func run() {
        stopWatch = listener.every(nanos: Int64(intervalNanos)) { [unowned self] in self.watch(now: monotonicNanos()) }
        ended.wait()
    }

    /// One turn of the watch, on the listener's loop, at the time the caller gives (tests drive it).
    func step(now: UInt64) {
        listener.onLoop { self.watch(now: now) }
    }

    /// Ends the run: the watch stops, a calibration or teaching under way is dropped, `run` returns.
    private func end() {
        guard !ending else { return }
        ending = true
        stopWatch?()
        calibration?.cancel()
        calibration = nil
        teaching?.cancel()
        teaching = nil
        ended.signal()
    }

    /// One turn: the outputs' state, the signals, the calibration's and the files' progress,
    /// Program Changes and the rest pose, each change posted as a command.
    private func watch(now: UInt64) {
        guard !ending else { return }
        if Shutdown.isRequested { end(); return }
        let f = pump.failures
        if f.count > toldFailures {
            toldFailures = f.count
            dead = true
            logger.error(
                "every output has failed: \(f.text); messages go nowhere until one delivers again (the run goes on, and ends with exit status 1)"
            )
        } else if dead && !f.now {
            dead = false
            logger.notice("an output delivers again")
        }
        // the signals' requests become commands like the keys' and the page's
        if Shutdown.nextSceneRequested.exchange(false, ordering: .relaxed) { control.post(.nextScene) }
        if Shutdown.reloadRequested.exchange(false, ordering: .relaxed) { control.post(.reload) }
        if Shutdown.takeRezeroRequest() { control.post(.rezero) }
        if let c = calibration, !c.step(now: now) { calibration = nil }
        if modelWatch?.poll(now: now) == true { control.post(.reloadGestures) }
        for c in programChanges {
            c.takeProgramChanges { channel, program in
                if let want = listen.sceneChannel, want != Int(channel) + 1 {
                    logger.debug(
                        "Program Change \(program) on channel \(Int(channel) + 1) ignored (--scene-channel \(want))")
                    return
                }
                control.post(.programChange(program: Int(program), channel: Int(channel) + 1))
            }
        }
        let rest = listener.capturedRest
        if rest.version != savedRestVersion {
            savedRestVersion = rest.version
            saveRest(rest.gravity)
        }
        if configWatch?.poll(now: now) == true { control.post(.reload) }
    }

    /// A command the listener leaves to the rig, on the listener's loop.
    func carry(_ command: LiveCommand) -> LiveOutcome {
        switch command {
        case .quit:
            quitAsked = true
            end()
        case .reload:
            guard configWatch != nil else {
                return .failed("no configuration file to reload: start with --config FILE")
            }
            configWatch?.accept()
            if let running = reload() {
                scenesRun = running
            } else {
                return .failed("the running configuration is kept")
            }
        case .reloadGestures:
            guard let path = listen.mapping.gesturesFile else { return .failed("no gestures file (--gestures FILE)") }
            reloadModel(path)
        case .calibrate(let n):
            calibrate(n)
        case .teach(let request):
            teaching = teach(request, teaching)
            if teaching == nil, case .finish = request { modelWatch?.accept() }  // written and put to work already
            control.teachingLabel = teaching?.label
        default:
            return .failed("\(command) is the listener's")
        }
        return .done
    }

    /// Says a line where the performer looks: the live view's message line and the control page's.
    private func say(_ text: String) {
        view?.setMessage(text)
        listener.setControlMessage(text)
    }

    /// The `c` key, the control page's Calibrate: trace mapping `n` of what runs now.
    private func calibrate(_ n: Int) {
        guard view != nil || controlPage, calibration == nil else { return }
        if let t = teaching {
            say("calibrate: finish teaching \(t.label) first (Enter, or Esc to drop it)")
            return
        }
        calibration = KeyCalibration.start(
            n, running: listener.runningMappings(), scenes: scenesRun,
            path: listen.global.config, listener: listener, say: { [weak self] in self?.say($0) },
            logger: logger, baseTap: sourceTap)
    }

    /// One teach request; returns what is being taught afterwards.
    private func teach(_ request: TeachRequest, _ now: LiveTeach?) -> LiveTeach? {
        let say: (String) -> Void = { [weak self] in self?.say($0) }
        switch request {
        case .start(let name, let value):
            guard let path = listen.mapping.gesturesFile else {
                say("teach: start listen with --gestures FILE (it may not exist yet): what is taught is written there")
                return now
            }
            if let t = now {
                say("teach: \(t.label) is being taught: Enter to finish it or Esc to drop it first")
                return t
            }
            if calibration != nil { say("teach: wait until the calibration ends"); return nil }
            return LiveTeach(
                name: name, value: value, path: path, listener: listener, say: say, logger: logger, baseTap: sourceTap)
        case .mark(let nanos):
            guard let t = now else {
                say("teach: nothing is being taught (t in the live view, or Teach on the control page, first)");
                return nil
            }
            t.mark(at: nanos)
            return t
        case .finish:
            guard let t = now else { return nil }
            if let model = t.finish() {
                if let e = listener.replaceLearned(model, file: t.path) {
                    say("teach \(t.label): written, but the running mappings do not fit it: \(e)")
                    logger.error("\(t.path): \(e); the running gestures are kept")
                }
            }
            return nil
        case .cancel:
            guard let t = now else { return nil }
            t.cancel()
            say("teach \(t.label): dropped, nothing written")
            return nil
        }
    }

    /// The gestures file changed on disk: its gestures and poses go to work in every sender.
    private func reloadModel(_ path: String) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let model: LearnedModel
        do { model = try GestureModelFile.read(path) } catch {
            logger.error("\(error); the running gestures are kept")
            return
        }
        if let e = model.validate() { logger.error("\(path): \(e); the running gestures are kept"); return }
        if let e = listener.replaceLearned(model, file: path) {
            logger.error("\(e); the running gestures are kept")
            return
        }
        let line =
            "\(path): reloaded, \(model.gestures.classes.count) gesture\(model.gestures.classes.count == 1 ? "" : "s"), \(model.poses.count) pose\(model.poses.count == 1 ? "" : "s")"
        say(line)
        logger.notice("\(line)")
    }

    /// A re-zero captured a rest orientation: with a configuration file, it is saved there
    /// (`motion: rest-gravity`) so the next start begins with it.
    private func saveRest(_ g: SIMD3<Double>) {
        let value = "\(NumberText.rounded(g.x, 4)),\(NumberText.rounded(g.y, 4)),\(NumberText.rounded(g.z, 4))"
        guard let path = listen.global.config else {
            logger.notice(
                "rest orientation captured (gravity \(value)); give --rest-gravity \(value), or use --config, to keep it"
            )
            return
        }
        do {
            try ConfigEditor.setValue(
                in: path, section: "motion", key: "rest-gravity", value: value, comment: "saved by re-zero")
            logger.notice("rest orientation captured and saved to \(path) (motion: rest-gravity: \(value))")
        } catch {
            logger.error("rest orientation captured (gravity \(value)) but not saved: \(error)")
        }
    }

    /// The configuration file changed (or SIGHUP): its mappings take over without dropping a
    /// connection, and the live view shows them; a broken edit is reported and the running
    /// configuration kept. Returns whether scenes run now (nil: unchanged).
    private func reload() -> Bool? {
        let path = listen.global.config ?? ""
        let config: ConfigArguments
        do { config = try ConfigArguments(argv: arguments) } catch {
            logger.error("\(error); the running configuration is kept")
            return nil
        }
        do {
            let again = try Listen.parse(Array(config.arguments.dropFirst()))
            let (scenes, _) = try again.loadScenes()
            // the engine's chains were prepared at the start: fx= targets resolved against other
            // chains would move the wrong parameters, so a changed chain waits for a restart
            if let before = runningChains {
                let after = try Wiring.chainSets(again.output.jack, scenes: scenes).sets
                if before != after {
                    logger.error(
                        "\(path): the effect chains changed (\(after.map(\.description).joined(separator: "; "))); chains are prepared at the start, so restart to use them; the running configuration is kept"
                    )
                    return nil
                }
            }
            if !scenes.isEmpty {
                listener.replaceScenes(scenes, texts: again.sceneTexts(scenes))
                view?.setScenes(scenes.map(\.mappings), names: scenes.map(\.name))
                logger.notice("\(path): reloaded, scenes \(scenes.map(\.name).joined(separator: ", "))")
                return true
            }
            let mappings = try again.output.jack.resolve(again.mapping.mappings() + again.output.jack.switchMappings())
            listener.replaceMappings(
                mappings,
                texts: (try? again.mapping.texts()).map { $0 + again.output.jack.switchMappings().map(\.syntax) } ?? [])
            view?.setScenes([mappings], names: [])
            logger.notice(
                "\(path): reloaded, \(mappings.count) mapping\(mappings.count == 1 ? "" : "s") now active (other settings take effect at the next start)"
            )
            for m in mappings { logger.info("mapping: \(m.summary)") }
            return false
        } catch {
            let message = (error as? ConfigFile.Problem).map { "\($0)" } ?? Listen.message(for: error)
            logger.error("\(config.attribute(message) ?? message); the running configuration is kept")
            return nil
        }
    }
}
