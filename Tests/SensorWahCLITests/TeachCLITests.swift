import Foundation
import XCTest

/// `sensorwah teach` and `--gestures`: gestures taught from marked examples in a take written
/// here (SensorLog's layout: two kinds of stroke, each a little faster or slower, harder or
/// softer than the others, among wrist turns and stillness), recognised one-to-one in another
/// take at another rate by replay, export and listen; poses taught from held stretches of the
/// bundled recording; the model file's mistakes reported at their lines.
final class TeachCLITests: XCTestCase {
    /// A stroke: (start, kind, speed, gain); a wrist turn: kind "turn".
    struct Event { var start: Double; var kind: String; var duration: Double; var gain: Double }

    /// A take at `hz` in SensorLog's layout (accelerometer and gyro columns), with its events.
    static func take(hz: Double, seed: UInt64, gyro: Bool = true) -> (csv: String, events: [Event]) {
        var rng = seed
        func rand() -> Double {  // xorshift, 0..<1
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
            return Double(rng % 1_000_000) / 1_000_000
        }
        var events: [Event] = []
        var t = 1.5
        let order = [
            "swing", "chop", "swing", "turn", "swing", "chop", "swing", "chop", "turn", "swing", "chop", "swing", "chop"
        ]
        for k in order {
            let base = k == "swing" ? 0.7 : k == "chop" ? 0.5 : 1.5
            let d = base * (0.8 + 0.4 * rand())  // ±20 % speed
            events.append(Event(start: t, kind: k, duration: d, gain: 0.75 + 0.5 * rand()))  // ±25 % strength
            t += d + 1.6 + rand()
        }
        let end = t + 1
        var csv =
            "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)"
        csv +=
            gyro
            ? ",gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),gyroRotationY(rad/s),gyroRotationZ(rad/s)\n" : "\n"
        let boot = 5000.0
        var i = 0
        while Double(i) / hz < end {
            let s = Double(i) / hz
            var a = (x: 0.0, y: 0.0, z: -1.0), w = (x: 0.0, y: 0.0, z: 0.0)
            for e in events where s >= e.start && s < e.start + e.duration {
                let u = (s - e.start) / e.duration
                switch e.kind {
                case "swing":  // a sideways swing: x out and back, a turn about y
                    a.x += 1.6 * e.gain * sin(2 * .pi * u); a.z += 0.4 * e.gain * sin(.pi * u)
                    w.y += 6 * e.gain * sin(.pi * u)
                case "chop":  // a downward chop: y one way, z the other, a turn about x
                    a.y -= 1.2 * e.gain * sin(.pi * u); a.z -= 0.9 * e.gain * sin(2 * .pi * u)
                    w.x -= 5 * e.gain * sin(.pi * u)
                default:  // a slow wrist turn and back: gravity moves from z to x
                    let ang = 1.2 * sin(.pi * u)
                    a.x = sin(ang); a.z = -cos(ang)
                    w.y += 1.2 * .pi / e.duration * cos(.pi * u)
                }
            }
            let n = { 0.01 * (rand() - 0.5) }
            let ts = String(format: "%.6f", boot + s)
            csv += "2026-01-01T10:00:00.000+00:00,\(ts),\(a.x + n()),\(a.y + n()),\(a.z + n())"
            csv += gyro ? ",\(ts),\(w.x + n()),\(w.y + n()),\(w.z + n())\n" : "\n"
            i += 1
        }
        return (csv, events)
    }

    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sw-teach-\(getpid())-\(name.hashValue & 0xffff)")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ text: String) throws -> String {
        let p = dir.appendingPathComponent(name).path
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// Note-on times per note number in `--midi stdout`'s JSON lines.
    static func noteOns(_ stdout: String) -> [Int: [Double]] {
        var out: [Int: [Double]] = [:]
        for line in CLI.lines(stdout) {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                o["type"] as? String == "note_on", let n = o["note"] as? Int, let t = o["t"] as? Double
            else { continue }
            out[n, default: []].append(t)
        }
        return out
    }

