// Phaser.swift — a swept chain of first-order all-pass filters mixed half and half with the dry
// signal: a notch wherever the chain's phase is an odd multiple of -180 degrees.

/// The phaser: `stages` (2-12, even; 4 by default, the classic pedal) identical first-order
/// all-passes `A(s) = (wc - s) / (wc + s)`, each discretised with the trapezoidal rule (TPT,
/// pre-warped at its corner, so the corner is exact however fast it moves). The corner sweeps
/// exponentially around 630 Hz: `fc = 630 Hz * 2^(2.5 depth sin(2 pi phase))` (depth 1: 111 Hz to
/// 3.56 kHz). Output `(x + w) / 2`, `w` the chain's output; with `feedback` the chain's input is
/// `x + feedback * w` of the previous sample.
///
/// Theory (feedback 0): each stage turns the phase by `-2 atan(tan(pi f/fs) / tan(pi fc/fs))`, so
/// the notches (output exactly 0) sit where `tan(pi f/fs) = tan(pi fc/fs) tan((2k+1) pi / (2 stages))`,
/// k = 0 ..< stages/2. EffectPhaserTests measures them.
///
/// A change of `stages` crossfades (5 ms) between the old and the new count's output, both
/// computed from the same chain during the fade.
public struct PhaserEffect: @unchecked Sendable {
    public enum Parameter: Int, Sendable { case bypass, rate, depth, stages, feedback }

    public static let maximumStages = 12
    public static let centreFrequency = 630.0
    /// Octaves either side of the centre at depth 1.
    public static let octaves = 2.5

    @usableFromInline var rate: Smoother
    @usableFromInline var depth: Smoother
    @usableFromInline var feedback: Smoother
    @usableFromInline var fade: BypassFade
    /// LFO position in turns.
    @usableFromInline var phase = 0.0
    @usableFromInline var inverseRate: Double
    /// `pi * 630 / fs` and the highest corner angle allowed (0.45 pi).
    @usableFromInline var centreAngle: Double
    @usableFromInline var stageCount: Int
    @usableFromInline var previousCount: Int
    /// Stage-count crossfade: 1 = `stageCount` only.
    @usableFromInline var countFade = 1.0
    @usableFromInline var countStep: Double
    /// The previous sample's all-pass output (feedback).
    @usableFromInline var last = 0.0
    /// The stages' integrator states.
    @usableFromInline let states: UnsafeMutablePointer<Double>

    public init(sampleRate: Double, stage: EffectChainSpec.Stage = .init(.phaser)) {
        let fs = (sampleRate.isFinite && sampleRate > 0) ? sampleRate : 48_000
        let a = Smoother.coefficient(time: 0.02, sampleRate: fs)
        rate = Smoother(stage.value(Parameter.rate.rawValue), coefficient: a)
        depth = Smoother(stage.value(Parameter.depth.rawValue), coefficient: a)
        feedback = Smoother(stage.value(Parameter.feedback.rawValue), coefficient: a)
        fade = BypassFade(bypassed: stage.value(Parameter.bypass.rawValue) >= 0.5, sampleRate: fs)
        inverseRate = 1 / fs
        centreAngle = Double.pi * Self.centreFrequency / fs
        stageCount = Int(stage.value(Parameter.stages.rawValue))
        previousCount = stageCount
        countStep = 1 / (0.005 * fs)
        states = .allocate(capacity: Self.maximumStages)
        states.initialize(repeating: 0, count: Self.maximumStages)
    }

    public func deallocate() { states.deallocate() }

    public mutating func set(_ parameter: Int, _ value: Double) {
        switch Parameter(rawValue: parameter) {
        case .bypass: fade.set(bypassed: value >= 0.5)
        case .rate: rate.target = value
        case .depth: depth.target = value
        case .stages:
            let n = min(max(Int(value) & ~1, 2), Self.maximumStages)
            if n != stageCount {
                previousCount = countFade < 0.5 ? previousCount : stageCount
                stageCount = n
                countFade = 0
            }
        case .feedback: feedback.target = value
        case nil: break
        }
    }

    public func value(_ parameter: Int) -> Double {
        switch Parameter(rawValue: parameter) {
        case .bypass: return fade.isBypassed ? 1 : 0
        case .rate: return rate.current
        case .depth: return depth.current
        case .stages: return Double(stageCount)
        case .feedback: return feedback.current
        case nil: return 0
        }
    }

    public mutating func reset() {
        states.update(repeating: 0, count: Self.maximumStages)
        last = 0
        phase = 0
        rate.jump(); depth.jump(); feedback.jump()
        countFade = 1
        previousCount = stageCount
        fade.position = fade.target
    }

    /// The all-pass corner (Hz) at LFO `phase` (turns) and `depth`.
    public func cornerFrequency(phase: Double, depth: Double) -> Double {
        Self.centreFrequency * WahProcessor.fastExp2(Self.octaves * depth * EffectMath.sinTurns(phase))
    }

    /// Sets the LFO position (turns; tests hold the sweep with rate 0 to measure notches).
    public mutating func setPhase(_ turns: Double) {
        phase = turns - turns.rounded(.down)
    }

    @inlinable
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        var rate = self.rate, depth = self.depth, feedback = self.feedback, fade = self.fade
        var phase = self.phase, last = self.last, countFade = self.countFade
        let s = states, inverseRate = self.inverseRate, centreAngle = self.centreAngle
        let n = stageCount, old = previousCount, countStep = self.countStep
        let longest = countFade < 1 ? max(n, old) : n
        let octaves = Self.octaves
        let maxAngle = 0.45 * Double.pi
        var i = 0
        while i < count {
            let x = buffer[i]
            let input = x.isFinite ? Double(x) : 0
            let w = min(
                centreAngle * WahProcessor.fastExp2(octaves * depth.next() * EffectMath.sinTurns(phase)), maxAngle)
            phase += rate.next() * inverseRate
            if phase >= 1 { phase -= 1 }
            let g = EffectMath.tan(w)
            let gain = g / (1 + g)
            var v = input + feedback.next() * last
            var atNew = 0.0, atOld = 0.0
            var k = 0
            while k < longest {
                // TPT one-pole low-pass; the all-pass is 2 lp - input
                let state = s[k]
                let lp = state + gain * (v - state)
                s[k] = EffectMath.flush(2 * lp - state)
                v = 2 * lp - v
                k &+= 1
                if k == n { atNew = v }
                if k == old { atOld = v }
            }
            var wet = atNew
            if countFade < 1 {
                countFade = min(countFade + countStep, 1)
                wet = atOld + countFade * (atNew - atOld)
            }
            last = wet
            buffer[i] = fade.apply(dry: x, wet: 0.5 * (input + wet))
            i &+= 1
        }
        self.rate = rate; self.depth = depth; self.feedback = feedback; self.fade = fade
        self.phase = phase; self.last = last; self.countFade = countFade
        if countFade >= 1 { previousCount = n }
    }
}
