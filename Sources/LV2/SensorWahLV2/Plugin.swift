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
public func swLV2Configure(_ handle: UnsafeMutableRawPointer, _ voice: Int32, _ mode: Int32,
                           _ heelHz: Double, _ toeHz: Double, _ heelQ: Double, _ toeQ: Double, _ mix: Double,
                           _ bypass: Int32, _ attackMs: Double, _ releaseMs: Double, _ sensitivity: Double) {
    let wah = handle.assumingMemoryBound(to: WahProcessor.self)
    // the same construction as `sensorwah`'s WahToneOptions.settings()
    let settings = WahSettings(heelFrequency: heelHz, toeFrequency: toeHz, heelQ: heelQ, toeQ: toeQ, mix: mix,
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
public func swLV2Process(_ handle: UnsafeMutableRawPointer, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: UInt32) {
    handle.assumingMemoryBound(to: WahProcessor.self).pointee.process(input, output, count: Int(count))
}
