import XCTest
@testable import SensorWahCore

/// Test signals and measurements shared by the effect tests.
enum EffectSignals {
    /// A sine of `amplitude` at `frequency` Hz, `count` samples at `rate`.
    static func sine(_ frequency: Double, amplitude: Double = 0.5, count: Int, rate: Double = 48_000, phase: Double = 0)
        -> [Float]
    {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / rate + phase)) }
    }

    /// Deterministic white noise in -amplitude...amplitude.
    static func noise(count: Int, amplitude: Float = 0.25, seed: UInt64 = 0x5EED) -> [Float] {
        var s = seed
        return (0..<count).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return (Float(Double(s >> 11) / Double(1 << 53)) * 2 - 1) * amplitude
        }
    }

    /// Runs `chain` over `input` in blocks of `block`, returning the output.
    static func run(_ chain: EffectChain, _ input: [Float], block: Int = 64) -> [Float] {
        var out = input
        out.withUnsafeMutableBufferPointer { b in
            var i = 0
            while i < b.count {
                let n = min(block, b.count - i)
                chain.process(b.baseAddress! + i, count: n)
                i += n
            }
        }
        return out
    }

    /// The largest sample-to-sample step.
    static func largestStep(_ x: [Float]) -> Float {
        zip(x.dropFirst(), x).map { abs($0 - $1) }.max() ?? 0
    }
}

final class EffectChainSpecTests: XCTestCase {
    func testParsesTheIssueChainAndRoundTrips() throws {
        let text =
            "fuzz drive=0.8 tone=0.5 > wah > tremolo rate=5 depth=0.7 > phaser > delay time=0.3 feedback=0.4 mix=0.3"
        let spec = try EffectChainSpec(parsing: text)
        XCTAssertEqual(spec.stages.map(\.kind), [.fuzz, .wah, .tremolo, .phaser, .delay])
        XCTAssertEqual(spec.stages[0].value("drive"), 0.8)
        XCTAssertEqual(spec.stages[0].value("level"), 0.5)  // default
        XCTAssertEqual(spec.stages[4].value("time"), 0.3)
        XCTAssertEqual(spec.description, text)
        XCTAssertEqual(try EffectChainSpec(parsing: spec.description), spec)
        // spacing, case, units, switch and choice words
        let loose = try EffectChainSpec(
            parsing: "  FUZZ   Drive=1>tremolo shape=square sync=1/8 bypass=on >delay time=300ms  ")
        XCTAssertEqual(loose.description, "fuzz drive=1 > tremolo bypass=on shape=square sync=1/8 > delay time=0.3")
        XCTAssertEqual(try EffectChainSpec(parsing: loose.description), loose)
        XCTAssertEqual(try EffectChainSpec(parsing: "phaser stages=8 rate=0.2Hz").stages[0].value("stages"), 8)
    }

    func testErrorsSayWhatWasSeenAndWhatToDo() {
        func message(_ text: String) -> String {
            do { _ = try EffectChainSpec(parsing: text); return "parsed" } catch { return "\(error)" }
        }
        XCTAssertEqual(
            message("fuzz > chorus"), "unknown effect 'chorus': the effects are fuzz, wah, tremolo, phaser, delay")
        XCTAssertEqual(
            message("tremolo speed=3"),
            "tremolo has no parameter 'speed': its parameters are bypass, rate, depth, shape, sync")
        XCTAssertEqual(message("delay time=3"), "delay time=3 is out of range: time takes 0.001-2 s")
        XCTAssertEqual(message("phaser stages=5"), "phaser stages=5 is out of range: stages takes 2-12 even")
        XCTAssertEqual(
            message("tremolo shape=saw"),
            "tremolo shape=saw: 'saw' is not a value of shape: write sine, triangle or square")
        XCTAssertEqual(message("fuzz drive=lots"), "fuzz drive=lots: 'lots' is not a value of drive: write 0-1")
        XCTAssertEqual(
            message("fuzz drive"), "'drive' after fuzz is not a setting: write NAME=VALUE, e.g. fuzz drive=...")
        XCTAssertEqual(
            message(""), "the effect chain is empty: write effects separated by '>', e.g. \"fuzz drive=0.8 > wah\"")
        XCTAssertTrue(message("fuzz > > wah").hasPrefix("unknown effect ''"))
        XCTAssertEqual(message("delay feedback=0.5 feedback=0.2"), "delay sets feedback twice: keep one feedback=")
        XCTAssertThrowsError(try EffectChainSpec.preset(named: "clean")) { e in
            XCTAssertTrue("\(e)".hasPrefix("unknown effect preset 'clean': the presets are wah, fuzz-wah"), "\(e)")
        }
    }

    func testPresetsParse() throws {
        for p in EffectChainSpec.presets {
            let spec = try EffectChainSpec.preset(named: p.name)
            XCTAssertEqual(try EffectChainSpec(parsing: spec.description), spec, p.name)
        }
        XCTAssertEqual(try EffectChainSpec.preset(named: "fuzz-wah").stages.map(\.kind), [.fuzz, .wah])
        XCTAssertEqual(try EffectChainSpec.preset(named: "wah"), .wahOnly)
    }

