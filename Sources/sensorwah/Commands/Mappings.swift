import ArgumentParser
import SensorWahCore

struct MappingsHelp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mappings",
        abstract: "Explain the --map syntax and show the default mapping."
    )
    func run() throws {
        print(Mapping.syntaxHelp)
        print("\nDefault: \(Mapping.default.summary)")
    }
}
