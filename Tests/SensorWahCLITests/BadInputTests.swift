import Foundation
import TestSupport
import XCTest

/// Bad command lines and mappings, as a user would type them: each one exits with status 64
/// (a usage error) and one line saying what is wrong. None may trap (a signal would show as a
/// different status). Runtime failures (a missing file, a refused connection) exit with 1 and
/// print the error without a usage line.
final class BadInputTests: XCTestCase {
    let rec = "Recordings/wrist-wah-phone.csv"

    /// argument list -> a part of the expected message
    var usageErrors: [([String], String)] {
        let r = rec
        return [
            // replay: playback, input, mapping
            (["replay", r, "--speed", "0"], "--speed"),
            (["replay", r, "--speed", "-1"], "--speed"),
            (["replay", r, "--speed", "inf"], "--speed"),
            (["replay", r, "--speed", "nan"], "--speed"),
            (["replay", r, "--speed", "1e9"], "--speed"),
            (["replay", r, "--max-gap", "0"], "--max-gap"),
            (["replay", r, "--max-gap", "inf"], "--max-gap"),
            (["replay", r, "--max-gap", "nan"], "--max-gap"),
            (["replay", r, "--max-line", "0"], "--max-line"),
            (["replay", r, "--rest-gravity", "0,0,0"], "--rest-gravity"),
            (["replay", r, "--rest-gravity", "1,2"], "--rest-gravity"),
            (["replay", r, "--max-line", "-5"], "--max-line"),
            (["replay", r, "--max-line", "99999999999"], "--max-line"),
            (["replay", r, "--columns", ",,"], "--columns"),
            (["replay", r, "--format", "excel"], "--format"),
            (["replay", r, "--wah-map", "0"], "--wah-map"),
            (["replay", r, "--channels", "3"], "--channels"),
            (["replay", r, "--heel-hz", "inf"], "--heel-hz"),
            (["replay", r, "--toe-q", "0"], "--toe-q"),
            (["replay", r, "--heel-q", "nan"], "--heel-q"),
            (["replay", r, "--toe-hz", "30000"], "--toe-hz"),
            (["replay", r, "--mix", "2"], "--mix"),
            (["replay", r, "--voice", "vox"], "--voice"),
            (["replay", r, "--wah-mode", "lfo"], "--wah-mode"),
            (["replay", r, "--attack", "0"], "--attack"),
            (["replay", r, "--attack", "nan"], "--attack"),
            (["replay", r, "--release", "-3"], "--release"),
            (["replay", r, "--release", "inf"], "--release"),
            (["replay", r, "--sensitivity", "-1"], "--sensitivity"),
            (["replay", r, "--sensitivity", "1e9"], "--sensitivity"),
            (["render", "a.wav", "b.wav"], "--recording"),
            (["render", "--pedal", "3", "--voice", "", "a.wav", "b.wav"], "--voice"),
            (["replay", r, "--alsa-connect", ""], "--alsa-connect"),
            (["replay", r, "--tilt-source", "magic"], "--tilt-source"),
            (["replay", r, "--zero-gesture", "wave"], "--zero-gesture"),
            (["replay", r, "--wah-switch", "wave", "--wah"], "--wah-switch"),
            (["replay", r, "--wah-switch", "flick"], "--wah-switch needs --wah"),
            // listen: ports, times, sizes
            (["listen", "--port", "70000"], "--port"),
            (["listen", "--port", "-1"], "--port"),
            (["listen", "--udp", "65536"], "--udp"),
            (["listen", "--max-connections", "0"], "--max-connections"),
            (["listen", "--max-connections", "1000000"], "--max-connections"),
            (["listen", "--idle-timeout", "inf"], "--idle-timeout"),
            (["listen", "--idle-timeout", "-1"], "--idle-timeout"),
            (["listen", "--idle-timeout", "1e12"], "--idle-timeout"),
            (["listen", "--rest-after", "1e12"], "--rest-after"),
            (["listen", "--rest-after", "nan"], "--rest-after"),
            (["listen", "--max-line", "0"], "--max-line"),
            (["listen", "--allow", "300.1.1.1/8"], "--allow"),
            (["listen", "--connect", "phone"], "--connect"),
            (["listen", "--pair-with", "10.0.0.0/8"], "--pair-with"),
            (["listen", "--pair-with", "phone"], "--pair-with"),
            (["listen", "--bind", ""], "--bind"),
            (["listen", "--playout", "soon"], "--playout"),
            (["listen", "--playout", "5000"], "--playout"),
            (["listen", "--no-tcp"], "--no-tcp"),
            (["listen", "--osc", "65536"], "--osc"),
            (["listen", "--osc", "-1"], "--osc"),
            (["listen", "--osc-tcp", "70000"], "--osc-tcp"),
            (["listen", "--detect"], "--detect"),
            (["listen", "--http", "65536"], "--http"),
            (["listen", "--phyphox", "phone"], "--phyphox"),
            (["listen", "--phyphox", "8080"], "--phyphox"),
            (["listen", "--phyphox", "10.0.0.2:8080", "--phyphox-interval", "0"], "--phyphox-interval"),
            (["listen", "--http", "0", "--http-max-body", "10"], "--http-max-body"),
            (["listen", "--osc", "0", "--map", "osc:fader cc=1"], "osc:/address"),
            (["listen", "--osc", "0", "--map", "osc:/a[16] cc=1"], "osc:/address"),
            // stream
            (["stream", r, "--serve", "70000"], "--serve"),
            (["stream", r, "--to", "nowhere"], "--to"),
            (["stream", r], "exactly one"),
            (["stream", r, "--to", "127.0.0.1:9", "--speed", "0"], "--speed"),
            (["stream", r, "--to", "127.0.0.1:9", "--max-gap", "-2"], "--max-gap"),
            (["render", "--pedal", "3", "--mix", "-0.5", "a.wav", "b.wav"], "--mix"),
            // render
            (["render", "--pedal", "128", "a.wav", "b.wav"], "--pedal"),
            (["render", "--pedal", "-1", "a.wav", "b.wav"], "--pedal"),
            (["render", "--recording", r, "--pedal-map", "0", "a.wav", "b.wav"], "--wah-map counts from 1"),
            (["render", "--recording", r, "--max-line", "0", "a.wav", "b.wav"], "--max-line")
        ]
    }

