import SensorWahCore
import SensorWahEngine

/// The run's commands (`LiveControl`), carried out on the listener's loop: each post wakes the
/// loop, which takes every command waiting, oldest first. What changes the listener (scenes,
/// mappings, the rest, saving the mappings) is done here; the rest (calibrate, teach, reload,
/// quit) goes to the rig `listen` runs (`Listener.setRig`), on this loop too.
extension ListenerCore {
    /// Takes and carries out every command waiting, telling each one's waiter how it went.
    func drainCommands() {
        loop.assertInEventLoop()
        guard let live = config.live, live.hasCommands else { return }
        for p in live.takePosted() {
            let outcome = carry(p.command)
            p.reply?(outcome)
        }
    }

    func carry(_ command: LiveCommand) -> LiveOutcome {
        switch command {
        case .nextScene:
            guard !book.isEmpty else { return .failed("no scenes: they live in the --config file") }
            switchScene(to: book.index + 1)
        case .selectScene(let i):
            guard book.scenes.indices.contains(i) else {
                return .failed("no scene \(i + 1): there are \(book.scenes.count)")
            }
            if i != book.index { switchScene(to: i) }
        case .programChange(let program, let channel):
            selectScene(program: program, channel: channel)
        case .runMappings(let list, let texts):
            controlRun(list, texts: texts)
        case .save:
            guard let save = config.control?.save else {
                return .failed("no configuration file to save to: start listen with --config FILE")
            }
            do {
                return .saved(path: try save(book.current?.name, runningTexts))
            } catch {
                return .failed("not saved: \(error)")
            }
        case .rezero:
            captureRest()
        case .playout(let mode):
            setPlayout(mode)
        case .calibrate, .teach, .reload, .reloadGestures, .quit:
            guard let rig else {
                logger.debug("\(command): nothing here carries it out")
                return .failed("not available in this run")
            }
            return rig(command)
        }
        return .done
    }

    /// A Program Change selects scene `program` (0: the first in the file). One out of range,
    /// or the scene already running, is logged and changes nothing.
    func selectScene(program: Int, channel: Int) {
        guard let current = book.current else { return }
        let scenes = book.scenes
        guard scenes.indices.contains(program) else {
            let names = scenes.enumerated().map { "\($0.offset) \($0.element.name)" }.joined(separator: ", ")
            logger.warning(
                "Program Change \(program) (channel \(channel)): there is no scene \(program) (the scenes are \(names)); scene '\(current.name)' stays"
            )
            return
        }
        guard program != book.index else {
            logger.info(
                "Program Change \(program) (channel \(channel)): scene '\(scenes[program].name)' is already running")
            return
        }
        logger.info("Program Change \(program) (channel \(channel))")
        switchScene(to: program)
    }
}
