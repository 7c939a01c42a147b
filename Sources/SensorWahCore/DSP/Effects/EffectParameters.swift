// EffectParameters.swift — the effects of the chain and each one's parameter table.
//
// Every parameter has a name, a unit, a range, a default and a kind (a continuous value, an
// on/off switch, an integer with a step, or a choice among names). Values are always carried
// as Double in the parameter's own units: a switch is 0 (off) or 1 (on), a choice is the index
// of its name. `bypass` is the first parameter of every effect.

/// The effects a chain is built from.
public enum EffectKind: String, CaseIterable, Sendable {
    case fuzz, wah, tremolo, phaser, delay

    /// One line on what the effect does (help texts, docs).
    public var summary: String {
        switch self {
        case .fuzz: return "an oversampled tanh waveshaper with a tone control (a fuzz / overdrive)"
        case .wah: return "SensorWah's wah: the svf or crybaby voice, moved by the sensor, the envelope or both"
        case .tremolo: return "amplitude modulation at a rate in Hz or synced to the tempo"
        case .phaser: return "a swept chain of first-order all-pass filters mixed with the dry signal"
        case .delay: return "an echo up to 2 s with feedback, a damping tone control in the loop and gliding time"
        }
    }

    /// The parameter table, `bypass` first. The order is the order of the flat slots.
    public var parameters: [EffectParameter] {
        switch self {
        case .fuzz: return EffectParameter.fuzzTable
        case .wah: return EffectParameter.wahTable
        case .tremolo: return EffectParameter.tremoloTable
        case .phaser: return EffectParameter.phaserTable
        case .delay: return EffectParameter.delayTable
        }
    }

    /// The parameter called `name` (case-insensitive) and its index in `parameters`.
    public func parameter(named name: String) -> (index: Int, parameter: EffectParameter)? {
        let n = name.lowercased()
        guard let i = parameters.firstIndex(where: { $0.name == n }) else { return nil }
        return (i, parameters[i])
    }
}

/// One parameter of an effect.
public struct EffectParameter: Sendable, Equatable {
    /// How the value is read and written.
    public enum Kind: Sendable, Equatable {
        /// Any value in the range.
        case continuous
        /// 0 = off, 1 = on (`on`/`off`, `true`/`false`, `1`/`0` in text).
        case toggle
        /// Whole numbers in the range, multiples of `step` from its lower end.
        case integer(step: Int)
        /// One of these names; the value is its index.
        case choice([String])
    }

    public let name: String
    /// `Hz`, `s`, `BPM`..., or "" for a plain 0-1 amount, a switch or a choice.
    public let unit: String
    public let range: ClosedRange<Double>
    public let defaultValue: Double
    public let kind: Kind
    /// What it does, one line.
    public let summary: String

    public init(
        name: String, unit: String = "", range: ClosedRange<Double>, defaultValue: Double,
        kind: Kind = .continuous, summary: String
    ) {
        self.name = name
        self.unit = unit
        self.range = range
        self.defaultValue = defaultValue
        self.kind = kind
        self.summary = summary
    }

    /// True for a switch (`bypass`) or a choice: values that step rather than glide.
    public var isDiscrete: Bool {
        if case .continuous = kind { return false }
        return true
    }

    /// The names of a choice (empty otherwise).
    public var choices: [String] {
        if case .choice(let names) = kind { return names }
        return []
    }

    /// `value` made valid: clamped to the range, rounded for a switch, an integer or a choice.
    /// NaN gives the default.
    public func clamp(_ value: Double) -> Double {
        if value.isNaN { return defaultValue }
        let v = min(max(value, range.lowerBound), range.upperBound)
        switch kind {
        case .continuous: return v
        case .toggle: return v >= 0.5 ? 1 : 0
        case .integer(let step):
            let s = Double(max(step, 1))
            let k = ((v - range.lowerBound) / s).rounded()
            return min(range.lowerBound + k * s, range.upperBound)
        case .choice: return v.rounded()
        }
    }

