import PropertyBased
import Testing
@testable import SensorWahCore

// The mapper's invariants as property tests over random mappings. Every choice is drawn from a
// shrinkable generator (indices, bools, doubles), so a failing case shrinks towards the plainest
// mapping that still fails: first source and target, no invert, no dead zone, a linear curve.
// PropertyBased reports the failing input (written in the --map syntax) and a seed:
// `@Test(.fixedSeed("..."))` repeats it.

/// A drawn mapping, shown in the `--map` syntax when a property fails.
struct DrawnMapping: Sendable, CustomStringConvertible {
    let mapping: Mapping
    var description: String { mapping.syntax }
}

enum Draw {
    static let sources = ["accel.x", "gyro.z", "pitch", "tilt.x", "user.y"]
    /// The last is an effect parameter (`fx=`, resolved against a chain as a run does): no
    /// MIDI channel, its events carry the value's position in the parameter's range.
    static let targets = ["cc=11", "cc14=2", "bend", "fx=tremolo.rate to=1..8"]
    static let chain = try! EffectChainSpec(parsing: "wah > tremolo")
    static let curves = ["linear", "exp", "log"]

    /// Source, target and channel; the input range (low end and width); bipolar with its centre
    /// (a fraction of the range); invert; dead zone; curve and its amount; smoothing.
    static let mapping = zip(
        zip(Gen.int(in: 0...(sources.count - 1)), Gen.int(in: 0...(targets.count - 1)), Gen.int(in: 1...16)),
        zip(Gen.double(in: -4...4), Gen.double(in: 0.01...8)),
        zip(Gen.bool, Gen.double(in: 0.05...0.95), Gen.bool),
        zip(Gen.bool, Gen.double(in: 0.01...0.9)),
        zip(Gen.int(in: 0...(curves.count - 1)), Gen.double(in: 0.1...6)),
        Gen.bool
    ).map { (picks, range, polarity, dead, shape, smooth) -> DrawnMapping in
        let (source, target, channel) = picks
        let (lo, width) = range, hi = lo + width
        let (bipolar, centreAt, invert) = polarity
        var words = [sources[source], targets[target]] + (targets[target].hasPrefix("fx=") ? [] : ["ch=\(channel)"])
        words += ["range=\(lo)..\(hi)", bipolar ? "bipolar" : "unipolar", smooth ? "smooth=40" : "smooth=0"]
        if bipolar { words.append("centre=\(lo + centreAt * width)") }  // strictly inside, as the parser asks
        if invert { words.append("invert") }
        if dead.0 { words.append("deadzone=\(dead.1)") }
        if shape.0 == 1 { words.append("curve=exp:\(shape.1)") }
        if shape.0 == 2 { words.append("curve=log:\(shape.1)") }
        let text = words.joined(separator: " ")
        do {
            var m = [try Mapping(parsing: text)]
            try Mapping.resolveEffectTargets(&m, chain: chain)
            return DrawnMapping(mapping: m[0])
        } catch {
            fatalError("the drawn mapping '\(text)' does not parse: \(error)")
        }
    }

    /// A position relative to the range: 0 is the low end, 1 the high end; beyond both.
    static let position = Gen.double(in: -1...2)

    /// One input sample: mostly a position (as above), sometimes NaN or an infinity.
    static let sample = zip(Gen.int(in: 0...9), position).map { (kind, at) -> Double in
        switch kind {
        case 7: return .nan
        case 8: return .infinity
        case 9: return -.infinity
        default: return at
        }
    }
}

extension Mapping {
    func input(at position: Double) -> Double { inputMin + (inputMax - inputMin) * position }

    /// What an event carries for the mapper's value `step`: the step itself, or for an effect
    /// parameter the value's position (0...65535) in the parameter's range.
    func carried(_ step: Int) -> Int {
        if case .effect(let t) = target { return Int(t.position(of: t.value(forStep: step))) }
        return step
    }

    /// The largest value an event for this target carries (`MappedEvent.carried`).
    var carriedMax: Int { target.isEffect ? EffectTarget.positions : target.maxValue }
}

@Suite struct MapperProperties {
    @Test func theOutputIsAlwaysInTheTargetsRange() async {
        // (normalise is never given NaN: the mapper drops it first, as the stream test checks)
        await propertyCheck(count: 2000, input: Draw.mapping, Draw.sample.filter { !$0.isNaN }) { drawn, at in
            let m = drawn.mapping
            let x = at.isFinite ? m.input(at: at) : at
            let v = Mapper.normalise(x, m)
            #expect((0...m.target.maxValue).contains(v), "\(x) gave \(v)")
        }
    }

