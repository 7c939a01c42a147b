import ArgumentParser
import SensorWahCore
import SensorWahJack

/// JACK options shared by `listen` and `replay` (`@OptionGroup var jack: JackOptions`).
struct JackOptions: ParsableArguments {
    @Flag(help: "Run the wah on JACK audio: client 'sensorwah', ports in_1 -> out_1 (in_2 -> out_2 with --channels 2).")
    var wah = false
    @Option(help: "Audio channels through the wah: 1 or 2.")
    var channels = 1
    @Option(
        name: .customLong("jack-connect"),
        help: ArgumentHelp(
            "Connect ports whenever the client (re)connects: 'system' (physical capture -> in_N, out_N -> playback), or PORT=PEER pairs, e.g. out_1=system:playback_1,in_1=system:capture_1 (repeatable; ports in_1, in_2, out_1, out_2, midi_out, and control_in for listen with scenes).",
            valueName: "CONNECTIONS"))
    var jackConnect: [String] = []
    @Option(
        name: .customLong("jack-server"),
        help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER or 'default').", valueName: "NAME"))
    var jackServer: String?
    @Option(
        name: .customLong("wah-map"),
        help: ArgumentHelp(
            "Which --map drives the wah pedal, 1 = the first (7-bit: value/127, 14-bit and pitch bend: value/16383).",
            valueName: "INDEX"))
    var wahMap = 1
    @Option(
        name: .customLong("wah-switch"),
        help: ArgumentHelp(
            "A gesture that engages and bypasses the wah, like a wah pedal's toe switch (5 ms crossfade, no click); the wah starts bypassed.",
            valueName: "flick|shake|tap"))
    var wahSwitch: String?
    @OptionGroup(title: "Wah tone") var tone: WahToneOptions
    @OptionGroup(title: "Effect chain") var fx: EffectChainOptions
    @Option(
        name: .customLong("fx-cc"),
        help: ArgumentHelp(
            "A MIDI Control Change on the JACK port control_in moves an effect parameter over its whole range, e.g. 20=tremolo.rate (repeatable; needs --wah or --fx).",
            valueName: "CC=EFFECT.PARAM"))
    var fxCC: [String] = []

    /// Whether the engine runs audio: `--wah`, or a chain (`--fx`, `--fx-preset`).
    var audio: Bool { wah || fx.given }

    /// `--fx-cc` as written.
    func controllerBindings() throws -> [EffectControllerBinding] {
        try fxCC.map(EffectControllerBinding.init(parsing:))
    }

    /// `mappings` with their `fx=` targets resolved against the chain that runs.
    func resolve(_ mappings: [Mapping]) throws -> [Mapping] { try fx.resolve(mappings, chain: try fx.chain()) }

    /// The internal mapping `--wah-switch` adds after the user's (so --wah-map counts are unchanged).
    func switchMappings() -> [Mapping] { wahSwitchMappings(wahSwitch) }

    func validate() throws {
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels must be 1 or 2") }
        guard (1...1000).contains(wahMap) else { throw ValidationError("--wah-map counts from 1") }
        if let w = wahSwitch {
            guard Gesture(name: w) != nil else { throw ValidationError("--wah-switch '\(w)': flick, shake or tap") }
            guard audio else { throw ValidationError("--wah-switch needs --wah or --fx (it switches the JACK wah)") }
        }
        let bindings = try controllerBindings()
        if !bindings.isEmpty {
            guard audio else {
                throw ValidationError("--fx-cc needs --wah or --fx (it moves the JACK engine's effects)")
            }
            _ = try EffectControllerBinding.resolve(bindings, chain: try fx.chain())
        }
        _ = try connections()
    }

    func connections() throws -> [JackConnection] {
        var out: [JackConnection] = []
        for text in jackConnect {
            do { out += try JackConnection.parse(text) } catch {
                throw ValidationError("--jack-connect: \(error.message)")
            }
        }
        return out
    }
}

/// The internal mapping `--wah-switch GESTURE` adds after the user's, for JACK (`listen`,
/// `replay`) and for `render` alike: each gesture flips the wah's engage switch.
func wahSwitchMappings(_ gesture: String?) -> [Mapping] {
    guard let text = gesture, let g = Gesture(name: text) else { return [] }
    var m = Mapping(source: .axis(g.quantity), target: .wahSwitch)
    m.smoothing = 0
    return [m]
}
