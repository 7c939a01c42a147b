import ArgumentParser
import SensorWahALSA
import SensorWahEngine
import SensorWahIO

struct Ports: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ports",
        abstract: "List the ALSA sequencer's MIDI ports (like aconnect -l) and the RTP-MIDI sessions running here.",
        discussion: """
            Each port line also shows the port's capabilities and type. `--alsa-connect` takes \
            a client and port from this list, by number (128:0) or name ("Midi Through"). Each \
            RTP-MIDI session a `sensorwah --midi rtp` of this user runs is listed after the ports, \
            with its participants (who invited whom, the clock sync's round trip). Without an ALSA \
            sequencer the sessions are still listed; the exit status is 1 only when there is \
            neither.
            """
    )

    func run() throws {
        var alsaError: String?
        do {
            print(try ALSASequencerOutput.listPorts(), terminator: "")
        } catch {
            alsaError = "\(error)"
        }
        let sessions = RTPSessionRegistry.list()
        if let e = alsaError {
            printError("sensorwah: \(e)")
            if sessions.isEmpty { throw ExitCode(1) }
        }
        for s in sessions {
            if let first = s.lines.first { print("\(first) (sensorwah, pid \(s.pid))") }
            for line in s.lines.dropFirst() { print(line) }
        }
    }
}
