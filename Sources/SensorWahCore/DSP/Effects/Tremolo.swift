// Tremolo.swift — amplitude modulation at a rate in Hz or one cycle per note value at a tempo.

/// The tremolo: `gain = 1 - depth * (1 - u)`, `u` the waveform in 0...1 (1 at the cycle's start).
/// The square's `u`, and any shape's for 25 ms after a change of shape, goes through a 1 ms
/// one-pole so edges do not click; sine and triangle are otherwise exact.
///
/// Per sample: rate smoother (Hz, 20 ms; the rate is `rate` or, with `sync`, the note value at
/// the tempo), phase accumulator in turns (Double: exact over hours), waveform, the 1 ms
/// one-pole, depth smoother, gain, bypass fade.
public struct TremoloEffect: Sendable {
    /// Parameter indices (`EffectKind.tremolo.parameters`).
    public enum Parameter: Int, Sendable { case bypass, rate, depth, shape, sync }

    @usableFromInline var sampleRate: Double
    @usableFromInline var inverseRate: Double
    /// The rate in use (Hz): its target is `rate` or the synced rate.
    @usableFromInline var hz: Smoother
    @usableFromInline var depth: Smoother
    @usableFromInline var fade: BypassFade
    @usableFromInline var freeRate: Double
    @usableFromInline var shape: Int
    @usableFromInline var sync: Int
    @usableFromInline var bpm: Double = 120
    /// Position in the cycle, turns (0 ..< 1).
    @usableFromInline var phase: Double = 0
    /// The waveform after its 1 ms one-pole.
    @usableFromInline var shaped: Double = 1
    @usableFromInline var edge: Double
    /// Samples left of smoothing after a shape change.
    @usableFromInline var settling = 0
    @usableFromInline var settleLength: Int

    public init(sampleRate: Double, stage: EffectChainSpec.Stage = .init(.tremolo)) {
        let fs = (sampleRate.isFinite && sampleRate > 0) ? sampleRate : 48_000
        self.sampleRate = fs
        inverseRate = 1 / fs
        let smoothing = Smoother.coefficient(time: 0.02, sampleRate: fs)
        freeRate = stage.value(Parameter.rate.rawValue)
        shape = Int(stage.value(Parameter.shape.rawValue))
        sync = Int(stage.value(Parameter.sync.rawValue))
        hz = Smoother(freeRate, coefficient: smoothing)
        depth = Smoother(stage.value(Parameter.depth.rawValue), coefficient: smoothing)
        fade = BypassFade(bypassed: stage.value(Parameter.bypass.rawValue) >= 0.5, sampleRate: fs)
        edge = Smoother.coefficient(time: 0.001, sampleRate: fs)
        settleLength = Int(0.025 * fs)
        hz.target = rateTarget
        hz.jump()
    }

    /// The rate the smoother heads for: `rate`, or one cycle per note value at `bpm`.
    @inlinable var rateTarget: Double {
        let beats = EffectParameter.syncBeats(sync)
        if beats > 0 { return bpm / 60 / beats }
        return freeRate
    }

    /// A parameter (index in `EffectKind.tremolo.parameters`), already clamped to its range.
    public mutating func set(_ parameter: Int, _ value: Double) {
        switch Parameter(rawValue: parameter) {
        case .bypass: fade.set(bypassed: value >= 0.5)
        case .rate: freeRate = value; hz.target = rateTarget
        case .depth: depth.target = value
        case .shape:
            if Int(value) != shape { shape = Int(value); settling = settleLength }
        case .sync: sync = Int(value); hz.target = rateTarget
        case nil: break
        }
    }

    /// The parameter's value now: the rate in use (smoothed, synced or not), the smoothed depth.
    public func value(_ parameter: Int) -> Double {
        switch Parameter(rawValue: parameter) {
        case .bypass: return fade.isBypassed ? 1 : 0
        case .rate: return hz.current
        case .depth: return depth.current
        case .shape: return Double(shape)
        case .sync: return Double(sync)
        case nil: return 0
        }
    }

    /// The tempo for `sync` (beats per minute, 20...400; other values are ignored).
    public mutating func setTempo(_ beatsPerMinute: Double) {
        guard beatsPerMinute >= 20, beatsPerMinute <= 400 else { return }
        bpm = beatsPerMinute
        hz.target = rateTarget
    }

    /// Phase to the cycle's start, smoothers to their targets, fade to its end.
    public mutating func reset() {
        phase = 0
        shaped = 1
        settling = 0
        hz.jump()
        depth.jump()
        fade.position = fade.target
    }

    /// The waveform at `phase` (turns), 0...1, 1 at the start of the cycle.
    @inlinable @inline(__always)
    static func waveform(_ phase: Double, _ shape: Int) -> Double {
        switch shape {
        case 1:  // triangle
            let t = 2 * phase - 1
            return t < 0 ? -t : t
        case 2:  // square
            return phase < 0.5 ? 1 : 0
        default:  // sine
            return 0.5 + 0.5 * EffectMath.cosTurns(phase)
        }
    }

    /// The block loop, one copy per shape (the shape is a constant inside each, so the waveform's
    /// switch disappears from the loop; the C reference is built the same way).
    @inlinable
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        switch shape {
        case 1: render(buffer, count, shape: 1)
        case 2: render(buffer, count, shape: 2)
        default: render(buffer, count, shape: 0)
        }
    }

    @inlinable @inline(__always)
    mutating func render(_ buffer: UnsafeMutablePointer<Float>, _ count: Int, shape: Int) {
        var phase = self.phase, shaped = self.shaped, settling = self.settling
        var hz = self.hz, depth = self.depth, fade = self.fade
        let inverseRate = self.inverseRate, edge = self.edge
        var i = 0
        while i < count {
            let rate = hz.next()
            let u = Self.waveform(phase, shape)
            if shape == 2 || settling > 0 {
                shaped += edge * (u - shaped)
                if settling > 0 { settling &-= 1 }
            } else {
                shaped = u
            }
            let d = depth.next()
            let gain = 1.0 - d * (1.0 - shaped)
            let x = buffer[i]
            buffer[i] = fade.apply(dry: x, wet: Double(x) * gain)
            phase += rate * inverseRate
            if phase >= 1 { phase -= 1 }
            i &+= 1
        }
        self.phase = phase
        self.shaped = shaped
        self.settling = settling
        self.hz = hz
        self.depth = depth
        self.fade = fade
    }
}
