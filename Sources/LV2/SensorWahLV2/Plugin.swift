// Plugin.swift — the DSP of sensorwah.lv2: one WahProcessor per instance behind a raw pointer,
// reached from the C glue (Sources/LV2/CLV2Glue) through C-callable functions. run() calls only
// configure (which recomputes coefficients only when a control changed), setPedal and process.

import SensorWahCore

@_cdecl("sw_lv2_new")
public func swLV2New(_ rate: Double) -> UnsafeMutableRawPointer {
    let wah = UnsafeMutablePointer<WahProcessor>.allocate(capacity: 1)
    wah.initialize(to: WahProcessor())
    wah.pointee.prepare(sampleRate: rate)
    return UnsafeMutableRawPointer(wah)
}

@_cdecl("sw_lv2_free")
public func swLV2Free(_ handle: UnsafeMutableRawPointer) {
    let wah = handle.assumingMemoryBound(to: WahProcessor.self)
    wah.deinitialize(count: 1)
    wah.deallocate()
}

@_cdecl("sw_lv2_configure")
public func swLV2Configure(
    _ handle: UnsafeMutableRawPointer, _ voice: Int32, _ mode: Int32,
    _ heelHz: Double, _ toeHz: Double, _ heelQ: Double, _ toeQ: Double, _ mix: Double,
    _ bypass: Int32, _ attackMs: Double, _ releaseMs: Double, _ sensitivity: Double
) {
    let wah = handle.assumingMemoryBound(to: WahProcessor.self)
    // the same construction as `sensorwah`'s WahToneOptions.settings()
    let settings = WahSettings(
        heelFrequency: heelHz, toeFrequency: toeHz, heelQ: heelQ, toeQ: toeQ, mix: mix,
        bypass: bypass != 0, voice: voice == 1 ? .crybaby : .svf,
        mode: mode == 1 ? .envelope : (mode == 2 ? .both : .sensor),
        attackTime: attackMs / 1000, releaseTime: releaseMs / 1000, sensitivity: sensitivity)
    if settings != wah.pointee.settings { wah.pointee.settings = settings }
}

@_cdecl("sw_lv2_set_pedal")
public func swLV2SetPedal(_ handle: UnsafeMutableRawPointer, _ pedal: Float) {
    handle.assumingMemoryBound(to: WahProcessor.self).pointee.setPedal(pedal)
}

@_cdecl("sw_lv2_reset")
public func swLV2Reset(_ handle: UnsafeMutableRawPointer) {
    handle.assumingMemoryBound(to: WahProcessor.self).pointee.reset()
}

@_cdecl("sw_lv2_process")
public func swLV2Process(
    _ handle: UnsafeMutableRawPointer, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
    _ count: UInt32
) {
    handle.assumingMemoryBound(to: WahProcessor.self).pointee.process(input, output, count: Int(count))
}

// The effect plugins (fuzz, tremolo, phaser, delay) and the chain plugin: one EffectChain per
// instance (prepared in instantiate, outside run()); run() calls only set, reset and process.

/// The chain each effect plugin runs, by the glue's index: 0 fuzz, 1 tremolo, 2 phaser, 3 delay,
/// 4 the whole chain (every effect once, in pedalboard order).
let lv2Chains = ["fuzz", "tremolo", "phaser", "delay", "fuzz > wah > tremolo > phaser > delay"]

@_cdecl("sw_fx_new")
public func swFxNew(_ kind: Int32, _ rate: Double) -> UnsafeMutableRawPointer? {
    guard kind >= 0, Int(kind) < lv2Chains.count, let spec = try? EffectChainSpec(parsing: lv2Chains[Int(kind)]) else {
        return nil
    }
    let chain = UnsafeMutablePointer<EffectChain>.allocate(capacity: 1)
    chain.initialize(to: EffectChain(spec: spec, sampleRate: rate, maximumBlock: 4096))
    return UnsafeMutableRawPointer(chain)
}

@_cdecl("sw_fx_free")
public func swFxFree(_ handle: UnsafeMutableRawPointer) {
    let chain = handle.assumingMemoryBound(to: EffectChain.self)
    chain.pointee.destroy()
    chain.deinitialize(count: 1)
    chain.deallocate()
}

@_cdecl("sw_fx_set")
public func swFxSet(_ handle: UnsafeMutableRawPointer, _ slot: Int32, _ value: Float) {
    handle.assumingMemoryBound(to: EffectChain.self).pointee.setParameter(slot: Int(slot), value: Double(value))
}

@_cdecl("sw_fx_reset")
public func swFxReset(_ handle: UnsafeMutableRawPointer) {
    handle.assumingMemoryBound(to: EffectChain.self).pointee.reset()
}

@_cdecl("sw_fx_process")
public func swFxProcess(_ handle: UnsafeMutableRawPointer, _ buffer: UnsafeMutablePointer<Float>, _ count: UInt32) {
    handle.assumingMemoryBound(to: EffectChain.self).pointee.process(buffer, count: Int(count))
}