    /// Matches firings to strokes one-to-one: a firing within the stroke or up to 1 s after it (the note comes after the movement: docs/gestures.md); a
    /// second firing for one stroke, or one away from every stroke, is a false alarm.
    static func score(_ fires: [Double], _ strokes: [Event], t0: Double = 0) -> (
        hits: Int, falseAlarms: Int, missed: Int
    ) {
        var used = Set<Int>(), hits = 0
        for s in strokes {
            if let j = fires.indices.first(where: {
                !used.contains($0) && fires[$0] - t0 >= s.start && fires[$0] - t0 <= s.start + s.duration + 1.0
            }) {
                used.insert(j); hits += 1
            }
        }
        return (hits, fires.count - used.count, strokes.count - hits)
    }

    /// Taught from three swings and two chops of a 100 Hz take, at their middles: the other take
    /// (another seed, 50 Hz) plays one note per stroke of the right kind and nothing on the wrist
    /// turns, through replay and through export's list; progress reaches the top on every swing;
    /// `teach` without marks finds the same.
    func testTaughtStrokesAreRecognisedOneToOneInAnotherTakeAtAnotherRate() throws {
        let teachTake = Self.take(hz: 100, seed: 42)
        let takePath = try write("teach.csv", teachTake.csv)
        let swings = teachTake.events.filter { $0.kind == "swing" },
            chops = teachTake.events.filter { $0.kind == "chop" }
        var marks = "# seconds from the first row, name\n"
        for e in swings.prefix(3) { marks += String(format: "%.2f swing\n", e.start + e.duration / 2) }
        for e in chops.prefix(2) { marks += String(format: "%.2f chop   # the middle\n", e.start + e.duration / 2) }
        let marksPath = try write("marks.txt", marks)
        let model = dir.appendingPathComponent("moves.yaml").path
        let t = try CLI.run(["teach", model, takePath, "--marks", marksPath])
        XCTAssertEqual(t.status, 0, t.stderr)
        XCTAssertEqual(CLI.lines(t.stdout).filter { $0.contains(": example ") }.count, 5, t.stdout)
        XCTAssertTrue(t.stdout.contains("gesture:swing: 3 examples"), t.stdout)
        XCTAssertTrue(t.stdout.contains("gesture:chop: 2 examples"), t.stdout)
        XCTAssertTrue(t.stdout.contains("with rotation rate"), t.stdout)
        XCTAssertFalse(t.stdout.contains("one gesture:"), t.stdout)
        // the file a person reads
        let text = try String(contentsOfFile: model, encoding: .utf8)
        XCTAssertTrue(
            text.contains("version: 5") && text.contains("  swing:\n") && text.contains("threshold: ")
                && text.contains("tune: 1.00"), text)

        let (other, otherPath, r, notes) = try playOtherTake(model, "--map", "gesture:swing.progress cc=20")
        // the chops: taught from two soft ones (strength 0.79 and 0.93), the strongest of the
        // other take 1.24 and 1.44 times their mean: found (the direction features saturate,
        // the magnitude is log-compressed)
        // progress: 127 (all the way) during each swing, back to 0 between
        var tops: [Double] = []
        for line in CLI.lines(r.stdout) where line.contains("\"cc\":20,") && line.contains("\"value\":127") {
            if let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let tt = o["t"] as? Double
            {
                tops.append(tt)
            }
        }
        XCTAssertEqual(
            Self.score(tops, other.events.filter { $0.kind == "swing" }).hits, 6,
            "progress at the top on every swing: \(tops)")

        // export lists the same firings
        let e = try CLI.run(["export", otherPath, "--gestures", model, "--list-gestures"])
        XCTAssertEqual(e.status, 0, e.stderr)
        let swingRows = CLI.lines(e.stdout).filter { $0.contains(",gesture:swing,") }.compactMap {
            Double($0.split(separator: ",")[0])
        }
        XCTAssertEqual(swingRows.count, (notes[60] ?? []).count)

        // teach without marks: where they are recognised, and the nearest misses
        let rec = try CLI.run(["teach", model, otherPath])
        XCTAssertEqual(rec.status, 0, rec.stderr)
        XCTAssertEqual(CLI.lines(rec.stdout).filter { $0.hasPrefix("gesture:swing at ") }.count, 6, rec.stdout)
        XCTAssertTrue(
            rec.stdout.contains("gesture:chop: \((notes[62] ?? []).count) recognised; nearest miss"), rec.stdout)
    }