    /// The value as it is written in a chain (`0.8`, `on`, `square`, `4`).
    public func format(_ value: Double) -> String {
        switch kind {
        case .toggle: return value >= 0.5 ? "on" : "off"
        case .choice(let names):
            let i = Int(value.rounded())
            return names.indices.contains(i) ? names[i] : String(i)
        case .integer: return String(Int(value.rounded()))
        case .continuous: return NumberText.whole(value)
        }
    }

    /// What a value of this parameter looks like, for error messages: `0-1`, `2-12 even`,
    /// `sine, triangle or square`, `on or off`, `0.01-20 Hz`.
    public var expected: String {
        switch kind {
        case .toggle: return "on or off"
        case .choice(let names):
            return names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
        case .integer(let step):
            let r = "\(Int(range.lowerBound))-\(Int(range.upperBound))"
            return step == 2 ? r + " even" : (step == 1 ? r : r + " in steps of \(step)")
        case .continuous:
            let r = NumberText.whole(range.lowerBound) + "-" + NumberText.whole(range.upperBound)
            return unit.isEmpty ? r : r + " " + unit
        }
    }

    /// Reads a value written in a chain or a command line. Throws `EffectChainError` naming
    /// `effect` and this parameter when the text is not a value or is out of range.
    public func parse(_ text: String, effect: String) throws -> Double {
        let t = text.lowercased()
        switch kind {
        case .toggle:
            switch t {
            case "on", "true", "yes", "1": return 1
            case "off", "false", "no", "0": return 0
            default: throw EffectChainError.badValue(effect: effect, parameter: name, seen: text, expected: expected)
            }
        case .choice(let names):
            if let i = names.firstIndex(of: t) { return Double(i) }
            throw EffectChainError.badValue(effect: effect, parameter: name, seen: text, expected: expected)
        case .integer(let step):
            guard let v = Int(t) else {
                throw EffectChainError.badValue(effect: effect, parameter: name, seen: text, expected: expected)
            }
            let d = Double(v)
            if !range.contains(d) || (v - Int(range.lowerBound)) % max(step, 1) != 0 {
                throw EffectChainError.outOfRange(effect: effect, parameter: name, seen: text, expected: expected)
            }
            return d
        case .continuous:
            var s = Substring(t)
            if !unit.isEmpty, s.hasSuffix(unit.lowercased()) { s = s.dropLast(unit.count) }
            if unit == "s", s.hasSuffix("m"), let ms = Double(s.dropLast()), ms.isFinite {
                // `300ms` for a time in seconds
                let v = ms / 1000
                if !range.contains(v) {
                    throw EffectChainError.outOfRange(effect: effect, parameter: name, seen: text, expected: expected)
                }
                return v
            }
            guard let v = Double(s), v.isFinite else {
                throw EffectChainError.badValue(effect: effect, parameter: name, seen: text, expected: expected)
            }
            if !range.contains(v) {
                throw EffectChainError.outOfRange(effect: effect, parameter: name, seen: text, expected: expected)
            }
            return v
        }
    }

    // MARK: Tables

    static let bypass = EffectParameter(
        name: "bypass", range: 0...1, defaultValue: 0, kind: .toggle,
        summary: "on: the input passes unchanged (5 ms crossfade)")

    /// Tempo-synced note values: cycles (tremolo) or echo spacing (delay) as a fraction of a
    /// whole note; `off` runs free at `rate`/`time`.
    public static let syncNames = ["off", "1/1", "1/2", "1/4", "1/8", "1/16", "1/4t", "1/8t", "1/4d", "1/8d"]
    /// Beats (quarter notes) per cycle of `syncNames[index]` (0 for `off` or an unknown index).
    /// A switch, not an array: real-time code reads it without touching a reference.
    @inlinable
    public static func syncBeats(_ index: Int) -> Double {
        switch index {
        case 1: return 4
        case 2: return 2
        case 3: return 1
        case 4: return 0.5
        case 5: return 0.25
        case 6: return 2.0 / 3.0
        case 7: return 1.0 / 3.0
        case 8: return 1.5
        case 9: return 0.75
        default: return 0
        }
    }

