// EffectChainSpec.swift — an effect chain as text and as a value: which effects in which order
// and the parameters set on each. Parsing, named presets, and parameter addresses
// (`tremolo.rate`, `delay2.time`) as flat slot indices.

/// What is wrong with a chain, a preset name or a parameter address, saying what was seen and
/// what would be accepted.
public enum EffectChainError: Error, Equatable, CustomStringConvertible, Sendable {
    case empty
    case unknownEffect(seen: String)
    case unknownParameter(effect: String, seen: String, valid: [String])
    case malformedSetting(effect: String, seen: String)
    case badValue(effect: String, parameter: String, seen: String, expected: String)
    case outOfRange(effect: String, parameter: String, seen: String, expected: String)
    case repeatedParameter(effect: String, parameter: String)
    case tooManyStages(count: Int)
    case unknownPreset(seen: String)
    case unknownAddress(seen: String, reason: String)

    public var description: String {
        switch self {
        case .empty:
            return "the effect chain is empty: write effects separated by '>', e.g. \"fuzz drive=0.8 > wah\""
        case .unknownEffect(let seen):
            return
                "unknown effect '\(seen)': the effects are \(EffectKind.allCases.map(\.rawValue).joined(separator: ", "))"
        case .unknownParameter(let effect, let seen, let valid):
            return "\(effect) has no parameter '\(seen)': its parameters are \(valid.joined(separator: ", "))"
        case .malformedSetting(let effect, let seen):
            return
                "'\(seen)' after \(effect) is not a setting: write NAME=VALUE, e.g. \(effect) \(EffectKind(rawValue: effect)?.parameters[1].name ?? "bypass")=..."
        case .badValue(let effect, let parameter, let seen, let expected):
            return "\(effect) \(parameter)=\(seen): '\(seen)' is not a value of \(parameter): write \(expected)"
        case .outOfRange(let effect, let parameter, let seen, let expected):
            return "\(effect) \(parameter)=\(seen) is out of range: \(parameter) takes \(expected)"
        case .repeatedParameter(let effect, let parameter):
            return "\(effect) sets \(parameter) twice: keep one \(parameter)="
        case .tooManyStages(let count):
            return "the chain has \(count) effects: at most \(EffectChainSpec.maximumStages) are allowed"
        case .unknownPreset(let seen):
            return
                "unknown effect preset '\(seen)': the presets are \(EffectChainSpec.presets.map(\.name).joined(separator: ", "))"
        case .unknownAddress(let seen, let reason):
            return "'\(seen)' is not a parameter of this chain: \(reason)"
        }
    }
}

/// An ordered effect chain: `"fuzz drive=0.8 tone=0.5 > wah > tremolo rate=5 depth=0.7"`.
///
/// Text form: effects separated by `>`, each an effect name followed by `NAME=VALUE` settings
/// (whitespace-separated; values in the parameter's units, `on`/`off` for switches, a name for a
/// choice, `300ms` accepted for a time in seconds). Parameters not written keep their default.
/// `description` writes the same form back (only the parameters that were set), and parsing it
/// gives an equal value.
///
/// Addresses: a parameter is `effect.parameter` (`tremolo.rate`, `delay.bypass`). An effect that
/// occurs more than once is numbered in chain order: `delay1.time`, `delay2.time` (`delay.time`
/// is `delay1.time`). Every parameter of every stage has a flat slot: the stages' tables one
/// after the other, in chain order (`slot(for:)`, `addresses`).
public struct EffectChainSpec: Sendable, Equatable, CustomStringConvertible {

    /// One effect of the chain and the parameters set on it.
    public struct Stage: Sendable, Equatable {
        public var kind: EffectKind
        /// One entry per parameter of `kind.parameters`: the value set, or nil for the default.
        public var settings: [Double?]

        public init(_ kind: EffectKind, _ values: [String: Double] = [:]) {
            self.kind = kind
            let table = kind.parameters
            settings = table.map { p in values[p.name].map { p.clamp($0) } }
        }

        /// The value of parameter `index`: the one set, else the default.
        public func value(_ index: Int) -> Double {
            settings[index] ?? kind.parameters[index].defaultValue
        }

        /// The value of the parameter called `name` (nil if the effect has none).
        public func value(_ name: String) -> Double? {
            kind.parameter(named: name).map { value($0.index) }
        }

