// EffectChain.swift — the real-time chain: the effects of an EffectChainSpec, in order, on one
// channel, with every parameter addressable by its flat slot.

/// One channel of an effect chain. JUCE-style: `init` prepares everything for a sample rate
/// outside the audio thread (every buffer: delay lines, oversampling histories, the tables the
/// audio thread reads); `process`, `setParameter`, `value`, `setTempo` and `reset` are then
/// real-time safe (no allocation, lock, system call, or reference counting: the chain is a plain
/// struct of raw pointers, the effects are structs kept in typed buffers, and every operation
/// reaches its effect through `apply`, the one switch over the effect kind, with the effect's
/// own type: generic and specialised, no existential).
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
        func free<E: ChainEffect>(_ buffer: UnsafeMutablePointer<E>, _ kind: EffectKind) {
            let count = s.counts[kind] ?? 0
            for i in 0..<count { buffer[i].deallocate() }
            buffer.deinitialize(count: count).deallocate()
        }
        free(s.fuzz, .fuzz)
        free(s.wah, .wah)
        free(s.tremolo, .tremolo)
        free(s.phaser, .phaser)
        free(s.delay, .delay)
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
        apply(SetParameter(parameter: info.parameter, value: v), to: info.kind, info.index)
    }

    /// The parameter's value now, in its units: smoothed values as they are this sample, the
    /// wah's pedal as it is after its smoother, a switch 0/1, a choice its index. 0 for an
    /// unknown slot. Real-time safe.
    @inlinable
    public func value(slot: Int) -> Double {
        let s = storage
        guard slot >= 0, slot < s.pointee.slotCount else { return 0 }
        let info = s.pointee.slots[slot]
        return apply(ReadValue(parameter: info.parameter), to: info.kind, info.index)
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
            apply(SetTempo(bpm: bpm), to: st.kind, st.index)
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
            apply(Reset(), to: st.kind, st.index)
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
                apply(Process(buffer: b, count: n), to: st.kind, st.index)
            }
            base += n
        }
    }

    /// Runs `operation` on the `index`-th effect of `kind`, as its own type. The one place that
    /// turns an effect kind into an effect: a new kind of effect is a case here, a buffer in
    /// `Storage`, and a `ChainEffect` conformance.
    @inlinable @inline(__always)
    func apply<O: EffectOperation>(_ operation: O, to kind: EffectKind, _ index: Int) -> O.Result {
        let s = storage
        switch kind {
        case .fuzz: return operation.run(&s.pointee.fuzz[index])
        case .wah: return operation.run(&s.pointee.wah[index])
        case .tremolo: return operation.run(&s.pointee.tremolo[index])
        case .phaser: return operation.run(&s.pointee.phaser[index])
        case .delay: return operation.run(&s.pointee.delay[index])
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

/// What the chain asks of each of its effects (`FuzzEffect`, `WahEffect`, `TremoloEffect`,
/// `PhaserEffect`, `DelayEffect`). Parameters are indices into the kind's
/// `EffectKind.parameters`, values in the parameter's own units, already made valid by the chain.
public protocol ChainEffect {
    mutating func set(_ parameter: Int, _ value: Double)
    func value(_ parameter: Int) -> Double
    /// The tempo for a `sync` parameter (beats per minute); effects without one ignore it.
    mutating func setTempo(_ beatsPerMinute: Double)
    mutating func reset()
    mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int)
    /// Frees the buffers the effect allocated at `init` (none by default).
    func deallocate()
}

extension ChainEffect {
    public mutating func setTempo(_ beatsPerMinute: Double) {}
    public func deallocate() {}
}

extension FuzzEffect: ChainEffect {}
extension WahEffect: ChainEffect {}
extension TremoloEffect: ChainEffect {}
extension PhaserEffect: ChainEffect {}
extension DelayEffect: ChainEffect {}

/// One thing the chain does to an effect of any kind (`EffectChain.apply`): `run` is generic
/// over the effect's type, so each call is specialised for it (no existential, no allocation).
@usableFromInline
protocol EffectOperation {
    associatedtype Result
    func run<E: ChainEffect>(_ effect: inout E) -> Result
}

extension EffectChain {
    @usableFromInline
    struct Process: EffectOperation {
        @usableFromInline let buffer: UnsafeMutablePointer<Float>
        @usableFromInline let count: Int
        @inlinable init(buffer: UnsafeMutablePointer<Float>, count: Int) { (self.buffer, self.count) = (buffer, count) }
        @inlinable @inline(__always)
        func run<E: ChainEffect>(_ effect: inout E) { effect.process(buffer, count: count) }
    }

    @usableFromInline
    struct SetParameter: EffectOperation {
        @usableFromInline let parameter: Int
        @usableFromInline let value: Double
        @inlinable init(parameter: Int, value: Double) { (self.parameter, self.value) = (parameter, value) }
        @inlinable @inline(__always)
        func run<E: ChainEffect>(_ effect: inout E) { effect.set(parameter, value) }
    }

    @usableFromInline
    struct ReadValue: EffectOperation {
        @usableFromInline let parameter: Int
        @inlinable init(parameter: Int) { self.parameter = parameter }
        @inlinable @inline(__always)
        func run<E: ChainEffect>(_ effect: inout E) -> Double { effect.value(parameter) }
    }

    @usableFromInline
    struct SetTempo: EffectOperation {
        @usableFromInline let bpm: Double
        @inlinable init(bpm: Double) { self.bpm = bpm }
        @inlinable @inline(__always)
        func run<E: ChainEffect>(_ effect: inout E) { effect.setTempo(bpm) }
    }

    @usableFromInline
    struct Reset: EffectOperation {
        @inlinable init() {}
        @inlinable @inline(__always)
        func run<E: ChainEffect>(_ effect: inout E) { effect.reset() }
    }
}
