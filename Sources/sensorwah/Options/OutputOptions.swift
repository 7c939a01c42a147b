import ArgumentParser
import SensorWahALSA

enum MIDIDestination: String, ExpressibleByArgument, CaseIterable {
    case stdout
    case alsa
    case jack
    case rtp
    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// `--midi` and the ALSA port's names: a section of their own in the help.
struct MIDIOutOptions: ParsableArguments {
    @Option(
        name: .customLong("midi"),
        help: ArgumentHelp(
            "Where MIDI goes (repeatable): stdout (one JSON line per message), alsa (ALSA sequencer port, default SensorWah:out), jack (JACK MIDI port sensorwah:midi_out), rtp (an RTP-MIDI network session for Macs, iPads and Linux peers).",
            valueName: "OUTPUT"))
    var midi: [MIDIDestination] = []
    @Option(help: ArgumentHelp("ALSA sequencer client name (--midi alsa).", valueName: "NAME"))
    var alsaClient = "SensorWah"
    @Option(help: ArgumentHelp("ALSA sequencer port name (--midi alsa).", valueName: "NAME"))
    var alsaPort = "out"
    @Option(
        help: ArgumentHelp(
            "Connect the ALSA port to CLIENT[:PORT], by number or name (repeatable); one that is not there yet is connected when it appears.",
            valueName: "CLIENT[:PORT]"))
    var alsaConnect: [String] = []

    func validate() throws {
        for s in alsaConnect {
            do { _ = try ALSAAddressSpec(parsing: s) } catch {
                throw ValidationError("--alsa-connect '\(s)': \(error)")
            }
        }
    }
}

/// Where the mapped events go: MIDI destinations and, through `jack`, the wah.
struct OutputOptions: ParsableArguments {
    @OptionGroup(title: "MIDI out") var midiOut: MIDIOutOptions
    @OptionGroup(title: "JACK and the wah") var jack: JackOptions
    @OptionGroup(title: "Network outputs") var network: NetworkOutputOptions

    var midi: [MIDIDestination] { midiOut.midi }
    var alsaClient: String { midiOut.alsaClient }
    var alsaPort: String { midiOut.alsaPort }
    var alsaConnect: [String] { midiOut.alsaConnect }

    /// The MIDI destinations asked for; stdout unless another MIDI output or the wah was.
    var destinations: [MIDIDestination] {
        let wanted = midi.isEmpty && !jack.audio ? [.stdout] : midi
        return Set(wanted).sorted(by: { $0.rawValue < $1.rawValue })
    }
}
