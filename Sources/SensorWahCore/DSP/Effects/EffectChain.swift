// EffectChain.swift — the real-time chain: the effects of an EffectChainSpec, in order, on one
// channel, with every parameter addressable by its flat slot.

/// One channel of an effect chain. JUCE-style: `init` prepares everything for a sample rate
/// outside the audio thread (every buffer: delay lines, oversampling histories, the tables the
/// audio thread reads); `process`, `setParameter`, `value`, `setTempo` and `reset` are then
/// real-time safe (no allocation, lock, system call, or reference counting: the chain is a plain
/// struct of raw pointers, the effects are structs kept in typed buffers, the stage loop is a
/// switch over the effect kind).
///
/// Copies share the same storage (like `MIDIRing`): keep one and call `destroy()` once, when no
/// copy is used any more.
///
/// Parameters: `setParameter(slot:value:)` in the parameter's own units (clamped to its range,
/// rounded for a switch, a choice or `stages`; NaN ignored). Continuous ones glide at audio rate
/// (20 ms one-pole), `bypass` crossfades over 5 ms, discrete ones switch at once (`stages`
/// crossfades too). `value(slot:)` reads each back as it is now (smoothed), for a live view.
///
/// Stereo or more channels: one chain per channel built from the same spec, given the same
/// `setParameter` and `setTempo` calls: their smoothers and LFOs stay in step (every LFO starts
/// at phase 0 at `init` and `reset`).
public struct EffectChain: @unchecked Sendable {
    /// Where a slot leads.
    @usableFromInline
    struct Slot {
        @usableFromInline var kind: EffectKind
        @usableFromInline var index: Int
        @usableFromInline var parameter: Int
        @usableFromInline var lower: Double
        @usableFromInline var upper: Double
        /// How a value is made valid after clamping: 0 as it is (continuous), 1 to 0 or 1 (a
        /// switch), 2 to a whole number of `step`s from `lower` (a choice, `stages`).
        @usableFromInline var rounding: Int
        @usableFromInline var step: Double
    }

    /// One stage in order: its kind and its index in that kind's buffer.
    @usableFromInline
    struct Stage {
        @usableFromInline var kind: EffectKind
        @usableFromInline var index: Int
    }

    @usableFromInline
    struct Storage {
        var spec: EffectChainSpec
        @usableFromInline var sampleRate: Double
        @usableFromInline var maximumBlock: Int
        @usableFromInline var stageCount: Int
        @usableFromInline var stages: UnsafeMutablePointer<Stage>
        @usableFromInline var slotCount: Int
        @usableFromInline var slots: UnsafeMutablePointer<Slot>
        @usableFromInline var fuzz: UnsafeMutablePointer<FuzzEffect>
        @usableFromInline var wah: UnsafeMutablePointer<WahEffect>
        @usableFromInline var tremolo: UnsafeMutablePointer<TremoloEffect>
        @usableFromInline var phaser: UnsafeMutablePointer<PhaserEffect>
        @usableFromInline var delay: UnsafeMutablePointer<DelayEffect>
        var counts: [EffectKind: Int]
        @usableFromInline var bpm: Double
    }

    @usableFromInline let storage: UnsafeMutablePointer<Storage>

