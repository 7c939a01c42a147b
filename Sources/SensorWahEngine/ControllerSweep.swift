import SensorWahCore

/// A slow heel-to-toe-to-heel sweep of one controller, sent at a fixed message rate: what
/// `learn` sends so a DAW's MIDI learn binds exactly that control, and what the JACK check
/// tool drives the wah with. Only changes are sent; the end sends the target's rest value.
public struct ControllerSweep {
    public var target: Target
    /// Seconds for one heel-toe-heel cycle.
    public var period: Double
    /// Messages per second (at most; equal values are not repeated).
    public var rate: Double
    /// Hold at this value instead of sweeping.
    public var hold: Int?

    public init(target: Target, period: Double = 4, rate: Double = 50, hold: Int? = nil) {
        self.target = target
        self.period = period
        self.rate = rate
        self.hold = hold
    }

    /// The value at `t` seconds: a triangle from 0 up to the target's maximum and back.
    public func value(at t: Double) -> Int {
        let top = target.maxValue
        if let h = hold { return min(max(h, 0), top) }
        let phase = (t / period).truncatingRemainder(dividingBy: 1)
        let tri = phase < 0.5 ? 2 * phase : 2 - 2 * phase
        return Int((tri * Double(top)).rounded())
    }

    /// Sends the sweep to `outputs` in real time for `seconds` (until `Shutdown` if nil), then
    /// `rest` if given. Returns the number of messages sent.
    @discardableResult
    public func run(seconds: Double?, rest: Int? = nil, outputs: [any EventOutput]) -> Int {
        let start = monotonicSeconds()
        var k = 0, last = -1, sent = 0
        var t = 0.0
        while !Shutdown.isRequested {
            t = Double(k) / rate
            if let s = seconds, t >= s { break }
            sleep(until: start + t)
            let v = value(at: t)
            if v != last {
                let e = MappedEvent(target: target, value: v, time: t)
                for o in outputs { o.send(e) }
                last = v
                sent += 1
            }
            if k % 16 == 0 { for o in outputs { o.flush() } }
            k += 1
        }
        if let r = rest, r != last {
            let e = MappedEvent(target: target, value: r, time: t)
            for o in outputs { o.send(e) }
            sent += 1
        }
        for o in outputs { o.flush() }
        return sent
    }
}