    func testAddressesAndSlots() throws {
        let spec = try EffectChainSpec(parsing: "delay > tremolo > delay time=1")
        let addresses = spec.addresses
        XCTAssertEqual(addresses.count, spec.slotCount)
        XCTAssertEqual(
            Array(addresses.prefix(7)),
            [
                "delay1.bypass", "delay1.time", "delay1.feedback", "delay1.mix", "delay1.tone", "delay1.sync",
                "tremolo.bypass"
            ])
        for (slot, a) in addresses.enumerated() { XCTAssertEqual(try spec.slot(for: a), slot, a) }
        XCTAssertEqual(try spec.slot(for: "delay.time"), 1)  // the first delay
        XCTAssertEqual(try spec.slot(for: "Delay2.Time"), 6 + 5 + 1)
        XCTAssertEqual(try spec.slot(for: "tremolo.rate"), 7)
        let p = try XCTUnwrap(spec.parameter(forSlot: 11))
        XCTAssertEqual(p.stage, 2); XCTAssertEqual(p.kind, .delay); XCTAssertEqual(p.parameter.name, "bypass")
        XCTAssertNil(spec.parameter(forSlot: spec.slotCount))
        func message(_ a: String) -> String {
            do { _ = try spec.slot(for: a); return "found" } catch { return "\(error)" }
        }
        XCTAssertEqual(
            message("delay3.time"),
            "'delay3.time' is not a parameter of this chain: the chain has 2 delays: write delay1 or delay2")
        XCTAssertEqual(
            message("wah.pedal"),
            "'wah.pedal' is not a parameter of this chain: the chain has no wah; it is delay > tremolo > delay time=1")
        XCTAssertEqual(
            message("tremolo.speed"),
            "'tremolo.speed' is not a parameter of this chain: tremolo has no parameter 'speed': its parameters are bypass, rate, depth, shape, sync"
        )
        XCTAssertTrue(message("rate").hasPrefix("'rate' is not a parameter of this chain: write EFFECT.PARAMETER"))
    }
}

final class EffectChainTests: XCTestCase {
    /// The chain of the wah alone renders what WahProcessor renders, bit for bit, whatever the
    /// settings (voice, mode) and with the pedal moving.
    func testWahOnlyIsBitIdenticalToTheWah() throws {
        let input = EffectSignals.noise(count: 48_000)
        for settings in [
            WahSettings(), WahSettings(voice: .crybaby), WahSettings(mode: .both), WahSettings(heelQ: 5, mix: 0.7)
        ] {
            let chain = EffectChain(spec: .wahOnly, sampleRate: 48_000, maximumBlock: 256, wah: settings)
            defer { chain.destroy() }
            let pedal = try EffectChainSpec.wahOnly.slot(for: "wah.pedal")
            var wah = WahProcessor(settings: settings)
            wah.prepare(sampleRate: 48_000)
            var a = input, b = input
            a.withUnsafeMutableBufferPointer { buf in
                for k in 0..<(48_000 / 256) {
                    chain.setParameter(slot: pedal, value: Double(k % 50) / 49)
                    chain.process(buf.baseAddress! + k * 256, count: 256)
                }
            }
            b.withUnsafeMutableBufferPointer { buf in
                for k in 0..<(48_000 / 256) {
                    wah.setPedal(Float(Double(k % 50) / 49))
                    wah.process(buf.baseAddress! + k * 256, buf.baseAddress! + k * 256, count: 256)
                }
            }
            XCTAssertEqual(a, b, "\(settings.voice) \(settings.mode)")
            XCTAssertEqual(chain.value(slot: pedal), Double(wah.pedal))
        }
    }

    func testParametersClampAndReadBack() throws {
        let spec = try EffectChainSpec(parsing: "fuzz > wah > tremolo > phaser > delay")
        let chain = EffectChain(spec: spec, sampleRate: 48_000, maximumBlock: 64)
        defer { chain.destroy() }
        XCTAssertEqual(chain.slotCount, spec.addresses.count)
        // every slot starts at its default
        for (slot, a) in spec.addresses.enumerated() {
            let p = try XCTUnwrap(spec.parameter(forSlot: slot)).parameter
            XCTAssertEqual(chain.value(slot: slot), p.defaultValue, accuracy: 1e-12, a)
        }
        let rate = try spec.slot(for: "tremolo.rate")
        chain.setParameter(slot: rate, value: 100)  // clamps to 20 Hz
        chain.setParameter(slot: rate, value: .nan)  // ignored
        var buffer = [Float](repeating: 0, count: 48_000)
        buffer.withUnsafeMutableBufferPointer { chain.process($0.baseAddress!, count: $0.count) }
        XCTAssertEqual(chain.value(slot: rate), 20, accuracy: 1e-9)
        let stages = try spec.slot(for: "phaser.stages")
        chain.setParameter(slot: stages, value: 7.2)  // even
        XCTAssertEqual(chain.value(slot: stages), 8)
        let shape = try spec.slot(for: "tremolo.shape")
        chain.setParameter(slot: shape, value: 5)  // last choice
        XCTAssertEqual(chain.value(slot: shape), 2)
        let bypass = try spec.slot(for: "delay.bypass")
        chain.setParameter(slot: bypass, value: 0.7)
        XCTAssertEqual(chain.value(slot: bypass), 1)
        chain.setParameter(slot: -1, value: 1)  // ignored
        chain.setParameter(slot: chain.slotCount, value: 1)
    }

    func testChainBypassedIsTheInputAndResetClears() throws {
        let spec = try EffectChainSpec(parsing: "fuzz > wah > tremolo > phaser > delay")
        let chain = EffectChain(spec: spec, sampleRate: 48_000, maximumBlock: 64)
        defer { chain.destroy() }
        let input = EffectSignals.noise(count: 4_800)
        let first = EffectSignals.run(chain, input)
        XCTAssertNotEqual(first, input)
        for s in spec.stages.indices { chain.setParameter(slot: spec.firstSlots[s], value: 1) }
        _ = EffectSignals.run(chain, input)  // past the 5 ms crossfades
        XCTAssertEqual(EffectSignals.run(chain, input), input)
        for s in spec.stages.indices { chain.setParameter(slot: spec.firstSlots[s], value: 0) }
        chain.reset()
        XCTAssertEqual(EffectSignals.run(chain, input), first)  // reset: the same as a new chain
    }
}
