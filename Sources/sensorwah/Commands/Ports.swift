import ArgumentParser
import SensorWahALSA
import SensorWahEngine

struct Ports: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ports",
        abstract: "List the ALSA sequencer's MIDI ports (like aconnect -l).",
        discussion: """
        Each port line also shows the port's capabilities and type. `--alsa-connect` takes \
        a client and port from this list, by number (128:0) or name ("Midi Through").
        """
    )

    func run() throws {
        do {
            print(try ALSASequencerOutput.listPorts(), terminator: "")
        } catch {
            printError("sensorwah: \(error.description)")
            throw ExitCode(1)
        }
    }
}