        /// Sets (or with nil, unsets) a parameter; the value is clamped to the parameter.
        public mutating func set(_ name: String, _ value: Double?) {
            guard let (i, p) = kind.parameter(named: name) else { return }
            settings[i] = value.map { p.clamp($0) }
        }

        /// `fuzz drive=0.8 tone=0.5`.
        public var description: String {
            let table = kind.parameters
            var s = kind.rawValue
            for (i, v) in settings.enumerated() {
                if let v { s += " \(table[i].name)=\(table[i].format(v))" }
            }
            return s
        }
    }

    /// The most effects a chain may hold.
    public static let maximumStages = 16

    public var stages: [Stage]

    public init(stages: [Stage]) {
        self.stages = stages
    }

    /// Reads the text form. Throws `EffectChainError` for an empty chain, an unknown effect or
    /// parameter, a malformed setting or a value that is not valid or is out of range.
    public init(parsing text: String) throws {
        var stages: [Stage] = []
        let parts = text.split(separator: ">", omittingEmptySubsequences: false)
        for part in parts {
            let words = part.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "," })
            guard let first = words.first else {
                if parts.count == 1 { throw EffectChainError.empty }
                throw EffectChainError.unknownEffect(seen: "")
            }
            let name = first.lowercased()
            guard let kind = EffectKind(rawValue: name) else {
                throw EffectChainError.unknownEffect(seen: String(first))
            }
            var stage = Stage(kind)
            let table = kind.parameters
            for word in words.dropFirst() {
                guard let eq = word.firstIndex(of: "="), eq != word.startIndex, word.index(after: eq) != word.endIndex
                else {
                    throw EffectChainError.malformedSetting(effect: name, seen: String(word))
                }
                let key = String(word[..<eq]).lowercased()
                let valueText = String(word[word.index(after: eq)...])
                guard let (i, p) = kind.parameter(named: key) else {
                    throw EffectChainError.unknownParameter(
                        effect: name, seen: String(word[..<eq]), valid: table.map(\.name))
                }
                if stage.settings[i] != nil { throw EffectChainError.repeatedParameter(effect: name, parameter: key) }
                stage.settings[i] = try p.parse(valueText, effect: name)
            }
            stages.append(stage)
        }
        if stages.isEmpty { throw EffectChainError.empty }
        if stages.count > Self.maximumStages { throw EffectChainError.tooManyStages(count: stages.count) }
        self.stages = stages
    }

    public var description: String {
        stages.map(\.description).joined(separator: " > ")
    }

    // MARK: Presets

    /// Today's engine: the wah alone, with the settings given to the chain (`WahSettings`).
    public static let wahOnly = EffectChainSpec(stages: [Stage(.wah)])

    /// The named chains of `--fx-preset`, with a line on each.
    public static let presets: [(name: String, chain: String, summary: String)] = [
        ("wah", "wah", "the wah alone (what runs without --fx)"),
        (
            "fuzz-wah", "fuzz drive=0.8 tone=0.6 level=0.4 > wah",
            "the classic: a fuzz into the wah, the wrist sweeping the fuzzed tone"
        ),
        (
            "wah-fuzz", "wah > fuzz drive=0.7 tone=0.5 level=0.4",
            "the other order: the wah shapes what the fuzz clips (a vocal, throaty fuzz)"
        ),
        (
            "fuzz-wah-echo",
            "fuzz drive=0.8 tone=0.6 level=0.4 > wah > delay time=0.38 feedback=0.35 mix=0.25 tone=0.6",
            "fuzz-wah with a darkening echo behind it"
        ),
        (
            "surf", "tremolo rate=6 depth=0.6 shape=triangle > delay time=0.12 feedback=0.2 mix=0.25 tone=0.7",
            "a fast tremolo and a short slapback echo"
        ),
        (
            "swirl", "wah > phaser rate=0.4 depth=0.8 feedback=0.5 > delay time=0.45 feedback=0.45 mix=0.3 tone=0.5",
            "a slow resonant phaser and a long dark echo after the wah"
        ),
        (
            "everything",
            "fuzz drive=0.8 tone=0.5 > wah > tremolo rate=5 depth=0.7 > phaser > delay time=0.3 feedback=0.4 mix=0.3",
            "every effect once, in the usual pedalboard order"
        )
    ]

    /// The preset called `name` (case-insensitive).
    public static func preset(named name: String) throws -> EffectChainSpec {
        let n = name.lowercased()
        guard let p = presets.first(where: { $0.name == n }) else { throw EffectChainError.unknownPreset(seen: name) }
        return try EffectChainSpec(parsing: p.chain)
    }

    // MARK: Addresses and slots

    /// How many parameter slots the chain has (all parameters of all stages).
    public var slotCount: Int { stages.reduce(0) { $0 + $1.kind.parameters.count } }

    /// The first slot of each stage.
    public var firstSlots: [Int] {
        var r: [Int] = []
        var n = 0
        for s in stages {
            r.append(n)
            n += s.kind.parameters.count
        }
        return r
    }

    /// The name of stage `i` in addresses: the effect's name, numbered (`delay2`) when the chain
    /// holds that effect more than once.
    public func stageName(_ i: Int) -> String {
        let kind = stages[i].kind
        let same = stages.indices.filter { stages[$0].kind == kind }
        if same.count == 1 { return kind.rawValue }
        return kind.rawValue + String(same.firstIndex(of: i)! + 1)
    }

    /// Every parameter address, in slot order: `fuzz.bypass`, `fuzz.drive`, ..., `delay2.time`.
    public var addresses: [String] {
        var r: [String] = []
        for (i, s) in stages.enumerated() {
            let n = stageName(i)
            for p in s.kind.parameters { r.append(n + "." + p.name) }
        }
        return r
    }

    /// The slot of an address (`tremolo.rate`, `delay2.time`; `delay.time` is the first delay).
    /// Throws `EffectChainError.unknownAddress` saying what the chain offers.
    public func slot(for address: String) throws -> Int {
        let a = address.lowercased()
        guard let dot = a.firstIndex(of: "."), dot != a.startIndex else {
            throw EffectChainError.unknownAddress(
                seen: address, reason: "write EFFECT.PARAMETER, e.g. \(addresses.dropFirst().first ?? "wah.pedal")")
        }
        let stageText = String(a[..<dot])
        let paramText = String(a[a.index(after: dot)...])
        // split `delay2` into `delay` and 2
        var name = Substring(stageText)
        var digits = ""
        while let last = name.last, last.isNumber {
            digits = String(last) + digits
            name = name.dropLast()
        }
        guard let kind = EffectKind(rawValue: String(name)) else {
            throw EffectChainError.unknownAddress(
                seen: address, reason: "'\(stageText)' is not an effect of it; the chain is \(description)")
        }
        let matching = stages.indices.filter { stages[$0].kind == kind }
        if matching.isEmpty {
            throw EffectChainError.unknownAddress(
                seen: address, reason: "the chain has no \(kind.rawValue); it is \(description)")
        }
        let ordinal = digits.isEmpty ? 1 : (Int(digits) ?? 0)
        guard ordinal >= 1, ordinal <= matching.count else {
            throw EffectChainError.unknownAddress(
                seen: address,
                reason: "the chain has \(matching.count) \(kind.rawValue)\(matching.count == 1 ? "" : "s"): write "
                    + (matching.count == 1
                        ? kind.rawValue
                        : (1...matching.count).map { "\(kind.rawValue)\($0)" }.joined(separator: " or ")))
        }
        let stage = matching[ordinal - 1]
        guard let (index, _) = kind.parameter(named: paramText) else {
            throw EffectChainError.unknownAddress(
                seen: address,
                reason: "\(kind.rawValue) has no parameter '\(paramText)': its parameters are "
                    + kind.parameters.map(\.name).joined(separator: ", "))
        }
        return firstSlots[stage] + index
    }

    /// The stage, its effect and the parameter behind a slot (nil when out of range).
    public func parameter(forSlot slot: Int) -> (stage: Int, kind: EffectKind, index: Int, parameter: EffectParameter)?
    {
        guard slot >= 0 else { return nil }
        var n = slot
        for (i, s) in stages.enumerated() {
            let table = s.kind.parameters
            if n < table.count { return (i, s.kind, n, table[n]) }
            n -= table.count
        }
        return nil
    }
}
