import Atomics
import SensorWahCore

/// Frames in, events out: the mapper and the outputs, on one thread. Every input (a file
/// replayed, a live sender on the network thread) drives one of these; the listener's single
/// output is a `QueueOutput` that hands events to the output thread.
public struct Pipeline {
    public var mapper: Mapper
    public let outputs: [any EventOutput]
    /// The run's control plane, whose solo the mapper follows (nil: every mapping sends).
    public let control: LiveControl?

    public init(mappings: [Mapping], outputs: [any EventOutput], control: LiveControl? = nil) {
        self.mapper = Mapper(mappings: mappings)
        self.outputs = outputs
        self.control = control
    }

    /// Maps one frame and sends what changed to every output.
    @inline(__always)
    public mutating func process(_ frame: borrowing SensorFrame, sender: String? = nil) {
        let outs = outputs
        // the solo asked for; one beyond the mappings (after a reload or a scene change) is none
        if let c = control {
            let solo = c.solo.load(ordering: .relaxed)
            mapper.solo = solo < mapper.mappings.count ? solo : -1
        }
        mapper.process(frame, sender: sender) { e in
            for o in outs { o.send(e) }
        }
    }

    public func flushOutputs() { for o in outputs { o.flush() } }

    /// Sends the changes the rate limit still holds back.
    public mutating func drain() {
        let outs = outputs
        mapper.flush { e in for o in outs { o.send(e) } }
    }

    /// A sender went quiet: its controllers (and, if `includeUnrestricted`, the ones any sender
    /// may feed) go to their rest values.
    /// `glideClock` (monotonic seconds): `glide=` mappings glide to rest (`advanceGlides`).
    public mutating func rest(
        at time: Double, sender: String? = nil, includeUnrestricted: Bool = true,
        glideClock: Double? = nil
    ) {
        let outs = outputs
        mapper.rest(at: time, sender: sender, includeUnrestricted: includeUnrestricted, glideClock: glideClock) { e in
            for o in outs { o.send(e) }
        }
    }

    /// Moves gliding controllers on; true while some still glide.
    public mutating func advanceGlides(clock: Double) -> Bool {
        let outs = outputs
        mapper.advanceGlides(clock: clock) { e in for o in outs { o.send(e) } }
        return mapper.isGliding
    }

    /// Switches to other mappings while running (a reloaded configuration, a scene change):
    /// controllers only the old ones drove go to rest first.
    /// `scene`: the index of the scene switched to; the outputs are told (a `scene` effect
    /// control, after the hand-over's rest values) so the audio engine can switch its chain.
    public mutating func replaceMappings(_ next: [Mapping], scene: Int? = nil) {
        let outs = outputs
        mapper.handOver(to: next, at: mapper.latestTime) { e in for o in outs { o.send(e) } }
        mapper = Mapper(mappings: next, continuing: mapper)
        if let i = scene {
            let c = EffectControl(time: mapper.latestTime, .scene(i))
            for o in outs { o.send(c) }
        }
    }

    /// End of the stream: held-back changes go out, then every controller its rest value, then
    /// the outputs are closed. `beforeClosing`: called after the outputs were flushed, before
    /// they are closed (`replay` looks at their failures there: a closed JACK output is
    /// disconnected, which is no failure).
    public mutating func finish(beforeClosing: (() -> Void)? = nil) {
        drain()
        rest(at: mapper.latestTime)
        if let b = beforeClosing {
            flushOutputs()
            b()
        }
        for o in outputs { o.close() }
    }
}