    /// Builds the chain for `sampleRate`; `maximumBlock` is the largest `count` the host will pass
    /// (larger blocks are processed in pieces of it). `wah` gives the wah stages everything the
    /// chain's wah parameters do not (their Qs, level law, attack and release...; the engine's
    /// `WahSettings`). Allocates; call it outside the audio thread.
    public init(spec: EffectChainSpec, sampleRate: Double, maximumBlock: Int = 4096, wah: WahSettings = .init()) {
        let fs = (sampleRate.isFinite && sampleRate > 0) ? sampleRate : 48_000
        var counts: [EffectKind: Int] = [:]
        for s in spec.stages { counts[s.kind, default: 0] += 1 }
        func buffer<T>(_ kind: EffectKind, _ make: (EffectChainSpec.Stage) -> T) -> UnsafeMutablePointer<T> {
            let matching = spec.stages.filter { $0.kind == kind }
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(matching.count, 1))
            for (i, s) in matching.enumerated() { (p + i).initialize(to: make(s)) }
            return p
        }
        let stages = UnsafeMutablePointer<Stage>.allocate(capacity: max(spec.stages.count, 1))
        var seen: [EffectKind: Int] = [:]
        for (i, s) in spec.stages.enumerated() {
            stages[i] = Stage(kind: s.kind, index: seen[s.kind, default: 0])
            seen[s.kind, default: 0] += 1
        }
        let slotCount = spec.slotCount
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: max(slotCount, 1))
        var n = 0
        for i in spec.stages.indices {
            for (j, p) in spec.stages[i].kind.parameters.enumerated() {
                let rounding: Int, step: Double
                switch p.kind {
                case .continuous: (rounding, step) = (0, 0)
                case .toggle: (rounding, step) = (1, 1)
                case .choice: (rounding, step) = (2, 1)
                case .integer(let s): (rounding, step) = (2, Double(max(s, 1)))
                }
                slots[n] = Slot(
                    kind: stages[i].kind, index: stages[i].index, parameter: j,
                    lower: p.range.lowerBound, upper: p.range.upperBound, rounding: rounding, step: step)
                n += 1
            }
        }
        storage = .allocate(capacity: 1)
        storage.initialize(
            to: Storage(
                spec: spec, sampleRate: fs, maximumBlock: max(maximumBlock, 1),
                stageCount: spec.stages.count, stages: stages, slotCount: slotCount, slots: slots,
                fuzz: buffer(.fuzz) { FuzzEffect(sampleRate: fs, stage: $0) },
                wah: buffer(.wah) { WahEffect(sampleRate: fs, stage: $0, base: wah) },
                tremolo: buffer(.tremolo) { TremoloEffect(sampleRate: fs, stage: $0) },
                phaser: buffer(.phaser) { PhaserEffect(sampleRate: fs, stage: $0) },
                delay: buffer(.delay) { DelayEffect(sampleRate: fs, stage: $0) },
                counts: counts, bpm: 120))
    }

    /// Frees everything. Once, outside the audio thread, when no copy is used any more.
    public func destroy() {
        let s = storage.pointee
        for i in 0..<(s.counts[.fuzz] ?? 0) { s.fuzz[i].deallocate() }
        for i in 0..<(s.counts[.phaser] ?? 0) { s.phaser[i].deallocate() }
        for i in 0..<(s.counts[.delay] ?? 0) { s.delay[i].deallocate() }
        s.fuzz.deinitialize(count: s.counts[.fuzz] ?? 0).deallocate()
        s.wah.deinitialize(count: s.counts[.wah] ?? 0).deallocate()
        s.tremolo.deinitialize(count: s.counts[.tremolo] ?? 0).deallocate()
        s.phaser.deinitialize(count: s.counts[.phaser] ?? 0).deallocate()
        s.delay.deinitialize(count: s.counts[.delay] ?? 0).deallocate()
        s.stages.deallocate()
        s.slots.deallocate()
        storage.deinitialize(count: 1).deallocate()
    }

    /// The chain it runs. (Not for the audio thread: it copies arrays.)
    public var spec: EffectChainSpec { storage.pointee.spec }
    public var sampleRate: Double { storage.pointee.sampleRate }
    /// How many parameter slots (`spec.addresses.count`).
    public var slotCount: Int { storage.pointee.slotCount }

    /// Sets a parameter in its own units. Out-of-range values clamp, NaN and unknown slots are
    /// ignored. Real-time safe; takes effect from the next processed sample.
    @inlinable
    public func setParameter(slot: Int, value: Double) {
        let s = storage
        guard slot >= 0, slot < s.pointee.slotCount, !value.isNaN else { return }
        let info = s.pointee.slots[slot]
        var v = min(max(value, info.lower), info.upper)
        switch info.rounding {
        case 0: break
        case 1: v = v >= 0.5 ? 1 : 0
        default: v = min(info.lower + ((v - info.lower) / info.step).rounded() * info.step, info.upper)
        }
        let i = info.index, p = info.parameter
        switch info.kind {
        case .fuzz: s.pointee.fuzz[i].set(p, v)
        case .wah: s.pointee.wah[i].set(p, v)
        case .tremolo: s.pointee.tremolo[i].set(p, v)
        case .phaser: s.pointee.phaser[i].set(p, v)
        case .delay: s.pointee.delay[i].set(p, v)
        }
    }

    /// The parameter's value now, in its units: smoothed values as they are this sample, the
    /// wah's pedal as it is after its smoother, a switch 0/1, a choice its index. 0 for an
    /// unknown slot. Real-time safe.
    @inlinable
    public func value(slot: Int) -> Double {
        let s = storage
        guard slot >= 0, slot < s.pointee.slotCount else { return 0 }
        let info = s.pointee.slots[slot]
        let i = info.index, p = info.parameter
        switch info.kind {
        case .fuzz: return s.pointee.fuzz[i].value(p)
        case .wah: return s.pointee.wah[i].value(p)
        case .tremolo: return s.pointee.tremolo[i].value(p)
        case .phaser: return s.pointee.phaser[i].value(p)
        case .delay: return s.pointee.delay[i].value(p)
        }
    }

    /// The tempo (beats per minute, 20...400) for the tremolo's and the delay's `sync` (e.g. JACK
    /// transport's BPM each cycle). Other values are ignored. Real-time safe.
    @inlinable
    public func setTempo(bpm: Double) {
        let s = storage
        guard bpm >= 20, bpm <= 400, bpm != s.pointee.bpm else { return }
        s.pointee.bpm = bpm
        for k in 0..<s.pointee.stageCount {
            let st = s.pointee.stages[k]
            switch st.kind {
            case .tremolo: s.pointee.tremolo[st.index].setTempo(bpm)
            case .delay: s.pointee.delay[st.index].setTempo(bpm)
            default: break
            }
        }
    }

    /// The tempo in use (120 until set).
    public var tempo: Double { storage.pointee.bpm }

    /// Clears every effect's state (filters, delay lines, LFO phases); smoothers and bypass
    /// fades jump to their targets. Real-time safe (it writes the delay lines: up to 2 s of
    /// samples each).
    public func reset() {
        let s = storage
        for k in 0..<s.pointee.stageCount {
            let st = s.pointee.stages[k]
            switch st.kind {
            case .fuzz: s.pointee.fuzz[st.index].reset()
            case .wah: s.pointee.wah[st.index].reset()
            case .tremolo: s.pointee.tremolo[st.index].reset()
            case .phaser: s.pointee.phaser[st.index].reset()
            case .delay: s.pointee.delay[st.index].reset()
            }
        }
    }

    /// Runs the chain over `count` samples in place, stage after stage.
    @inlinable
    public func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        let s = storage
        let block = s.pointee.maximumBlock
        var base = 0
        while base < count {
            let n = min(count - base, block)
            let b = buffer + base
            for k in 0..<s.pointee.stageCount {
                let st = s.pointee.stages[k]
                switch st.kind {
                case .fuzz: s.pointee.fuzz[st.index].process(b, count: n)
                case .wah: s.pointee.wah[st.index].process(b, count: n)
                case .tremolo: s.pointee.tremolo[st.index].process(b, count: n)
                case .phaser: s.pointee.phaser[st.index].process(b, count: n)
                case .delay: s.pointee.delay[st.index].process(b, count: n)
                }
            }
            base += n
        }
    }

    /// Direct access to a stage's processor (tests, the LV2 plugin's per-effect instances):
    /// the `index`-th stage of that kind.
    public func withFuzz<R>(_ index: Int = 0, _ body: (inout FuzzEffect) -> R) -> R {
        body(&storage.pointee.fuzz[index])
    }
    public func withWah<R>(_ index: Int = 0, _ body: (inout WahEffect) -> R) -> R { body(&storage.pointee.wah[index]) }
    public func withTremolo<R>(_ index: Int = 0, _ body: (inout TremoloEffect) -> R) -> R {
        body(&storage.pointee.tremolo[index])
    }
    public func withPhaser<R>(_ index: Int = 0, _ body: (inout PhaserEffect) -> R) -> R {
        body(&storage.pointee.phaser[index])
    }
    public func withDelay<R>(_ index: Int = 0, _ body: (inout DelayEffect) -> R) -> R {
        body(&storage.pointee.delay[index])
    }
}
