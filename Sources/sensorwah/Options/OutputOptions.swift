import ArgumentParser
import SensorWahALSA

enum MIDIDestination: String, ExpressibleByArgument, CaseIterable {
    case stdout
    case alsa
    case jack
    case rtp
    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// Where the mapped events go: MIDI destinations and, through `jack`, the wah.
struct OutputOptions: ParsableArguments {
    @Option(name: .customLong("midi"), help: ArgumentHelp(
        "Where MIDI goes (repeatable): stdout (one JSON line per message), alsa (ALSA sequencer port, default SensorWah:out), jack (JACK MIDI port sensorwah:midi_out), rtp (an RTP-MIDI network session for Macs, iPads and Linux peers).",
        valueName: "OUTPUT"))
    var midi: [MIDIDestination] = []
    @Option(help: ArgumentHelp("ALSA sequencer client name (--midi alsa).", valueName: "NAME"))
    var alsaClient = "SensorWah"
    @Option(help: ArgumentHelp("ALSA sequencer port name (--midi alsa).", valueName: "NAME"))
    var alsaPort = "out"
    @Option(help: ArgumentHelp("Connect the ALSA port to CLIENT[:PORT], by number or name (repeatable); one that is not there yet is connected when it appears.", valueName: "CLIENT[:PORT]"))
    var alsaConnect: [String] = []

    @OptionGroup var jack: JackOptions
    @OptionGroup var network: NetworkOutputOptions

    func validate() throws {
        for s in alsaConnect {
            do { _ = try ALSAAddressSpec(parsing: s) } catch { throw ValidationError("--alsa-connect '\(s)': \(error)") }
        }
    }

    /// The MIDI destinations asked for; stdout unless another MIDI output or the wah was.
    var destinations: [MIDIDestination] {
        let wanted = midi.isEmpty && !jack.audio ? [.stdout] : midi
        return Set(wanted).sorted(by: { $0.rawValue < $1.rawValue })
    }
}
