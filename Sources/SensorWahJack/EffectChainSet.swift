// EffectChainSet.swift — the effect chains the JACK callback runs: one set per chain a run may
// switch to (set 0 the chain of --fx, the others scenes' own chains), each one EffectChain per
// channel. Everything is prepared outside the audio thread (`build`); in the callback a scene's
// change of chain is a crossfade between two prepared sets, handed over through an atomic.
//
// Same rules as RealtimeCycle.swift: raw pointers and atomics only, no class, no array, no
// allocation after `build`.

import Atomics
import SensorWahCore

/// The chains, their per-set lookup tables and the crossfade between them.
struct EffectChainSet {
    /// Most parameter slots published for the live view (16 stages of at most 8 parameters).
    static let maximumSlots = 256
    /// Most wah stages whose pedal and switch follow `--wah-map` / `--wah-switch`, per set.
    static let maximumWahs = 16
    /// Frames mixed per piece during a crossfade (larger periods go in pieces).
    static let scratchFrames = 4096

    var count = 0
    var channels = 0
    /// `count * 2` chains: set `k`, channel `c` at `2k + c` (channel 1 unused when mono).
    var chains: UnsafeMutablePointer<EffectChain>? = nil
    /// Per set: the slots of its wahs' `pedal` and `bypass` (-1 ends the list).
    var pedalSlots: UnsafeMutablePointer<Int16>? = nil
    var bypassSlots: UnsafeMutablePointer<Int16>? = nil
    /// Per set, per controller 0-127: the slot `--fx-cc` binds it to (-1: none) and its range.
    var ccSlots: UnsafeMutablePointer<Int16>? = nil
    var ccLower: UnsafeMutablePointer<Double>? = nil
    var ccUpper: UnsafeMutablePointer<Double>? = nil
    var scratch: UnsafeMutablePointer<Float>? = nil

    /// The set running, and the one fading out (-1: none) with how far the fade has come.
    var current = 0
    var fadeFrom = -1
    var fadeDone = 0
    var fadeLength = 960
    /// The pedal and switch last applied (only a change is applied).
    var appliedPedal: UInt32 = 0
    var appliedBypass = false
    /// `--wah-switch` runs: a set switched to takes the switch as it is (else its wahs keep
    /// what their chain says).
    var followsSwitch = false

    /// The live view's copy of the running set's values (Double bits per slot) and which set.
    let published: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    let publishedSet: UnsafeAtomic<Int>
    let publishedCount: UnsafeAtomic<Int>

    init() {
        published = .allocate(capacity: Self.maximumSlots)
        published.initialize(repeating: UnsafeAtomic<UInt64>.Storage(0), count: Self.maximumSlots)
        publishedSet = .create(0)
        publishedCount = .create(0)
    }

