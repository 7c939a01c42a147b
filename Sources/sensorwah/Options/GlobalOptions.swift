import ArgumentParser
import Logging
import SensorWahConsole
import SensorWahIO

struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "More log detail on stderr.")
    var verbose = false
    @Flag(name: .shortAndLong, help: "Only errors on stderr (the summary is still printed).")
    var quiet = false
    @Option(
        help: ArgumentHelp(
            "Settings from a configuration file (YAML; `sensorwah init FILE` writes one). Options typed here override it.",
            valueName: "FILE"))
    var config: String?

    func bootstrapLogging() {
        let level: Logger.Level = verbose ? .debug : (quiet ? .error : .info)
        LoggingSystem.bootstrap { label in TerminalLogHandler(label: label, level: level) }
    }
}
