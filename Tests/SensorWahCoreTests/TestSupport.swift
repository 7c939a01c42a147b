import XCTest
@testable import SensorWahCore

/// Parses lines with one parser; returns each line's result and the frames.
struct Parsed {
    var results: [LineResult] = []
    var frames: [SensorFrame] = []
    var parser: SensorParser
}

func parseLines(_ lines: [String], options: ParserOptions = .init()) -> Parsed {
    var out = Parsed(parser: SensorParser(options: options))
    var frame = SensorFrame()
    for l in lines {
        let r = out.parser.parse(l, into: &frame)
        out.results.append(r)
        if r == .frame { out.frames.append(frame) }
    }
    return out
}

/// Frames fed through a framer from raw bytes, chunked at the given sizes.
func parseBytes(_ bytes: [UInt8], chunks: [Int], options: ParserOptions = .init(), maxLine: Int = 16_384) -> (
    SensorParser, [SensorFrame]
) {
    var parser = SensorParser(options: options)
    var framer = LineFramer(maxLineLength: maxLine)
    var frames: [SensorFrame] = []
    var frame = SensorFrame()
    var offset = 0
    var k = 0
    bytes.withUnsafeBytes { all in
        while offset < all.count {
            let size = chunks.isEmpty ? all.count : max(1, chunks[k % chunks.count])
            k += 1
            let n = min(size, all.count - offset)
            framer.feed(UnsafeRawBufferPointer(rebasing: all[offset..<offset + n])) { line in
                switch line {
                case .tooLong: parser.noteTooLong()
                case .line(let b): if parser.parse(b, into: &frame) == .frame { frames.append(frame) }
                }
            }
            offset += n
        }
        framer.finish { line in
            if case .line(let b) = line, parser.parse(b, into: &frame) == .frame { frames.append(frame) }
        }
    }
    return (parser, frames)
}

/// Simple seeded generator (SplitMix64) so tests are repeatable.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let fieldRecordings: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/field-recordings")

let repoRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