    /// A labelled take's stretches given as they are (`START END NAME`, from each stroke's start
    /// to its end): the movement is looked for inside each, and the other take plays as when
    /// taught from marks. A stretch that ends before it starts is refused at its line, and so is a
    /// line whose name is a number (START END with the NAME forgotten); START = END is an instant.
    func testLabelledStretchesTeachLikeMarks() throws {
        let teachTake = Self.take(hz: 100, seed: 42)
        let takePath = try write("teach.csv", teachTake.csv)
        var marks = "# start end name\n"
        for e in teachTake.events.filter({ $0.kind == "swing" }).prefix(3) {
            marks += String(format: "%.2f %.2f swing\n", e.start, e.start + e.duration)
        }
        for e in teachTake.events.filter({ $0.kind == "chop" }).prefix(2) {
            marks += String(format: "%.2f %.2f chop\n", e.start, e.start + e.duration)
        }
        let model = dir.appendingPathComponent("stretches.yaml").path
        let t = try CLI.run(["teach", model, takePath, "--marks", try write("stretches.txt", marks)])
        XCTAssertEqual(t.status, 0, t.stderr)
        XCTAssertEqual(CLI.lines(t.stdout).filter { $0.contains(": example ") }.count, 5, t.stdout)
        _ = try playOtherTake(model)
        let bad = try CLI.run(["teach", model, takePath, "--mark", "3.0 2.0 swing"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("--mark '3.0 2.0 swing': START 3.0 is after END 2.0"), bad.stderr)
        let nameless = try CLI.run(["teach", model, takePath, "--mark", "12 14"])
        XCTAssertNotEqual(nameless.status, 0)
        XCTAssertTrue(nameless.stderr.contains("'14' is a number, not a gesture name"), nameless.stderr)
        // a point label (START = END, as Audacity writes one) is an instant
        let mid = teachTake.events[0].start + teachTake.events[0].duration / 2
        let point = try CLI.run([
            "teach", dir.appendingPathComponent("point.yaml").path, takePath, "--mark",
            String(format: "%.2f %.2f %@", mid, mid, teachTake.events[0].kind)
        ])
        XCTAssertEqual(point.status, 0, point.stderr)
        XCTAssertTrue(
            point.stdout.contains("\(teachTake.events[0].kind) at ") && point.stdout.contains(": example "),
            point.stdout)
    }

    /// The other take (seed 7, 50 Hz) replayed with `model`, swings on note 60 and chops on 62
    /// (plus `extra` mappings): one note per stroke of the right kind (6 swings, 5 chops), nothing else.
    func playOtherTake(_ model: String, _ extra: String..., file: StaticString = #filePath, line: UInt = #line) throws
        -> (other: (csv: String, events: [Event]), path: String, run: CLI.Result, notes: [Int: [Double]])
    {
        let other = Self.take(hz: 50, seed: 7)
        let otherPath = try write("other.csv", other.csv)
        let r = try CLI.run(
            [
                "replay", otherPath, "--fast", "--midi", "stdout", "--gestures", model,
                "--map", "gesture:swing note=60", "--map", "gesture:chop note=62"
            ] + extra)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let notes = Self.noteOns(r.stdout)
        let sw = Self.score(notes[60] ?? [], other.events.filter { $0.kind == "swing" })
        let ch = Self.score(notes[62] ?? [], other.events.filter { $0.kind == "chop" })
        print(
            "TeachCLITests: swing \(sw), chop \(ch) (hits, false alarms, missed); swing notes at \(notes[60] ?? []), chop notes at \(notes[62] ?? [])"
        )
        XCTAssertEqual(sw.hits, 6, file: file, line: line); XCTAssertEqual(sw.falseAlarms, 0, file: file, line: line)
        XCTAssertEqual(ch.hits, 5, file: file, line: line); XCTAssertEqual(ch.falseAlarms, 0, file: file, line: line)
        return (other, otherPath, r, notes)
    }

    /// The same model recognises strokes streamed into `listen` (per sender, on the network
    /// thread): one note per swing.
    func testListenRecognisesAStreamedTake() throws {
        let teachTake = Self.take(hz: 100, seed: 42)
        let takePath = try write("teach.csv", teachTake.csv)
        let marks = teachTake.events.filter { $0.kind == "swing" }.prefix(3).map {
            String(format: "%.2f swing\n", $0.start + $0.duration / 2)
        }.joined()
        let model = dir.appendingPathComponent("moves.yaml").path
        XCTAssertEqual(try CLI.run(["teach", model, takePath, "--marks", try write("m.txt", marks)]).status, 0)
        let other = Self.take(hz: 100, seed: 9)
        let otherPath = try write("other.csv", other.csv)
        let l = try CLI.Running([
            "listen", "--bind", "127.0.0.1", "--port", "0", "--no-monitor", "--midi", "stdout",
            "--gestures", model, "--map", "gesture:swing note=60"
        ])
        let port = try XCTUnwrap(l.waitForStderr(#"listening on tcp://127\.0\.0\.1:(\d+)"#))
        let s = try CLI.run(["stream", otherPath, "--to", "127.0.0.1:\(port)", "--speed", "4"])
        XCTAssertEqual(s.status, 0, s.stderr)
        try l.awaitStderr("sender disconnected")  // listen has read the whole take
        l.interrupt()
        let r = l.wait(timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        let ons = Self.noteOns(r.stdout)[60] ?? []
        // listen's times are sensor times from the first frame of the stream
        let sc = Self.score(ons, other.events.filter { $0.kind == "swing" })
        print("TeachCLITests: listen swing \(sc) at \(ons)")
        XCTAssertEqual(sc.hits, 6); XCTAssertEqual(sc.falseAlarms, 0)
    }

    /// Poses held in the bundled recording (the wrist rolled one way, then the other): pose:wah
    /// is the taught value at each pose, half-way when level, monotone as the wrist rolls from
    /// one to the other.
    func testPosesMoveSmoothlyBetweenTheTaughtValues() throws {
        let poses = try write("poses.txt", "2.9 3.4 wah 1   # rolled right\n5.6 6.0 wah 0   # rolled left\n")
        let model = dir.appendingPathComponent("poses.yaml").path
        let t = try CLI.run(["teach", model, CLI.recording("wrist-wah-phone.csv"), "--poses", poses])
        XCTAssertEqual(t.status, 0, t.stderr)
        XCTAssertTrue(t.stdout.contains("pose:wah: 2 points"), t.stdout)
        let e = try CLI.run([
            "export", CLI.recording("wrist-wah-phone.csv"), "--gestures", model, "--sources", "tilt.roll,pose:wah"
        ])
        XCTAssertEqual(e.status, 0, e.stderr)
        let rows = CLI.lines(e.stdout).dropFirst().compactMap { l -> (t: Double, roll: Double, v: Double)? in
            let p = l.split(separator: ",").compactMap { Double($0) }
            return p.count == 3 ? (p[0], p[1], p[2]) : nil
        }
        func at(_ s: Double) -> (t: Double, roll: Double, v: Double) { rows.min { abs($0.t - s) < abs($1.t - s) }! }
        XCTAssertEqual(at(3.2).v, 1, accuracy: 0.02)
        XCTAssertEqual(at(5.8).v, 0, accuracy: 0.02)
        XCTAssertEqual(at(0.5).v, 0.5, accuracy: 0.05, "level is half-way")
        // 3.3-5.8 s: the wrist rolls from one pose to the other; the value falls with the roll
        let sweep = rows.filter { $0.t >= 3.3 && $0.t <= 5.8 }
        for (a, b) in zip(sweep, sweep.dropFirst()) where b.roll < a.roll - 0.5 {
            XCTAssertLessThanOrEqual(b.v, a.v + 1e-6, "rolling on from \(a) to \(b)")
        }
        // a mapping: 0-127 from the file's values
        let r = try CLI.run([
            "replay", CLI.recording("wrist-wah-phone.csv"), "--fast", "--midi", "stdout", "--gestures", model, "--map",
            "pose:wah cc=11 smooth=0"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let values = CLI.lines(r.stdout).compactMap { l -> Int? in
            (try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])?["value"] as? Int
        }
        XCTAssertEqual(values.max(), 127); XCTAssertEqual(values.min(), 0)
    }

    /// Mistakes: a marks line that is not SECONDS NAME, a mark on no movement, an unknown
    /// gesture in a mapping, a source without --gestures, a model file with a bad line, another
    /// version: each one line naming what is wrong and where, and nothing written.
    func testMistakesAreReportedAtTheirLines() throws {
        let takePath = try write("teach.csv", Self.take(hz: 100, seed: 42).csv)
        let model = dir.appendingPathComponent("moves.yaml").path
        let bad = try CLI.run([
            "teach", model, takePath, "--marks", try write("bad.txt", "# marks\n2.0 swing\nswing 3.0\n")
        ])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("bad.txt:3: expected SECONDS NAME"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: model), "nothing written")
        let still = try CLI.run(["teach", model, takePath, "--marks", try write("still.txt", "0.5 swing\n")])
        XCTAssertNotEqual(still.status, 0)
        XCTAssertTrue(still.stdout.contains("no movement within 0.4 s of the mark"), still.stdout)
        XCTAssertTrue(still.stderr.contains("nothing taught"), still.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: model), "nothing written")
        let noFile = try CLI.run(["replay", takePath, "--fast", "--map", "gesture:swing note=60"])
        XCTAssertNotEqual(noFile.status, 0)
        XCTAssertTrue(
            noFile.stderr.contains("gesture:swing: a gesture or pose taught by example needs --gestures FILE"),
            noFile.stderr)

        // a model with a frame of five numbers at line 17
        let lines =
            ([
                "version: 5", "rate: 50", "gestures:", "  swing:", "    threshold: 0.2", "    tune: 1",
                "    gyro: true", "    taught:",
                "      - from: \"x\"", "        seconds: 0.1", "        frames:"
            ]
            + (0..<5).map { _ in "          - [0, 0, 0, 0, 0, 0, 0]" } + ["          - [0, 0, 0, 0, 0]"]).joined(
                separator: "\n") + "\n"
        let broken = try write("broken.yaml", lines)
        let b = try CLI.run(["replay", takePath, "--fast", "--gestures", broken, "--map", "gesture:swing note=60"])
        XCTAssertNotEqual(b.status, 0)
        XCTAssertTrue(
            b.stderr.contains("broken.yaml:17: gestures.swing.taught[1].frames: each frame is [7 numbers]"), b.stderr)
        // a file of an earlier version (taught on other features): refused, with what to do
        let v4 = try write("v4.yaml", lines.replacingOccurrences(of: "version: 5", with: "version: 4"))
        let c = try CLI.run(["teach", v4])
        XCTAssertNotEqual(c.status, 0)
        XCTAssertTrue(
            c.stderr.contains(
                "v4.yaml:1: version: version 4: this SensorWah reads version 5, and the gestures' features have changed since: move this file aside, teach the gestures again from your takes into a new one, then copy this file's poses: section over as it is"
            ), c.stderr)
        // ... but one with poses only is read (their layout has not changed); a newer one is refused
        let posesOnly = try write(
            "v2-poses.yaml",
            "version: 2\nrate: 50\ngestures: {}\nposes:\n  wah:\n    - value: 1.0000\n      gravity: [0.00000, 0.50000, -0.86603]\n      from: \"x\"\n    - value: 0.0000\n      gravity: [0.00000, -0.50000, -0.86603]\n      from: \"y\"\n"
        )
        let p2 = try CLI.run(["teach", posesOnly])
        XCTAssertEqual(p2.status, 0, p2.stderr)
        XCTAssertTrue(p2.stdout.contains("wah"), p2.stdout)
        let v6 = try write("v6.yaml", lines.replacingOccurrences(of: "version: 5", with: "version: 6"))
        let c4 = try CLI.run(["teach", v6])
        XCTAssertNotEqual(c4.status, 0)
        XCTAssertTrue(
            c4.stderr.contains(
                "v6.yaml:1: version: version 6: written by a newer SensorWah; this one reads version 5 (update SensorWah, or teach the gestures again with this one)"
            ), c4.stderr)

        // a good model, and a mapping naming a gesture it does not have
        let one = try CLI.run(["teach", model, takePath, "--marks", try write("m.txt", "2.0 swing\n")])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(
            one.stdout.contains("one gesture: other movements like it may play it too; teach the others you make"),
            one.stdout)
        let unknown = try CLI.run([
            "replay", takePath, "--fast", "--gestures", model, "--map", "gesture:backhand note=60"
        ])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(
            unknown.stderr.contains("gesture:backhand: no gesture 'backhand' in \(model) (it has swing)"),
            unknown.stderr)
        // the configuration file's motion section names the model
        let cfg = try write("sw.yaml", "motion:\n  gestures: \(model)\nmappings:\n  - gesture:swing note=60\n")
        let viaConfig = try CLI.run(["replay", takePath, "--fast", "--midi", "stdout", "--config", cfg])
        XCTAssertEqual(viaConfig.status, 0, viaConfig.stderr)
        XCTAssertFalse((Self.noteOns(viaConfig.stdout)[60] ?? []).isEmpty, viaConfig.stdout)
    }

    /// The field recording's seven forehands (an Apple Watch at 800 Hz, accelerometer only),
    /// when ../shared/field-recordings is there: taught from shots 1, 3 and 5, replay plays a
    /// note only at shots, never twice for one; the recall is printed (docs/gestures.md).
    func testFieldForehandTake() throws {
        let path = CLI.repo.deletingLastPathComponent().appendingPathComponent(
            "shared/field-recordings/applewatch-tennis-forehand-7-shots-accel-800hz-headerless.csv"
        ).path
        guard FileManager.default.fileExists(atPath: path) else {
            print("TeachCLITests.testFieldForehandTake: SKIPPED, ../shared/field-recordings/ is not present")
            throw XCTSkip("field recordings not present")
        }
        let cols = [
            "--columns",
            "accelerometerTimestamp_sinceReboot,accelerometerAccelerationX,accelerometerAccelerationY,accelerometerAccelerationZ"
        ]
        // the shots' peaks, from the file itself (the largest acceleration of each shot)
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: ",").compactMap { Double($0) }
        }.filter { $0.count == 4 }
        var peaks: [Double] = []
        var i = 0
        while i < rows.count {
            func mag(_ r: [Double]) -> Double { (r[1] * r[1] + r[2] * r[2] + r[3] * r[3]).squareRoot() }
            if mag(rows[i]) > 6 {
                var j = i, best = i
                while j < rows.count && rows[j][0] - rows[i][0] < 0.6 {
                    if mag(rows[j]) > mag(rows[best]) { best = j }; j += 1
                }
                peaks.append(rows[best][0] - rows[0][0]); i = j
            } else {
                i += 1
            }
        }
        XCTAssertEqual(peaks.count, 7)
        let model = dir.appendingPathComponent("forehand.yaml").path
        let marks = try write("marks.txt", [0, 2, 4].map { String(format: "%.3f forehand\n", peaks[$0]) }.joined())
        let t = try CLI.run(["teach", model, path, "--marks", marks] + cols)
        XCTAssertEqual(t.status, 0, t.stderr)
        let r = try CLI.run(
            ["replay", path, "--fast", "--midi", "stdout", "--gestures", model, "--map", "gesture:forehand note=60"]
                + cols)
        XCTAssertEqual(r.status, 0, r.stderr)
        let ons = Self.noteOns(r.stdout)[60] ?? []
        let shots = ons.compactMap { on in peaks.firstIndex { on - $0 > -0.3 && on - $0 < 1.2 } }
        print(
            "TeachCLITests.testFieldForehandTake (ran): notes at \(ons), shots \(shots.map { $0 + 1 }) of 7, latency from the peak \(zip(ons, shots).map { Int(($0 - peaks[$1]) * 1000) }) ms"
        )
        XCTAssertEqual(shots.count, ons.count, "a note away from every shot")
        XCTAssertEqual(Set(shots).count, shots.count, "a shot played twice")
        XCTAssertTrue(Set([1, 3, 5, 6]).isSubset(of: Set(shots)), "the four shots not taught")
    }
}