    /// One bad mapping per key (and malformed shapes, each refused with a message, not a trap).
    var badMappings: [(String, String)] {
        [
            ("", "empty mapping"),
            ("accel.x =", "option name is missing"),
            ("accel.x =5", "option name is missing"),
            ("=", "starts with its source"),
            ("elbow.x cc=1", "unknown source"),
            ("accel.x cc=", "cc needs a value"),
            ("accel.x cc=128", "cc needs a whole number 0-127"),
            ("accel.x cc=x", "cc needs a whole number"),
            ("accel.x cc14=32", "cc14 needs a whole number 0-31"),
            ("accel.x bend=3", "bend takes no value"),
            ("accel.x cc=1 bend", "one target per mapping"),
            ("accel.x ch=0", "ch needs a whole number 1-16"),
            ("accel.x ch=", "ch needs a value"),
            ("accel.x range=", "range needs a value"),
            ("accel.x range=1", "range must be MIN..MAX"),
            ("accel.x range=..", "range must be MIN..MAX"),
            ("accel.x range=1..-1", "range must be MIN..MAX"),
            ("accel.x range=-inf..1", "range must be MIN..MAX"),
            ("accel.x range=nan..1", "range must be MIN..MAX"),
            ("accel.x range=1..2..3", "range must be MIN..MAX"),
            ("accel.x bipolar=1", "bipolar takes no value"),
            ("accel.x unipolar=yes", "unipolar takes no value"),
            ("accel.x invert=no", "invert takes no value"),
            ("accel.x centre=abc", "centre needs a number"),
            ("accel.x centre=5", "must lie inside the range"),
            ("accel.x deadzone=1", "deadzone needs a number from 0 to 0.9"),
            ("accel.x deadzone=nan", "deadzone needs a number"),
            ("accel.x curve=:", "curve is linear, exp:K or log:K"),
            ("accel.x curve=:3", "curve is linear, exp:K or log:K"),
            ("accel.x curve=exp:", "curve amount K"),
            ("accel.x curve=exp:0", "curve amount K"),
            ("accel.x curve=exp:inf", "curve amount K"),
            ("accel.x curve=exp:1:2", "curve is linear, exp:K or log:K"),
            ("accel.x curve=linear:2", "linear curve takes no amount"),
            ("accel.x curve=wiggly", "curve is linear, exp:K or log:K"),
            ("accel.x smooth=-1", "smooth needs a number from 0 to 10000"),
            ("accel.x smooth=inf", "smooth needs a number"),
            ("accel.x smooth=ms", "smooth needs a number"),
            ("accel.x beta=-1", "beta needs a number"),
            ("accel.x beta=1e300", "beta needs a number"),
            ("accel.x reject=0", "reject must be above 0"),
            ("accel.x reject=inf", "reject needs a number"),
            ("accel.x speed=-3", "speed needs a number"),
            ("accel.x speed=nan", "speed needs a number"),
            ("accel.x rate=-1", "rate needs a number"),
            ("accel.x rate=1e12", "rate needs a number"),
            ("accel.x rest=200", "rest needs a whole number 0-127"),
            ("accel.x rest=", "rest needs a value"),
            ("accel.x cc14=1 rest=16384", "rest needs a whole number 0-16383"),
            ("accel.x sender=", "sender needs a value"),
            ("accel.x sender", "sender needs a value"),
            ("accel.x glide=-5", "glide needs a number from 0 to 10000"),
            ("accel.x glide=", "glide needs a value"),
            ("accel.x wobble=3", "unknown option 'wobble'"),
            ("accel.x zero", "zero applies to tilt sources"),
            ("tilt.x zero=1", "zero takes no value"),
            ("accel.x note=60", "gesture source"),
            ("flick note=200", "note needs a whole number 0-127"),
            ("flick note=", "note needs a value"),
            ("flick toggle=x", "toggle needs a whole number"),
            ("flick note=60 length=0", "length needs a time"),
            ("flick note=60 length=inf", "length needs a time"),
            ("flick cc=1 length=100", "only a note= mapping has a length"),
            ("tilt.x hold=wave", "hold is a gesture (flick, shake, tap) or a pose (palm-up)"),
            ("tilt.x hold=", "hold needs a value"),
            ("tilt.x relative", "needs hold=GESTURE"),
            ("tilt.x hold=shake relative=yes", "relative takes no value"),
            ("tap note=40 hold=shake", "cannot be held")
        ]
    }

