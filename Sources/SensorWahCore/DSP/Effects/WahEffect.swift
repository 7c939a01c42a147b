// WahEffect.swift — the chain's wah stage: `WahProcessor` itself behind the chain's parameter
// interface.

/// The wah in a chain. The processor is `WahProcessor` itself: with no setting moving, `process`
/// is exactly `WahProcessor.process` in place, so a chain of the wah alone renders bit for bit
/// what the wah renders. `pedal` goes to `setPedal` (the wah's own smoother), `bypass` to
/// `setBypass` (its own 5 ms crossfade); `mode` switches at once (the pedal's smoother glides);
/// a `voice` change starts the new voice from a clear filter and crossfades to it from the old
/// one over 10 ms; `sensitivity`, `mix`, `heel` and `toe` glide (20 ms smoothers, applied to the
/// settings every 16 samples while they move).
public struct WahEffect: Sendable {
    public enum Parameter: Int, Sendable { case bypass, pedal, voice, mode, sensitivity, mix, heel, toe }

    public var wah: WahProcessor
    /// The settings the processor runs (bypass kept in step with `setBypass`).
    @usableFromInline var settings: WahSettings
    @usableFromInline var sensitivity: Smoother
    @usableFromInline var mix: Smoother
    @usableFromInline var heel: Smoother
    @usableFromInline var toe: Smoother
    /// The voice being faded out after a voice change, and the fade's position (0 old ... 1 new).
    @usableFromInline var outgoing: WahProcessor? = nil
    @usableFromInline var voiceFade = 1.0
    @usableFromInline var voiceStep = 1.0

    /// `base` gives everything the chain's parameters do not (Q, level law, gain, attack,
    /// release...); the stage's settings override it where they were written.
    public init(sampleRate: Double, stage: EffectChainSpec.Stage = .init(.wah), base: WahSettings = .init()) {
        var s = base
        func written(_ p: Parameter) -> Double? { stage.settings[p.rawValue] }
        if let v = written(.bypass) { s.bypass = v >= 0.5 }
        if let v = written(.voice) { s.voice = Self.voice(v) }
        if let v = written(.mode) { s.mode = Self.mode(v) }
        if let v = written(.sensitivity) { s.sensitivity = v }
        if let v = written(.mix) { s.mix = v }
        if let v = written(.heel) { s.heelFrequency = v }
        if let v = written(.toe) { s.toeFrequency = v }
        settings = s
        wah = WahProcessor(settings: s)
        wah.prepare(sampleRate: sampleRate)
        let fs = (sampleRate.isFinite && sampleRate > 0) ? sampleRate : 48_000
        let a = Smoother.coefficient(time: 0.02, sampleRate: fs)
        sensitivity = Smoother(s.sensitivity, coefficient: a)
        mix = Smoother(s.mix, coefficient: a)
        heel = Smoother(s.heelFrequency, coefficient: a)
        toe = Smoother(s.toeFrequency, coefficient: a)
        voiceStep = 1 / (0.01 * fs)
        if let v = written(.pedal) {
            wah.setPedal(Float(v))
            wah.reset()
        }
    }

    public mutating func set(_ parameter: Int, _ value: Double) {
        switch Parameter(rawValue: parameter) {
        case .bypass:
            settings.bypass = value >= 0.5
            wah.setBypass(settings.bypass)
        case .pedal:
            wah.setPedal(Float(value))
            outgoing?.setPedal(Float(value))
        case .voice:
            let v = Self.voice(value)
            if v != settings.voice {
                outgoing = wah
                voiceFade = 0
                settings.voice = v
                wah.settings = settings
            }
        case .mode:
            let m = Self.mode(value)
            if m != settings.mode { settings.mode = m; wah.settings = settings }
        case .sensitivity: sensitivity.target = value
        case .mix: mix.target = value
        case .heel: heel.target = value
        case .toe: toe.target = value
        case nil: break
        }
    }

    public func value(_ parameter: Int) -> Double {
        switch Parameter(rawValue: parameter) {
        case .bypass: return wah.isBypassed ? 1 : 0
        case .pedal: return Double(wah.pedal)
        case .voice: return settings.voice == .crybaby ? 1 : 0
        case .mode: return settings.mode == .sensor ? 0 : (settings.mode == .envelope ? 1 : 2)
        case .sensitivity: return sensitivity.current
        case .mix: return mix.current
        case .heel: return heel.current
        case .toe: return toe.current
        case nil: return 0
        }
    }

    /// The choice's index as a voice / mode, in `WahVoice.allCases` / `WahMode.allCases` order
    /// (a switch: `allCases` builds an array, which the audio thread must not).
    @usableFromInline static func voice(_ v: Double) -> WahVoice { v >= 0.5 ? .crybaby : .svf }
    @usableFromInline static func mode(_ v: Double) -> WahMode { v >= 1.5 ? .both : (v >= 0.5 ? .envelope : .sensor) }

    public mutating func reset() {
        sensitivity.jump()
        mix.jump()
        heel.jump()
        toe.jump()
        applySettings()
        wah.reset()
        outgoing = nil
        voiceFade = 1
    }

    @usableFromInline var settled: Bool {
        sensitivity.isSettled && mix.isSettled && heel.isSettled && toe.isSettled
    }

    @usableFromInline mutating func applySettings() {
        settings.sensitivity = sensitivity.current
        settings.mix = mix.current
        settings.heelFrequency = heel.current
        settings.toeFrequency = toe.current
        wah.settings = settings
    }

    @inlinable
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        if outgoing != nil {
            crossfadeVoices(buffer, count: count)
            return
        }
        if settled {
            wah.process(buffer, buffer, count: count)
            return
        }
        processGliding(buffer, count: count)
    }

    /// The settings gliding: 16 samples at a time with the settings updated in between.
    @usableFromInline
    mutating func processGliding(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        var base = 0
        while base < count {
            let n = min(16, count - base)
            for _ in 0..<n {
                _ = sensitivity.next(); _ = mix.next(); _ = heel.next(); _ = toe.next()
            }
            applySettings()
            wah.process(buffer + base, buffer + base, count: n)
            base += n
        }
    }

    /// After a voice change: the old voice and the new one on the same input, 64 samples at a
    /// time (the old one's output in 256 bytes of stack), mixed by the 10 ms fade.
    @usableFromInline
    mutating func crossfadeVoices(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 64) { scratch in
            let old = scratch.baseAddress!
            var base = 0
            while base < count, var fading = outgoing {
                let n = min(64, count - base)
                let b = buffer + base
                fading.process(b, old, count: n)
                outgoing = fading
                if settled { wah.process(b, b, count: n) } else { processGliding(b, count: n) }
                var f = voiceFade
                for i in 0..<n {
                    f = min(f + voiceStep, 1)
                    b[i] = old[i] + Float(f) * (b[i] - old[i])
                }
                voiceFade = f
                if f >= 1 { outgoing = nil }
                base += n
            }
            if base < count {
                let b = buffer + base
                if settled { wah.process(b, b, count: count - base) } else { processGliding(b, count: count - base) }
            }
        }
    }
}
