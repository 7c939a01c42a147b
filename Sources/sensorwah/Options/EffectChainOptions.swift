import ArgumentParser
import SensorWahCore

/// The effect chain the engine runs (`--fx`, `--fx-preset`): shared by the JACK engine
/// (`listen`, `replay`, `learn`) and `render`. Without either, the chain is the wah alone, as
/// before the chain existed.
struct EffectChainOptions: ParsableArguments {
    @Option(
        name: .customLong("fx"),
        help: ArgumentHelp(
            "The effect chain, effects in order separated by '>', each with NAME=VALUE settings, e.g. \"fuzz drive=0.8 > wah > tremolo rate=5 depth=0.7 > delay time=0.3 feedback=0.4 mix=0.3\" (effects: fuzz, wah, tremolo, phaser, delay; see `sensorwah mappings`). Default: the wah alone.",
            valueName: "CHAIN"))
    var fx: String?
    @Option(
        name: .customLong("fx-preset"),
        help: ArgumentHelp(
            "A named chain instead of --fx: \(EffectChainSpec.presets.map(\.name).joined(separator: ", ")).",
            valueName: "NAME"))
    var fxPreset: String?

    /// Whether a chain was asked for (else the wah alone).
    var given: Bool { fx != nil || fxPreset != nil }

    func validate() throws {
        _ = try chain()
    }

    /// The chain asked for, or the wah alone.
    func chain() throws -> EffectChainSpec {
        if fx != nil && fxPreset != nil {
            throw ValidationError("--fx and --fx-preset exclude each other: give one chain")
        }
        if let text = fx {
            do { return try EffectChainSpec(parsing: text) } catch {
                throw ValidationError("--fx \"\(text)\": \(error)")
            }
        }
        if let name = fxPreset {
            do { return try EffectChainSpec.preset(named: name) } catch {
                throw ValidationError("--fx-preset \(name): \(error)")
            }
        }
        return .wahOnly
    }

    /// `mappings` with their `fx=` targets resolved against the chain (slot, range); a
    /// parameter the chain does not have is refused, naming the chain's parameters.
    func resolve(_ mappings: [Mapping], chain spec: EffectChainSpec) throws -> [Mapping] {
        var m = mappings
        do { try Mapping.resolveEffectTargets(&m, chain: spec) } catch { throw ValidationError(error.message) }
        return m
    }
}

/// `--fx-cc CC=EFFECT.PARAM`: a MIDI Control Change on the engine's MIDI input (`control_in`)
/// moves a parameter over its whole range (0 the bottom, 127 the top; a switch is on from 64).
struct EffectControllerBinding: Sendable, Equatable {
    var controller: Int
    var address: String

    init(parsing text: String) throws {
        let parts = text.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let cc = Int(parts[0]), (0...127).contains(cc), EffectTarget.isAddress(parts[1]) else {
            throw ValidationError(
                "--fx-cc '\(text)': write CC=EFFECT.PARAM with CC from 0 to 127, e.g. 20=tremolo.rate (in a configuration file, fx-cc: { 20: tremolo.rate })"
            )
        }
        controller = cc
        address = parts[1].lowercased()
    }

    /// The bindings resolved against `chain`: (controller, slot) pairs. A parameter not in the
    /// chain, or a controller bound twice, is refused.
    static func resolve(_ bindings: [EffectControllerBinding], chain: EffectChainSpec) throws -> [(
        controller: Int, slot: Int
    )] {
        var out: [(Int, Int)] = []
        for b in bindings {
            if out.contains(where: { $0.0 == b.controller }) {
                throw ValidationError("--fx-cc: CC \(b.controller) is bound twice; one parameter per controller")
            }
            do { out.append((b.controller, try chain.slot(for: b.address))) } catch {
                throw ValidationError(
                    "--fx-cc \(b.controller)=\(b.address): not a parameter of the chain (\(chain)); its parameters are: \(chain.addresses.joined(separator: ", "))"
                )
            }
        }
        return out
    }
}
