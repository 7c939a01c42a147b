import XCTest
@testable import SensorWahCore

/// Property tests of the mapper's invariants over random mappings and random inputs (seeded,
/// so a failure repeats): the output is always in the target's range, monotone in the input
/// (falling when inverted), exactly the rest value at rest, and never from a NaN.
/// (x-sheep/swift-property-based needs swift-testing: its propertyCheck scopes issues to
/// `Test.current!`, which an XCTest run does not have; these use the tests' SplitMix64.)
final class MapperPropertyTests: XCTestCase {
    func randomMapping(_ rng: inout SeededRandom) -> Mapping {
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        let lo = pick([-2.0, -1, -0.5, 0, 0.25]), width = pick([0.1, 0.5, 1, 2, 4])
        var words = [pick(["accel.x", "gyro.z", "pitch", "tilt.x"]), pick(["cc=11", "cc14=2", "bend"]),
                     "range=\(lo)..\(lo + width)", "smooth=0"]
        if rng.next() % 2 == 0 { words.append("bipolar") }
        if rng.next() % 3 == 0 { words.append("invert") }
        if rng.next() % 3 == 0 { words.append("deadzone=\(pick([0.05, 0.1, 0.3, 0.9]))") }
        if rng.next() % 2 == 0 { words.append("curve=\(pick(["exp:2", "exp:0.5", "log:3", "linear"]))") }
        return try! Mapping(parsing: words.joined(separator: " "))
    }

    func testOutputInRangeMonotoneAndExactAtRest() {
        var rng = SeededRandom(seed: 0x9E0_9E17)
        for _ in 0..<2_000 {
            let m = randomMapping(&rng)
            let maxV = m.target.maxValue
            // sweep well past both ends of the range
            let span = m.inputMax - m.inputMin
            var last = m.invert ? Int.max : Int.min
            for k in 0...200 {
                let x = m.inputMin - span + 3 * span * Double(k) / 200
                let v = Mapper.normalise(x, m)
                XCTAssertTrue((0...maxV).contains(v), "\(m.syntax) at \(x): \(v)")
                if m.invert { XCTAssertLessThanOrEqual(v, last, "\(m.syntax) rises at \(x)") } else { XCTAssertGreaterThanOrEqual(v, last, "\(m.syntax) falls at \(x)") }
                last = v
            }
            if m.bipolar { XCTAssertEqual(Mapper.normalise(m.centre, m), m.rest, "\(m.syntax): centre is not the rest value") }
            XCTAssertEqual(Mapper.normalise(-.infinity, m), Mapper.normalise(m.inputMin - 1e9, m), m.syntax)
            XCTAssertEqual(Mapper.normalise(.infinity, m), Mapper.normalise(m.inputMax + 1e9, m), m.syntax)
        }
    }

    func testTheMapperSendsOnlyInRangeValuesNeverFromNaNAndRestsExactly() {
        var rng = SeededRandom(seed: 0xBAD_F00D)
        var mapped = 0, total = 0
        defer { XCTAssertGreaterThan(mapped, 200, "too few mappings exercised"); XCTAssertGreaterThan(total, 10_000, "too few messages") }
        for _ in 0..<300 {
            let m = randomMapping(&rng)
            guard case .axis(let q) = m.source else { continue }
            var mapper = Mapper(mappings: [m])
            var sent: [MIDIEvent] = []
            var t = 0.0
            for _ in 0..<200 {
                t += 0.01
                var f = SensorFrame()
                f.newGroups = q.group.bit
                f.times[q.group.rawValue] = t
                switch rng.next() % 8 {
                case 0: f[q] = .nan
                case 1: f[q] = rng.next() % 2 == 0 ? .infinity : -.infinity
                default: f[q] = m.inputMin + (m.inputMax - m.inputMin) * (Double(rng.next() % 3001) / 1000 - 1)
                }
                mapper.process(f) { sent.append($0) }
            }
            mapped += 1; total += sent.count
            let maxV = m.target.maxValue
            XCTAssertTrue(sent.allSatisfy { (0...maxV).contains(Int($0.value)) && $0.time.isFinite }, m.syntax)
            // a stream of nothing but NaN sends nothing
            var quiet = Mapper(mappings: [m])
            var none = 0
            for k in 0..<50 {
                var f = SensorFrame()
                f.newGroups = q.group.bit
                f.times[q.group.rawValue] = Double(k) * 0.01
                quiet.process(f) { _ in none += 1 }
            }
            XCTAssertEqual(none, 0, "\(m.syntax) sent from NaN")
            // rest sends exactly the rest value (unless already there)
            var rested: [MIDIEvent] = []
            mapper.rest(at: t + 1) { rested.append($0) }
            XCTAssertTrue(rested.allSatisfy { Int($0.value) == m.rest }, "\(m.syntax): rest sent \(rested.map(\.value)), not \(m.rest)")
            mapper.process({ var f = SensorFrame(); f.newGroups = q.group.bit; f.times[q.group.rawValue] = t + 1.01; f[q] = m.inputMax; return f }()) { _ in }
            var again: [MIDIEvent] = []
            mapper.rest(at: t + 2) { again.append($0) }
            XCTAssertTrue(again.allSatisfy { Int($0.value) == m.rest }, m.syntax)
        }
    }
}
