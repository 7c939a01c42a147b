/// A parameter of the effect chain as a mapping's target: `fx=tremolo.rate to=1..8`, or a
/// gesture flipping it between the two ends of its span: `flick fx=delay.bypass toggle`.
///
/// The mapper treats it like a 14-bit controller (0...16383: range, curve, dead zone, bipolar
/// centre, smoothing, rate limit, hold, glide and rest all apply unchanged); the event it sends
/// carries the parameter's slot in the chain and the value's position in the parameter's
/// whole range (0...65535), so the audio side needs no knowledge of the mapping. `to=LO..HI`
/// (in the parameter's own units) is where 0 and 16383 land; without it the whole range.
///
/// A target is resolved against a chain (`resolve`) before it runs: the slot and the
/// parameter's range come from the chain; until then `slot` is -1.
public struct EffectTarget: Sendable, Equatable, CustomStringConvertible {
    /// `effect.parameter`, lower-cased, as written (`tremolo.rate`, `delay.bypass`).
    public var address: String
    /// `to=LO..HI`: the output span in the parameter's units (nil: its whole range).
    public var low: Double?
    public var high: Double?
    /// `toggle`: each gesture flips between the span's ends (`high` first).
    public var toggle: Bool
    /// The parameter's slot in the chain and its whole range (filled by `resolve`).
    public var slot: Int
    public var minimum: Double
    public var maximum: Double

    public init(
        address: String, low: Double? = nil, high: Double? = nil, toggle: Bool = false,
        slot: Int = -1, minimum: Double = 0, maximum: Double = 1
    ) {
        self.address = address.lowercased()
        self.low = low; self.high = high; self.toggle = toggle
        self.slot = slot; self.minimum = minimum; self.maximum = maximum
    }

    /// The mapper's resolution for a parameter (the same as a 14-bit controller).
    public static let steps = 16383
    /// The event's resolution over the parameter's whole range.
    public static let positions = 65535

    /// The span's ends in the parameter's units.
    @inlinable public var from: Double { low ?? minimum }
    @inlinable public var to: Double { high ?? maximum }

    /// The parameter's value, in its units, for the mapper's output `value` (0...16383).
    @inlinable public func value(forStep value: Int) -> Double {
        let u = Double(min(max(value, 0), Self.steps)) / Double(Self.steps)
        return from + (to - from) * u
    }

    /// The event's position (0...65535 over the parameter's whole range) for a value in units.
    @inlinable public func position(of v: Double) -> UInt16 {
        let span = maximum - minimum
        guard span > 0, v.isFinite else { return 0 }
        let u = min(max((v - minimum) / span, 0), 1)
        return UInt16((u * Double(Self.positions)).rounded())
    }

    /// The value in units a position (0...65535) stands for, over the range `minimum...maximum`.
    @inlinable public static func value(position: UInt16, minimum: Double, maximum: Double) -> Double {
        minimum + (maximum - minimum) * Double(position) / Double(positions)
    }

    /// Whether `text` looks like a parameter address: `effect.parameter`, letters, digits and `-`.
    public static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts.allSatisfy { p in
            !p.isEmpty
                && p.unicodeScalars.allSatisfy {
                    ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-"
                        || $0 == "_"
                }
        }
    }

    public var description: String {
        var s = "effect parameter \(address)"
        if low != nil || high != nil || slot >= 0 { s += " \(Self.show(from))..\(Self.show(to))" }
        if toggle { s += " (toggled)" }
        return s
    }

    static func show(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
}

public struct EffectTargetError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension EffectChainSpec {
    /// Every parameter of the chain with its slot, range and unit, in slot order (the live view,
    /// `sensorwah mappings`, error messages).
    public var parameterList: [(address: String, slot: Int, parameter: EffectParameter)] {
        addresses.enumerated().compactMap { (slot, address) in
            parameter(forSlot: slot).map { (address, slot, $0.parameter) }
        }
    }
}

extension Mapping {
    /// Resolves every `fx=` target of `mappings` against `chain`: the slot and the parameter's
    /// range are filled in. A parameter not in the chain, or a `to=` span outside the
    /// parameter's range, is refused with a message that names the mapping and lists the
    /// chain's parameters.
    public static func resolveEffectTargets(_ mappings: inout [Mapping], chain: EffectChainSpec)
        throws(EffectTargetError)
    {
        for i in mappings.indices {
            guard case .effect(var t) = mappings[i].target else { continue }
            let slot: Int
            do { slot = try chain.slot(for: t.address) } catch {
                throw EffectTargetError(
                    message:
                        "mapping \"\(mappings[i].syntax)\": fx=\(t.address) is not a parameter of the chain (\(chain)); its parameters are: \(chain.addresses.joined(separator: ", "))"
                )
            }
            guard let p = chain.parameter(forSlot: slot)?.parameter else { continue }
            let unit = p.unit.isEmpty ? "" : " \(p.unit)"
            for (name, v) in [("low", t.low), ("high", t.high)] {
                guard let v else { continue }
                if v < p.range.lowerBound - 1e-9 || v > p.range.upperBound + 1e-9 {
                    throw EffectTargetError(
                        message:
                            "mapping \"\(mappings[i].syntax)\": the \(name) end of to= (\(EffectTarget.show(v))) is outside \(t.address)'s range \(EffectTarget.show(p.range.lowerBound))..\(EffectTarget.show(p.range.upperBound))\(unit)"
                    )
                }
            }
            t.slot = slot
            t.minimum = p.range.lowerBound
            t.maximum = p.range.upperBound
            mappings[i].target = .effect(t)
        }
    }

    /// The effect parameters a set of mappings drives.
    public static func effectAddresses(in mappings: [Mapping]) -> [String] {
        mappings.compactMap { if case .effect(let t) = $0.target { return t.address } else { return nil } }
    }
}
