// Delay.swift — an echo: a circular buffer up to 2 s (allocated by init, never in process),
// a fractional read that glides when the time moves, feedback through a damping one-pole.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The delay. Per sample: the delay in samples `d` glides toward `time * fs` (or the synced note
/// value) by a one-pole of 60 ms whose step is limited to 0.5 samples per sample (the read head
/// moves at most 50 % faster or slower than the write head: a tape-like pitch bend of at most
/// +-7 semitones while `time` moves by 0.5 s per second, never a jump); the echo `e` is read at `n - d` by 4-point cubic Hermite interpolation (exact at whole
/// samples); the loop writes `x + feedback * lp(e)`, `lp` a one-pole with coefficient
/// `1 - (1 - a500) (1 - tone)` (`a500` the 500 Hz one-pole's: tone 1 is no filter at all); the
/// output is `(1 - mix) x + mix e`.
///
/// Theory: with tone 1 and a settled time, echo k of an impulse arrives exactly `k * d` samples
/// later with amplitude `mix * feedback^(k-1)` (EffectDelayTests).
public struct DelayEffect: @unchecked Sendable {
    public enum Parameter: Int, Sendable { case bypass, time, feedback, mix, tone, sync }

    /// The longest delay, seconds.
    public static let maximumTime = 2.0
    /// Most the read head's delay changes per sample while gliding.
    public static let maximumGlide = 0.5

    @usableFromInline let line: UnsafeMutablePointer<Float>
    @usableFromInline let mask: Int
    @usableFromInline var write = 0
    @usableFromInline var sampleRate: Double
    /// The delay in samples in use and its target.
    @usableFromInline var delay: Double
    @usableFromInline var delayTarget: Double
    @usableFromInline var glide: Double
    @usableFromInline var freeTime: Double
    @usableFromInline var sync: Int
    @usableFromInline var bpm = 120.0
    @usableFromInline var feedback: Smoother
    @usableFromInline var mix: Smoother
    @usableFromInline var tone: Smoother
    @usableFromInline var fade: BypassFade
    @usableFromInline var damped = 0.0
    @usableFromInline var toneFloor: Double

    public init(sampleRate: Double, stage: EffectChainSpec.Stage = .init(.delay)) {
        let fs = (sampleRate.isFinite && sampleRate > 0) ? sampleRate : 48_000
        self.sampleRate = fs
        var size = 4
        while Double(size) < Self.maximumTime * fs + 8 { size <<= 1 }
        line = .allocate(capacity: size)
        line.initialize(repeating: 0, count: size)
        mask = size - 1
        let a = Smoother.coefficient(time: 0.02, sampleRate: fs)
        feedback = Smoother(stage.value(Parameter.feedback.rawValue), coefficient: a)
        mix = Smoother(stage.value(Parameter.mix.rawValue), coefficient: a)
        tone = Smoother(stage.value(Parameter.tone.rawValue), coefficient: a)
        fade = BypassFade(bypassed: stage.value(Parameter.bypass.rawValue) >= 0.5, sampleRate: fs)
        glide = Smoother.coefficient(time: 0.06, sampleRate: fs)
        toneFloor = -expm1(-2 * Double.pi * 500 / fs)
        freeTime = stage.value(Parameter.time.rawValue)
        sync = Int(stage.value(Parameter.sync.rawValue))
        delay = 0
        delayTarget = 0
        delayTarget = targetSamples
        delay = delayTarget
    }

    public func deallocate() { line.deallocate() }

    /// The delay in samples the glide heads for: `time`, or the note value at the tempo, within
    /// 2 samples ... 2 s.
    @inlinable var targetSamples: Double {
        let beats = EffectParameter.syncBeats(sync)
        let seconds = beats > 0 ? beats * 60 / bpm : freeTime
        return min(max(seconds * sampleRate, 2), Self.maximumTime * sampleRate)
    }

    public mutating func set(_ parameter: Int, _ value: Double) {
        switch Parameter(rawValue: parameter) {
        case .bypass: fade.set(bypassed: value >= 0.5)
        case .time: freeTime = value; delayTarget = targetSamples
        case .feedback: feedback.target = value
        case .mix: mix.target = value
        case .tone: tone.target = value
        case .sync: sync = Int(value); delayTarget = targetSamples
        case nil: break
        }
    }

    /// Values now; `time` is the delay in use, in seconds.
    public func value(_ parameter: Int) -> Double {
        switch Parameter(rawValue: parameter) {
        case .bypass: return fade.isBypassed ? 1 : 0
        case .time: return delay / sampleRate
        case .feedback: return feedback.current
        case .mix: return mix.current
        case .tone: return tone.current
        case .sync: return Double(sync)
        case nil: return 0
        }
    }

    public mutating func setTempo(_ beatsPerMinute: Double) {
        guard beatsPerMinute >= 20, beatsPerMinute <= 400 else { return }
        bpm = beatsPerMinute
        delayTarget = targetSamples
    }

    public mutating func reset() {
        line.update(repeating: 0, count: mask + 1)
        write = 0
        damped = 0
        delay = delayTarget
        feedback.jump(); mix.jump(); tone.jump()
        fade.position = fade.target
    }

    @inlinable
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        let line = self.line, mask = self.mask, target = delayTarget, glide = self.glide
        let maxStep = Self.maximumGlide, toneFloor = self.toneFloor
        var write = self.write, delay = self.delay, damped = self.damped
        var feedback = self.feedback, mix = self.mix, tone = self.tone, fade = self.fade
        var i = 0
        while i < count {
            let x = buffer[i]
            let input = x.isFinite ? Double(x) : 0
            if delay != target {
                var step = glide * (target - delay)
                if step > maxStep { step = maxStep }
                if step < -maxStep { step = -maxStep }
                delay = abs(target - delay) < 1e-9 ? target : delay + step
            }
            // read at write - delay: whole part back from the write head, fraction toward older
            let whole = Int(delay)
            let t = delay - Double(whole)
            let r = write &- whole
            let p0 = Double(line[(r &+ 1) & mask])  // one newer
            let p1 = Double(line[r & mask])
            let p2 = Double(line[(r &- 1) & mask])  // one older
            let p3 = Double(line[(r &- 2) & mask])
            let c1 = 0.5 * (p2 - p0)
            let c2 = p0 - 2.5 * p1 + 2 * p2 - 0.5 * p3
            let c3 = 0.5 * (p3 - p0) + 1.5 * (p1 - p2)
            let echo = ((c3 * t + c2) * t + c1) * t + p1
            let a = 1.0 - (1.0 - toneFloor) * (1.0 - tone.next())
            damped = EffectMath.flush(damped + a * (echo - damped))
            var w = input + feedback.next() * damped
            if abs(w) < 1e-30 { w = 0 }
            line[write & mask] = Float(w)
            write = (write &+ 1) & mask
            let m = mix.next()
            buffer[i] = fade.apply(dry: x, wet: (1 - m) * input + m * echo)
            i &+= 1
        }
        self.write = write; self.delay = delay; self.damped = damped
        self.feedback = feedback; self.mix = mix; self.tone = tone; self.fade = fade
    }
}