    static let fuzzTable: [EffectParameter] = [
        bypass,
        EffectParameter(
            name: "drive", range: 0...1, defaultValue: 0.5,
            summary: "gain into the shaper, 0 dB to +29.5 dB (exponential)"),
        EffectParameter(
            name: "tone", range: 0...1, defaultValue: 0.5,
            summary: "low-pass after the shaper, 700 Hz to open (1 = no filter)"),
        EffectParameter(
            name: "level", range: 0...1, defaultValue: 0.5,
            summary: "output level, linear (the shaper's output peaks near 1)")
    ]

    static let wahTable: [EffectParameter] = [
        bypass,
        EffectParameter(
            name: "pedal", range: 0...1, defaultValue: 0,
            summary: "the pedal: 0 heel, 1 toe (what the sensor moves)"),
        EffectParameter(
            name: "voice", range: 0...1, defaultValue: 0, kind: .choice(WahVoice.allCases.map(\.rawValue)),
            summary: "svf band-pass or the crybaby circuit model"),
        EffectParameter(
            name: "mode", range: 0...2, defaultValue: 0, kind: .choice(WahMode.allCases.map(\.rawValue)),
            summary: "what moves the pedal: the sensor, the envelope (auto-wah) or both"),
        EffectParameter(
            name: "sensitivity", range: 0...20, defaultValue: 2,
            summary: "pedal travel per unit of envelope (envelope and both modes)"),
        EffectParameter(
            name: "mix", range: 0...1, defaultValue: 1,
            summary: "0 dry ... 1 wet"),
        EffectParameter(
            name: "heel", unit: "Hz", range: 100...1500, defaultValue: 450,
            summary: "svf centre frequency at the heel"),
        EffectParameter(
            name: "toe", unit: "Hz", range: 500...5000, defaultValue: 2200,
            summary: "svf centre frequency at the toe")
    ]

    static let tremoloTable: [EffectParameter] = [
        bypass,
        EffectParameter(
            name: "rate", unit: "Hz", range: 0.05...20, defaultValue: 5,
            summary: "modulation frequency (when sync is off)"),
        EffectParameter(
            name: "depth", range: 0...1, defaultValue: 0.5,
            summary: "gain swings between 1 - depth and 1"),
        EffectParameter(
            name: "shape", range: 0...2, defaultValue: 0, kind: .choice(["sine", "triangle", "square"]),
            summary: "the modulation's waveform"),
        EffectParameter(
            name: "sync", range: 0...Double(syncNames.count - 1), defaultValue: 0, kind: .choice(syncNames),
            summary: "one cycle per note value at the tempo (off: rate)")
    ]

    static let phaserTable: [EffectParameter] = [
        bypass,
        EffectParameter(
            name: "rate", unit: "Hz", range: 0...10, defaultValue: 0.5,
            summary: "sweep frequency (0 holds the sweep where it is)"),
        EffectParameter(
            name: "depth", range: 0...1, defaultValue: 0.7,
            summary: "sweep width: the all-pass corner moves over depth x 5 octaves around 630 Hz"),
        EffectParameter(
            name: "stages", range: 2...12, defaultValue: 4, kind: .integer(step: 2),
            summary: "first-order all-pass stages (stages/2 notches)"),
        EffectParameter(
            name: "feedback", range: 0...0.9, defaultValue: 0,
            summary: "output of the all-pass chain fed back into it (sharper notches, peaks between)")
    ]

    static let delayTable: [EffectParameter] = [
        bypass,
        EffectParameter(
            name: "time", unit: "s", range: 0.001...2, defaultValue: 0.35,
            summary: "echo spacing (when sync is off); glides when moved"),
        EffectParameter(
            name: "feedback", range: 0...0.95, defaultValue: 0.35,
            summary: "each repeat's level relative to the one before"),
        EffectParameter(
            name: "mix", range: 0...1, defaultValue: 0.3,
            summary: "0 dry ... 1 echoes only"),
        EffectParameter(
            name: "tone", range: 0...1, defaultValue: 1,
            summary: "damping in the loop: 1 open (repeats unchanged), 0 dark (500 Hz one-pole)"),
        EffectParameter(
            name: "sync", range: 0...Double(syncNames.count - 1), defaultValue: 0, kind: .choice(syncNames),
            summary: "echo spacing as a note value at the tempo (off: time)")
    ]
}
