import ArgumentParser
import Logging
import SensorWahCore
import SensorWahEngine

struct Learn: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send only one mapping's controller, slowly swept, so a DAW's MIDI learn binds exactly it.",
        discussion: """
            Several mappings stream several controllers at once, and a DAW's MIDI learn grabs \
            whichever moves first. `learn` sends one controller alone: arm MIDI learn on the \
            control in the DAW, run `sensorwah learn N --midi alsa` (or jack), and stop it with \
            Ctrl-C once the DAW has bound it. The controller ends at its rest value.

            To bind while moving the real sensor instead, run listen or replay with --solo N.

            Examples:
              sensorwah learn --midi alsa
                  the default mapping's CC 11
              sensorwah learn 2 --map-file rig.maps --midi alsa
                  the second mapping of a file
              sensorwah listen --map-file rig.maps --solo 2 --midi alsa
            """
    )

    @Argument(help: ArgumentHelp("Which mapping (1 = the first).", valueName: "N"))
    var index = 1
    @Option(help: ArgumentHelp("Seconds for one heel-toe-heel sweep.", valueName: "SECONDS"))
    var sweep = 4.0
    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until Ctrl-C).", valueName: "SECONDS"))
    var seconds: Double?
    @OptionGroup(title: "Mapping") var mapping: MappingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        guard (1...1000).contains(index) else { throw ValidationError("the mapping number counts from 1") }
        guard sweep.isFinite, sweep >= 0.5, sweep <= 600 else {
            throw ValidationError("--sweep must be 0.5 to 600 seconds")
        }
        if let s = seconds, !(s.isFinite && s > 0 && s <= 86_400) {
            throw ValidationError("--seconds must be above 0 and at most 86400")
        }
        if mapping.solo != nil { throw ValidationError("learn takes the mapping number as its argument, not --solo") }
        if output.network.oscOutSources {
            throw ValidationError(
                "--osc-out-sources: learn sweeps a controller and reads no sensor, so it has no sources to send (use it with replay or listen)"
            )
        }
    }

    func run() throws {
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.learn")
        let m = try mapping.mapping(number: index)
        if case .effect(let t) = m.target {
            throw ValidationError(
                "learn \(index): mapping \(index) moves the effect parameter \(t.address), not a MIDI controller a DAW could learn; give a cc=, cc14= or bend mapping"
            )
        }
        Shutdown.installHandlers()
        let outputs = try Wiring.outputs(output, mappings: [m], logger: logger)
        logger.notice(
            "learn: sending only \(m.target) (mapping \(index): \(m.source)), a sweep every \(sweep) s; Ctrl-C when the DAW has learned it"
        )
        let sent = ControllerSweep(target: m.target, period: sweep, rate: 50).run(
            seconds: seconds, rest: m.rest, outputs: outputs)
        for o in outputs { o.close() }
        printError("sensorwah learn: sent \(sent) messages on \(m.target) only")
    }
}