    func testEveryBadCommandLineIsAUsageErrorWithAClearMessage() throws {
        var cases = usageErrors
        for (mapping, message) in badMappings {
            cases.append((["replay", rec, "--fast", "--map", mapping], message))
        }
        for (args, message) in cases {
            let r = try CLI.run(args, timeout: 30)
            XCTAssertEqual(
                r.status, 64, "\(args): exit \(r.status), expected 64 (a trap shows as a signal number)\n\(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): expected '\(message)' in:\n\(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), "\(args) trapped:\n\(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty, "\(args) wrote to stdout:\n\(r.stdout.prefix(200))")
        }
    }

    /// A mapping error names the mapping as written, on one line.
    func testMappingErrorNamesTheMappingOnOneLine() throws {
        let r = try CLI.run(["replay", rec, "--fast", "--map", "accel.x cc=11 curve=:"], timeout: 30)
        XCTAssertEqual(r.status, 64)
        let errorLines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        XCTAssertEqual(errorLines.count, 1, r.stderr)
        XCTAssertTrue(errorLines.first?.contains("mapping \"accel.x cc=11 curve=:\"") ?? false, r.stderr)
        XCTAssertTrue(errorLines.first?.contains("'curve=:'") ?? false, r.stderr)
    }

    /// Failures of the world, not of the command line: status 1, the reason, no usage line.
    func testRuntimeErrorsPrintNoUsageLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-bad-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.csv").path
        // a port nobody listens on: bound, noted, closed
        let closedPort = Loopback.freePort()
        let cases: [([String], String)] = [
            (["replay", missing], "cannot open"),
            (["replay", rec, "--map-file", missing], "cannot read mapping file"),
            (["render", "--recording", missing, "in.wav", dir.appendingPathComponent("o.wav").path], "cannot read"),
            (
                [
                    "render", "--pedal", "3", missing.replacingOccurrences(of: ".csv", with: ".wav"),
                    dir.appendingPathComponent("o.wav").path
                ], "cannot read"
            ),
            (["stream", missing, "--to", "127.0.0.1:\(closedPort)"], "cannot read"),
            (["stream", rec, "--to", "127.0.0.1:\(closedPort)"], "cannot connect")
        ]
        for (args, message) in cases {
            let r = try CLI.run(args, timeout: 30)
            XCTAssertEqual(r.status, 1, "\(args): exit \(r.status)\n\(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): expected '\(message)' in:\n\(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Usage:"), "\(args): a runtime error printed a usage line:\n\(r.stderr)")
        }
    }
}
