import Foundation
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahJack
import SensorWahRuntime

extension Wiring {
    /// `listen`'s parts, wired and started: the scenes or mappings, the output pump and its
    /// outputs, the listener on its sockets, the live view (not yet shown), the web page's
    /// announcement, and the rig over them. Throws what the user must fix (a configuration
    /// problem, a port that cannot be bound).
    static func liveRig(_ l: Listen, logger: Logger) throws -> LiveRig {
        let (scenes, startScene): ([Scene], Int)
        do { (scenes, startScene) = try l.loadScenes() } catch let p as ConfigFile.Problem {
            throw RuntimeFailure("\(p)")
        }
        let jack = l.output.jack
        let mappings =
            scenes.isEmpty
            ? try jack.resolve(l.mapping.mappings() + jack.switchMappings()) : scenes[startScene].mappings
        for m in mappings { logger.info("mapping: \(m.summary)") }

        let live = LiveControl()
        var config = try listenerConfiguration(l, scenes: scenes, startScene: startScene, live: live)
        if config.control != nil {
            config.mappingTexts = scenes.isEmpty ? try l.mapping.texts() + jack.switchMappings().map(\.syntax) : []
            config.sceneTexts = l.sceneTexts(scenes)
        }
        let queue = SPSCQueue<QueuedEvent>(capacity: 1 << 16)
        let pump = OutputPump(
            queue: queue,
            outputs: l.detect
                ? []
                : try outputs(
                    l.output, mappings: mappings, controlIn: !scenes.isEmpty, scenes: scenes, startScene: startScene,
                    logger: logger))
        // each sender's timing while a playout runs (the control page may start one later)
        let timing = TimingBoard()
        config.timingBoard = timing
        config.control?.outputLines = joined(outputLines(pump.outputs, pump: pump), { timing.lines })
        let view =
            l.detect
            ? nil
            : liveView(
                l.monitor, title: "listen", output: l.output,
                scenes: scenes.isEmpty ? [mappings] : config.scenes.map(\.mappings), sceneNames: scenes.map(\.name),
                outputs: pump.outputs, pump: pump, calibrateKey: l.global.config != nil,
                teachKey: l.mapping.gesturesFile != nil, control: live, timing: timing)
        pump.latencyBySender = l.latency
        pump.anticipate = !l.noAnticipate
        pump.start()
        let listener = Listener(
            configuration: config, mappings: mappings, queue: queue, wake: pump.wake, arriving: pump.arriving,
            logger: logger)
        if let v = view { listener.monitor = MonitorFeed(board: v.board) }
        let sourceTap: ((String, SensorFrame) -> Void)? = try oscSources(l.output.network).map { sources in
            { sender, frame in sources.send(frame, sender: sender) }
        }
        if let t = sourceTap { listener.setFrameTap(t) }
        do { try listener.start() } catch {
            _ = listener.stop()
            pump.stop()
            throw RuntimeFailure("cannot listen: \(error)")
        }
        if l.web {
            announceWebPage(listener, certificates: config.webCertificates, control: config.control, view: view)
        }
        return LiveRig(
            listen: l, listener: listener, pump: pump, control: live, view: view, controlPage: config.control != nil,
            scenes: scenes, startScene: startScene, sourceTap: sourceTap, logger: logger)
    }
}
