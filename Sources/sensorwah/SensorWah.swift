import ArgumentParser
import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahIO

@main
struct SensorWah: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensorwah",
        abstract: "Turn wrist movement into MIDI control and a wah sweep.",
        discussion: """
            A phone or watch app (SensorLog, Sensor Logger, phyphox, HyperIMU, Sensorstream ...) streams motion readings; \
            SensorWah cleans them, maps them to MIDI Control Change and sends them out.

            Start here:
              sensorwah replay Recordings/wrist-wah-phone.csv
                  play a recording, print the CC stream
              sensorwah replay FILE --fast --midi stdout
                  as fast as possible, one JSON line per message
              sensorwah replay FILE --wah
                  the wah on JACK audio follows the recording
              sensorwah render --recording FILE in.wav out.wav
                  the same wah offline, no sound card needed
              sensorwah plot FILE -o take.svg
                  what each mapping makes of it, as a picture
              sensorwah mappings
                  how to write a mapping (--map)

            With no --map, the default mapping tilt.x zero cc=11 runs: the fused wrist tilt, zeroed \
            where the wrist starts, drives CC 11 on channel 1.
            """,
        version: "sensorwah \(SensorWahCoreVersion.string)",
        subcommands: [
            Init.self, Replay.self, Inspect.self, Listen.self, Stream.self, Render.self, Export.self, Ports.self,
            Learn.self, Calibrate.self, Teach.self, Plot.self, MappingsHelp.self
        ],
        defaultSubcommand: nil
    )

    /// Parses with the settings of `--config FILE` in front of the typed options, runs the
    /// command, and reports an error caused by a setting at its line in the file.
    static func main() {
        // a mistyped command gets the nearest one, as a mistyped option does
        if let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-"), first != "help" {
            let names = configuration.subcommands.map { $0._commandName }
            if !names.contains(first), let guess = Suggestion.closest(to: first, among: names) {
                printError(
                    "Error: Unknown command '\(first)'. Did you mean '\(guess)'?\n  See 'sensorwah --help' for the commands."
                )
                Self.exit(withError: ExitCode(64))
            }
        }
        let config: ConfigArguments
        do { config = try ConfigArguments(argv: Array(CommandLine.arguments.dropFirst())) } catch {
            printError("Error: \(error)")
            Self.exit(withError: ExitCode(78))  // EX_CONFIG
        }
        do {
            var command = try parseAsRoot(config.arguments)
            try checkListenSettings(config)
            defer { TerminalLogHandler.flush() }
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code != .success, let located = config.attribute(fullMessage(for: error)) {
                // a setting in the file, not the command line: no usage line
                let text = located.replacingOccurrences(of: "Error: ", with: "").split(separator: "\n")
                    .filter { !$0.hasPrefix("Usage:") && !$0.hasPrefix("  See '") && !$0.isEmpty }.joined(
                        separator: "\n")
                printError("Error: " + text)
                Self.exit(withError: ExitCode(code.rawValue))
            }
            Self.exit(withError: error)
        }
    }

    /// A file's `listen:` settings are checked by every command that reads the file, as
    /// `listen` would check them, so that `replay` or `plot` does not pass a file `listen`
    /// refuses (a port out of range, say). Only parsed and validated, nothing started.
    static func checkListenSettings(_ config: ConfigArguments) throws {
        guard let file = config.file, let command = config.arguments.first, command != "listen",
            !file.arguments(for: "listen", given: []).args.isEmpty
        else { return }
        let listen = try ConfigArguments(argv: ["listen", "--config", file.path])
        do { _ = try parseAsRoot(listen.arguments) } catch {
            guard exitCode(for: error) != .success else { return }
            let message = listen.attribute(fullMessage(for: error)) ?? fullMessage(for: error)
            let text = message.replacingOccurrences(of: "Error: ", with: "").split(separator: "\n")
                .filter { !$0.hasPrefix("Usage:") && !$0.hasPrefix("  See '") && !$0.isEmpty }.joined(separator: "\n")
            printError(
                "Error: \(text)\n(a listen setting: \(command) does not use it, but listen would refuse this file; fix it there)"
            )
            Self.exit(withError: ExitCode(78))  // EX_CONFIG
        }
    }
}
