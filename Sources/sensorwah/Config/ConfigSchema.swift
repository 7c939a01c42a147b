/// What a configuration file may hold: sections of keys named exactly like the long options
/// they stand for (`port: 9000` in `listen:` is `--port 9000`), and which commands take them.
/// Flags on the command line override the file: a single value given on both wins from the
/// command line; a list given on the command line (`--map`, `--udp` ...) replaces the file's.
enum ConfigSchema {
    enum Kind {
        case number, text, flag, list
        var expects: String {
            switch self {
            case .number: return "a number"
            case .text: return "a text value"
            case .flag: return "true or false"
            case .list: return "a list, e.g. [a, b] (or one value)"
            }
        }
    }

    struct Key {
        var name: String
        var kind: Kind
        /// The long option it becomes (usually the same as the name).
        var option: String
        /// Only these commands take it (nil: every command of its section).
        var only: Set<String>?
        init(_ name: String, _ kind: Kind, option: String? = nil, only: Set<String>? = nil) {
            self.name = name; self.kind = kind; self.option = option ?? name; self.only = only
        }
    }

    struct Section {
        var name: String
        var keys: [Key]
        var commands: Set<String>
    }

    /// The commands that run a JACK client (`render` reads only `wah-switch` from `jack:`).
    static let jackCommands: Set<String> = ["replay", "listen", "learn"]
    static let mappingsKey = "mappings"
    static let scenesKey = "scenes"
    static let sceneKey = "scene"
    /// The effect chain (`--fx`), a named chain (`--fx-preset`) and the MIDI CCs that move its
    /// parameters (`--fx-cc`): top-level keys, for the commands that run the engine.
    static let chainKey = "chain"
    static let presetKey = "fx-preset"
    static let fxCCKey = "fx-cc"
    static let chainCommands: Set<String> = ["replay", "listen", "learn", "render"]

    static let sections: [Section] = [
        Section(
            name: "input",
            keys: [
                Key("format", .text), Key("columns", .text), Key("max-line", .number), Key("sensor", .text),
                Key("sample-rate", .number)
            ], commands: ["replay", "listen", "render", "calibrate", "export", "plot"]),
        Section(
            name: "playback",
            keys: [
                Key("speed", .number), Key("max-gap", .number), Key("loop", .flag)
            ], commands: ["replay", "stream"]),
        Section(
            name: "listen",
            keys: [
                Key("port", .number), Key("no-tcp", .flag), Key("bind", .text), Key("connect", .list),
                Key("udp", .list),
                Key("osc", .list), Key("osc-tcp", .list), Key("http", .list), Key("http-max-body", .number),
                Key("web", .flag), Key("web-port", .number),
                Key("phyphox", .list), Key("phyphox-interval", .number),
                Key("scene-gesture", .text), Key("scene-channel", .number), Key("allow", .list), Key("pair", .flag),
                Key("pair-with", .text), Key("max-connections", .number), Key("idle-timeout", .number),
                Key("rest-after", .number), Key("record", .text), Key("no-anticipate", .flag),
                Key("playout", .text)
            ], commands: ["listen"]),
        Section(
            name: "output",
            keys: [
                Key("midi", .list), Key("alsa-client", .text), Key("alsa-port", .text), Key("alsa-connect", .list),
                Key("rtp-name", .text), Key("rtp-port", .number), Key("rtp-connect", .list),
                Key("rtp-timeout", .number),
                Key("rtp-wait", .number), Key("no-rtp-journal", .flag), Key("no-rtp-announce", .flag),
                Key("osc-out", .list), Key("osc-out-raw", .flag), Key("osc-out-sources", .flag),
                Key("osc-out-ahead", .flag)
            ], commands: ["replay", "listen", "learn"]),
        Section(
            name: "jack",
            keys: [
                Key("wah", .flag, only: jackCommands), Key("channels", .number, only: jackCommands),
                Key("jack-connect", .list, only: jackCommands), Key("jack-server", .text, only: jackCommands),
                Key("wah-map", .number, only: jackCommands.union(["render"])), Key("wah-switch", .text)
            ], commands: ["replay", "listen", "learn", "render"]),
        Section(
            name: "motion",
            keys: [
                Key("tilt-source", .text),
                Key("zero-gesture", .text, only: ["replay", "listen", "render", "calibrate", "plot"]),
                Key("rest-gravity", .text, only: ["replay", "listen", "render", "calibrate", "plot"]),
                Key("gesture-setting", .list), Key("gestures", .text)
            ], commands: ["replay", "listen", "render", "export", "calibrate", "plot"]),
        Section(
            name: "wah",
            keys: [
                Key("heel-hz", .number), Key("toe-hz", .number), Key("heel-q", .number), Key("toe-q", .number),
                Key("mix", .number), Key("bypass", .flag)
            ], commands: ["replay", "listen", "learn", "render"])
    ]

    static var sectionNames: [String] {
        sections.map(\.name) + [mappingsKey, scenesKey, sceneKey, chainKey, presetKey, fxCCKey]
    }

    static func section(_ name: String) -> Section? { sections.first { $0.name == name } }
}
