import ArgumentParser
import SensorWahCore

struct MappingsHelp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mappings",
        abstract: "Explain the --map syntax, show the default mapping and list the effects' parameters (fx= targets)."
    )
    func run() throws {
        print(Mapping.syntaxHelp)
        print("\nDefault: \(Mapping.default.summary)")
        print(Self.effectsHelp)
    }

    /// The effects' parameters as fx= targets, and the chain presets.
    static var effectsHelp: String {
        func pad(_ t: String, _ n: Int) -> String {
            t.count >= n ? t + " " : t + String(repeating: " ", count: n - t.count)
        }
        var s = "\nEffect parameters (fx=EFFECT.PARAM; the chain is --fx or --fx-preset, the wah alone by default;"
        s += "\na second effect of a kind is numbered: delay2.time). to=LO..HI is in the parameter's units:"
        for kind in EffectKind.allCases {
            s += "\n  \(kind.rawValue): \(kind.summary)"
            for p in kind.parameters {
                let name = "\(kind.rawValue).\(p.name)"
                s += "\n    " + pad(name, 22) + pad(p.expected, 24)
                s += "default \(p.format(p.defaultValue)); \(p.summary)"
            }
        }
        s += "\nChain presets (--fx-preset NAME):"
        for p in EffectChainSpec.presets {
            s += "\n  " + pad(p.name, 14) + p.chain
        }
        s += "\nExamples: \"tilt.y fx=tremolo.rate to=1..8\"   \"flick fx=delay.bypass toggle\"   --fx-cc 20=delay.mix"
        return s
    }
}
