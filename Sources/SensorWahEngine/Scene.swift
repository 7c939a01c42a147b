import SensorWahCore

/// A named set of mappings (verse: the wah on tilt; solo: the wah plus a flick note). Switching
/// scenes hands the controllers over: what only the old scene drove goes to rest, sounding
/// notes end (`Pipeline.replaceMappings`).
public struct Scene: Sendable, Equatable {
    public var name: String
    public var mappings: [Mapping]
    /// The scene's own effect chain (nil: the run's chain, `--fx`); switching to the scene
    /// crossfades the engine to it.
    public var chain: EffectChainSpec?
    public init(name: String, mappings: [Mapping], chain: EffectChainSpec? = nil) {
        self.name = name
        self.mappings = mappings
        self.chain = chain
    }
}
