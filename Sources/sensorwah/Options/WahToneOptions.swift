import ArgumentParser
import SensorWahCore

/// The wah's sound: shared by the JACK wah (`--wah`) and `render`.
struct WahToneOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The wah's filter: svf (a state-variable band-pass, the default) or crybaby (a model of the Dunlop GCB-95 circuit; ignores --heel-hz, --toe-hz, --heel-q, --toe-q; samples are volts).", valueName: "VOICE"))
    var voice = WahVoice.svf.rawValue
    @Option(name: .customLong("heel-hz"), help: ArgumentHelp("Wah centre frequency at the heel (pedal 0), Hz.", valueName: "HZ"))
    var heelHz = WahSettings().heelFrequency
    @Option(name: .customLong("toe-hz"), help: ArgumentHelp("Wah centre frequency at the toe (pedal 1), Hz.", valueName: "HZ"))
    var toeHz = WahSettings().toeFrequency
    @Option(name: .customLong("heel-q"), help: "Wah resonance at the heel.")
    var heelQ = WahSettings().heelQ
    @Option(name: .customLong("toe-q"), help: "Wah resonance at the toe.")
    var toeQ = WahSettings().toeQ
    @Option(help: "Wah dry/wet mix, 0 (dry) to 1 (wet).")
    var mix = WahSettings().mix
    @Flag(help: "Bypass the wah (audio passes through unchanged).")
    var bypass = false

    func validate() throws {
        guard WahVoice(rawValue: voice) != nil else {
            throw ValidationError("--voice must be one of: \(WahVoice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for (name, v) in [("--heel-hz", heelHz), ("--toe-hz", toeHz)] where !(v.isFinite && v >= 10 && v <= 20_000) {
            throw ValidationError("\(name) must be between 10 and 20000 Hz")
        }
        for (name, v) in [("--heel-q", heelQ), ("--toe-q", toeQ)] where !(v.isFinite && v >= 0.1 && v <= 100) {
            throw ValidationError("\(name) must be between 0.1 and 100")
        }
        guard mix.isFinite && mix >= 0 && mix <= 1 else { throw ValidationError("--mix must be between 0 and 1") }
    }

    func settings() -> WahSettings {
        WahSettings(heelFrequency: heelHz, toeFrequency: toeHz, heelQ: heelQ, toeQ: toeQ, mix: mix, bypass: bypass,
                    voice: WahVoice(rawValue: voice) ?? .svf)
    }

    var summary: String {
        func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        var s = WahVoice(rawValue: voice) == .crybaby
            ? "crybaby (GCB-95 model: about 410 Hz at the heel to 1.75 kHz at the toe)"
            : "\(n(heelHz)) Hz (Q \(n(heelQ))) at the heel to \(n(toeHz)) Hz (Q \(n(toeQ))) at the toe"
        if mix < 1 { s += ", mix \(n(mix))" }
        if bypass { s += ", bypassed" }
        return s
    }
}