    @Test func theOutputRisesWithTheInputAndFallsWhenInverted() async {
        await propertyCheck(count: 2000, input: Draw.mapping, Draw.position, Draw.position) { drawn, a, b in
            let m = drawn.mapping
            let (x1, x2) = (m.input(at: min(a, b)), m.input(at: max(a, b)))
            let (v1, v2) = (Mapper.normalise(x1, m), Mapper.normalise(x2, m))
            if m.invert {
                #expect(v1 >= v2, "inverted, yet \(x1) gave \(v1) and the higher \(x2) gave \(v2)")
            } else {
                #expect(v1 <= v2, "\(x1) gave \(v1) but the higher \(x2) gave \(v2)")
            }
            // an infinity reads as the end of the range it lies beyond
            #expect(Mapper.normalise(.infinity, m) == Mapper.normalise(m.inputMax, m))
            #expect(Mapper.normalise(-.infinity, m) == Mapper.normalise(m.inputMin, m))
        }
    }

    @Test func theCentreAndTheRestAreExact() async {
        await propertyCheck(count: 1000, input: Draw.mapping, Draw.position) { drawn, at in
            let m = drawn.mapping
            if m.bipolar {
                #expect(Mapper.normalise(m.centre, m) == (m.target.maxValue + 1) / 2, "the centre \(m.centre)")
            }
            // wherever the sensor was, resting sends exactly the rest value (or nothing, when
            // the controller is there already)
            guard case .axis(let q) = m.source else { return }
            var mapper = Mapper(mappings: [m])
            mapper.process(frame(q, m.input(at: at), at: 0.01)) { _ in }
            var rested: [Int] = []
            mapper.rest(at: 1) { rested.append($0.carried) }
            #expect(rested.allSatisfy { $0 == m.carried(m.rest) }, "rest sent \(rested), not \(m.rest)")
        }
    }

    @Test func aStreamSendsOnlyInRangeValuesAndNothingFromNaN() async {
        var total = 0
        defer { #expect(total > 2_000, "only \(total) messages over every stream: the property checked too little") }
        await propertyCheck(count: 500, input: Draw.mapping, Draw.sample.array(of: 1...60)) { drawn, samples in
            let m = drawn.mapping
            guard case .axis(let q) = m.source else { return }
            var mapper = Mapper(mappings: [m])
            var sent: [MappedEvent] = []
            for (k, at) in samples.enumerated() {
                let x = at.isFinite ? m.input(at: at) : at
                var fromThis = 0
                mapper.process(frame(q, x, at: Double(k + 1) * 0.01)) {
                    sent.append($0); fromThis += 1
                }
                if x.isNaN { #expect(fromThis == 0, "NaN at sample \(k) sent \(fromThis) message(s)") }
            }
            #expect(
                sent.allSatisfy { (0...m.carriedMax).contains($0.carried) && $0.time.isFinite },
                "sent \(sent.map(\.carried))")
            total += sent.count
            // and after any stream, resting sends exactly the rest value
            var rested: [Int] = []
            mapper.rest(at: Double(samples.count + 100) * 0.01) { rested.append($0.carried) }
            #expect(
                rested.allSatisfy { $0 == m.carried(m.rest) }, "rest after the stream sent \(rested), not \(m.rest)")
        }
    }

    @Test func aMappingsSyntaxReadsBackAsTheSameMapping() async {
        await propertyCheck(count: 1000, input: Draw.mapping) { drawn in
            let m = drawn.mapping
            // an effect target's slot and range come from the chain, not the text: resolve again
            var back = [try? Mapping(parsing: m.syntax)].compactMap { $0 }
            try? Mapping.resolveEffectTargets(&back, chain: Draw.chain)
            #expect(back.first == m)
        }
    }
}

private func frame(_ q: Quantity, _ x: Double, at t: Double) -> SensorFrame {
    var f = SensorFrame()
    f.newGroups = q.group.bit
    f.times[q.group.rawValue] = t
    f[q] = x
    return f
}

extension MappedEvent {
    /// What the event carries: a MIDI value, an effect parameter's position, the wah switch's 1
    /// or 0 (a scene's index).
    var carried: Int {
        switch self {
        case .midi(let e): return Int(e.value)
        case .effect(let c):
            switch c.action {
            case .wahSwitch(let engaged): return engaged ? 1 : 0
            case .parameter(_, let position): return Int(position)
            case .scene(let index): return index
            }
        }
    }
}