    /// Prepares the chains of `specs` for `sampleRate` (allocates: not on the audio thread),
    /// after releasing what an earlier build made. The wahs start at `pedal` (unless the chain
    /// sets their pedal) and follow later changes of it and of `bypassed` (the wah switch).
    mutating func build(
        specs: [EffectChainSpec], channels: Int, sampleRate: Double, wah: WahSettings,
        controllers: [(controller: Int, address: String)], pedal: Float, bypassed: Bool,
        followsSwitch: Bool, crossfadeSeconds: Double
    ) {
        release()
        let sets = max(specs.count, 1)
        let list = specs.isEmpty ? [EffectChainSpec.wahOnly] : specs
        count = sets
        self.channels = max(min(channels, 2), 1)
        let c = UnsafeMutablePointer<EffectChain>.allocate(capacity: sets * 2)
        let pedals = UnsafeMutablePointer<Int16>.allocate(capacity: sets * Self.maximumWahs)
        let switches = UnsafeMutablePointer<Int16>.allocate(capacity: sets * Self.maximumWahs)
        pedals.initialize(repeating: -1, count: sets * Self.maximumWahs)
        switches.initialize(repeating: -1, count: sets * Self.maximumWahs)
        let cc = UnsafeMutablePointer<Int16>.allocate(capacity: sets * 128)
        cc.initialize(repeating: -1, count: sets * 128)
        let lo = UnsafeMutablePointer<Double>.allocate(capacity: sets * 128)
        let hi = UnsafeMutablePointer<Double>.allocate(capacity: sets * 128)
        lo.initialize(repeating: 0, count: sets * 128)
        hi.initialize(repeating: 1, count: sets * 128)
        for (k, spec) in list.enumerated() {
            for ch in 0..<2 {
                let chain = EffectChain(spec: spec, sampleRate: sampleRate, maximumBlock: 1024, wah: wah)
                (c + 2 * k + ch).initialize(to: chain)
            }
            var w = 0
            let first = spec.firstSlots
            for (i, stage) in spec.stages.enumerated() where stage.kind == .wah && w < Self.maximumWahs {
                guard let pedalIndex = EffectKind.wah.parameter(named: "pedal")?.index,
                    let bypassIndex = EffectKind.wah.parameter(named: "bypass")?.index
                else { continue }
                pedals[k * Self.maximumWahs + w] = Int16(first[i] + pedalIndex)
                switches[k * Self.maximumWahs + w] = Int16(first[i] + bypassIndex)
                if stage.settings[pedalIndex] == nil {
                    for ch in 0..<2 { c[2 * k + ch].setParameter(slot: first[i] + pedalIndex, value: Double(pedal)) }
                }
                w += 1
            }
            for b in controllers {
                guard (0...127).contains(b.controller), let slot = try? spec.slot(for: b.address),
                    let p = spec.parameter(forSlot: slot)?.parameter
                else { continue }
                cc[k * 128 + b.controller] = Int16(slot)
                lo[k * 128 + b.controller] = p.range.lowerBound
                hi[k * 128 + b.controller] = p.range.upperBound
            }
            // the pedal set above starts where it is (no glide from 0), as the wah alone did
            for ch in 0..<2 { c[2 * k + ch].reset() }
        }
        chains = c
        pedalSlots = pedals
        bypassSlots = switches
        ccSlots = cc
        ccLower = lo
        ccUpper = hi
        let sc = UnsafeMutablePointer<Float>.allocate(capacity: Self.scratchFrames)
        sc.initialize(repeating: 0, count: Self.scratchFrames)
        scratch = sc
        current = min(max(current, 0), sets - 1)
        fadeFrom = -1
        fadeDone = 0
        fadeLength = max(1, Int((crossfadeSeconds * sampleRate).rounded()))
        appliedPedal = pedal.bitPattern
        appliedBypass = bypassed
        self.followsSwitch = followsSwitch
        publishedSet.store(current, ordering: .relaxed)
        publishedCount.store(min(c[2 * current].slotCount, Self.maximumSlots), ordering: .relaxed)
    }

    /// Frees the chains (not on the audio thread; the callback must not run them any more).
    mutating func release() {
        guard let c = chains else { return }
        for i in 0..<(count * 2) { c[i].destroy() }
        c.deinitialize(count: count * 2).deallocate()
        pedalSlots?.deallocate(); bypassSlots?.deallocate()
        ccSlots?.deallocate(); ccLower?.deallocate(); ccUpper?.deallocate()
        scratch?.deallocate()
        chains = nil; pedalSlots = nil; bypassSlots = nil; ccSlots = nil; ccLower = nil; ccUpper = nil; scratch = nil
        count = 0
    }

    func destroy() {
        var copy = self
        copy.release()
        published.deallocate()
        publishedSet.destroy()
        publishedCount.destroy()
    }

    // MARK: The audio thread

    /// A scene asked for set `wanted`: the running set starts fading out and `wanted` in (its
    /// state cleared, so it starts as if new). Out of range or already running: nothing.
    @inline(__always)
    mutating func select(_ wanted: Int) {
        guard let c = chains, wanted != current, wanted >= 0, wanted < count else { return }
        fadeFrom = current
        current = wanted
        fadeDone = 0
        c[2 * wanted].reset()
        c[2 * wanted + 1].reset()
        // the wahs of the new set take the pedal and switch as they are now
        applyWahs(bits: appliedPedal, bypassed: appliedBypass, force: true)
    }

    /// The pedal (`--wah-map`) and the wah switch, applied to the running set's wahs when changed.
    @inline(__always)
    mutating func applyPedal(bits: UInt32, bypassed: Bool) {
        applyWahs(bits: bits, bypassed: bypassed, force: false)
    }

