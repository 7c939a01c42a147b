import ArgumentParser
import SensorWahCore

/// The wah's sound: shared by the JACK wah (`--wah`) and `render`.
struct WahToneOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The wah's filter: svf (a state-variable band-pass, the default) or crybaby (a model of the Dunlop GCB-95 circuit; ignores --heel-hz, --toe-hz, --heel-q, --toe-q; samples are volts).",
            valueName: "VOICE"))
    var voice = WahVoice.svf.rawValue
    @Option(
        name: .customLong("heel-hz"),
        help: ArgumentHelp("Wah centre frequency at the heel (pedal 0), Hz.", valueName: "HZ"))
    var heelHz = WahSettings().heelFrequency
    @Option(
        name: .customLong("toe-hz"),
        help: ArgumentHelp("Wah centre frequency at the toe (pedal 1), Hz.", valueName: "HZ"))
    var toeHz = WahSettings().toeFrequency
    @Option(name: .customLong("heel-q"), help: "Wah resonance at the heel.")
    var heelQ = WahSettings().heelQ
    @Option(name: .customLong("toe-q"), help: "Wah resonance at the toe.")
    var toeQ = WahSettings().toeQ
    @Option(help: "Wah dry/wet mix, 0 (dry) to 1 (wet).")
    var mix = WahSettings().mix
    @Flag(help: "Bypass the wah (audio passes through unchanged).")
    var bypass = false
    @Option(
        name: .customLong("wah-mode"),
        help: ArgumentHelp(
            "What moves the pedal: sensor (the default), envelope (an envelope follower on the guitar: an auto-wah) or both (the sensor's position plus the envelope: the wrist sets where the sweep starts, the pick attack opens it).",
            valueName: "MODE"))
    var wahMode = WahMode.sensor.rawValue
    @Option(help: ArgumentHelp("Envelope follower attack time, ms.", valueName: "MS"))
    var attack = WahSettings().attackTime * 1000
    @Option(help: ArgumentHelp("Envelope follower release time, ms.", valueName: "MS"))
    var release = WahSettings().releaseTime * 1000
    @Option(
        help: ArgumentHelp(
            "Pedal travel per unit of envelope (2: a guitar peaking at 0.5 opens the pedal fully).", valueName: "GAIN"))
    var sensitivity = WahSettings().sensitivity

    var mode: WahMode { WahMode(rawValue: wahMode) ?? .sensor }

    func validate() throws {
        guard WahVoice(rawValue: voice) != nil else {
            throw ValidationError(
                "--voice must be one of: \(WahVoice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for (name, v) in [("--heel-hz", heelHz), ("--toe-hz", toeHz)] where !(v.isFinite && v >= 10 && v <= 20_000) {
            throw ValidationError("\(name) must be between 10 and 20000 Hz")
        }
        for (name, v) in [("--heel-q", heelQ), ("--toe-q", toeQ)] where !(v.isFinite && v >= 0.1 && v <= 100) {
            throw ValidationError("\(name) must be between 0.1 and 100")
        }
        guard mix.isFinite && mix >= 0 && mix <= 1 else { throw ValidationError("--mix must be between 0 and 1") }
        guard WahMode(rawValue: wahMode) != nil else {
            throw ValidationError(
                "--wah-mode must be one of: \(WahMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard attack.isFinite && attack >= 0.1 && attack <= 1000 else {
            throw ValidationError("--attack must be between 0.1 and 1000 ms")
        }
        guard release.isFinite && release >= 1 && release <= 10_000 else {
            throw ValidationError("--release must be between 1 and 10000 ms")
        }
        guard sensitivity.isFinite && sensitivity >= 0 && sensitivity <= 100 else {
            throw ValidationError("--sensitivity must be between 0 and 100")
        }
    }

    func settings() -> WahSettings {
        WahSettings(
            heelFrequency: heelHz, toeFrequency: toeHz, heelQ: heelQ, toeQ: toeQ, mix: mix, bypass: bypass,
            voice: WahVoice(rawValue: voice) ?? .svf, mode: mode,
            attackTime: attack / 1000, releaseTime: release / 1000, sensitivity: sensitivity)
    }

    var summary: String {
        func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        var s =
            WahVoice(rawValue: voice) == .crybaby
            ? "crybaby (GCB-95 model: about 410 Hz at the heel to 1.75 kHz at the toe)"
            : "\(n(heelHz)) Hz (Q \(n(heelQ))) at the heel to \(n(toeHz)) Hz (Q \(n(toeQ))) at the toe"
        if mode != .sensor {
            s += mode == .envelope ? ", moved by the envelope" : ", moved by the sensor plus the envelope"
            s += " (attack \(n(attack)) ms, release \(n(release)) ms, sensitivity \(n(sensitivity)))"
        }
        if mix < 1 { s += ", mix \(n(mix))" }
        if bypass { s += ", bypassed" }
        return s
    }
}