    @inline(__always)
    mutating func applyWahs(bits: UInt32, bypassed: Bool, force: Bool) {
        guard let c = chains, let pedals = pedalSlots, let switches = bypassSlots else { return }
        let pedalChanged = force || bits != appliedPedal
        let switchChanged = force || bypassed != appliedBypass
        guard pedalChanged || switchChanged else { return }
        appliedPedal = bits
        appliedBypass = bypassed
        let base = current * Self.maximumWahs
        var w = 0
        while w < Self.maximumWahs {
            let p = Int(pedals[base + w])
            if p < 0 { break }
            let b = Int(switches[base + w])
            for ch in 0..<2 {
                if pedalChanged { c[2 * current + ch].setParameter(slot: p, value: Double(Float(bitPattern: bits))) }
                if switchChanged && (!force || followsSwitch) {
                    c[2 * current + ch].setParameter(slot: b, value: bypassed ? 1 : 0)
                }
            }
            w += 1
        }
    }

    /// A parameter a mapping sent, for set `set` (the set running when it was sent).
    @inline(__always)
    func setParameter(set: Int, slot: Int, value: Double) {
        guard let c = chains, set >= 0, set < count else { return }
        c[2 * set].setParameter(slot: slot, value: value)
        c[2 * set + 1].setParameter(slot: slot, value: value)
    }

    /// A Control Change on `control_in`: true when `--fx-cc` binds it in the running set.
    @inline(__always)
    func controlChange(_ controller: Int, value: Int) -> Bool {
        guard let c = chains, let table = ccSlots, let lo = ccLower, let hi = ccUpper else { return false }
        let k = current * 128 + controller
        let slot = Int(table[k])
        if slot < 0 { return false }
        let v = lo[k] + (hi[k] - lo[k]) * Double(value) / 127
        c[2 * current].setParameter(slot: slot, value: v)
        c[2 * current + 1].setParameter(slot: slot, value: v)
        return true
    }

    /// JACK transport's tempo, for every set (a set switched to later is in time at once).
    @inline(__always)
    func setTempo(_ bpm: Double) {
        guard let c = chains else { return }
        for i in 0..<(count * 2) { c[i].setTempo(bpm: bpm) }
    }

    /// Runs the chains over one period: the running set in place on the output (the input copied
    /// there first); during a scene's change of chain, the old set too, on a scratch copy, and a
    /// linear crossfade from it to the new one over `fadeLength` samples.
    @inline(__always)
    mutating func process(
        _ in1: UnsafeMutablePointer<Float>?, _ out1: UnsafeMutablePointer<Float>?,
        _ in2: UnsafeMutablePointer<Float>?, _ out2: UnsafeMutablePointer<Float>?, count n: Int
    ) {
        guard let c = chains, let sc = scratch else {
            if let i = in1, let o = out1 { o.update(from: i, count: n) }
            if let i = in2, let o = out2 { o.update(from: i, count: n) }
            return
        }
        for ch in 0..<2 {
            guard let i = ch == 0 ? in1 : in2, let o = ch == 0 ? out1 : out2 else { continue }
            o.update(from: i, count: n)
            c[2 * current + ch].process(o, count: n)
            guard fadeFrom >= 0 else { continue }
            var base = 0
            while base < n {
                let m = min(n - base, Self.scratchFrames)
                sc.update(from: i + base, count: m)
                c[2 * fadeFrom + ch].process(sc, count: m)
                let length = Float(fadeLength)
                var k = 0
                while k < m {
                    let g = min(Float(fadeDone + base + k) / length, 1)
                    o[base + k] = sc[k] + (o[base + k] - sc[k]) * g
                    k += 1
                }
                base += m
            }
        }
        if fadeFrom >= 0 {
            fadeDone += n
            if fadeDone >= fadeLength { fadeFrom = -1 }
        }
    }

    /// Copies the running set's values for the live view (relaxed stores of Double bits).
    @inline(__always)
    func publish() {
        guard let c = chains else { return }
        let chain = c[2 * current]
        let slots = min(chain.slotCount, Self.maximumSlots)
        var k = 0
        while k < slots {
            UnsafeAtomic<UInt64>(at: published + k).store(chain.value(slot: k).bitPattern, ordering: .relaxed)
            k += 1
        }
        publishedCount.store(slots, ordering: .relaxed)
        publishedSet.store(current, ordering: .relaxed)
    }

    /// The running set and its values, as last published (any thread).
    func snapshot() -> (set: Int, values: [Double]) {
        let n = publishedCount.load(ordering: .relaxed)
        var v: [Double] = []
        v.reserveCapacity(n)
        for k in 0..<n {
            v.append(Double(bitPattern: UnsafeAtomic<UInt64>(at: published + k).load(ordering: .relaxed)))
        }
        return (publishedSet.load(ordering: .relaxed), v)
    }
}
