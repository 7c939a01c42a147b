import ArgumentParser
import Foundation
import SensorWahCore
import SensorWahEngine
import SensorWahIO

struct Teach: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Teach gestures and poses by example from a recorded take, and see how they are recognised.",
        discussion: """
            Gestures: perform a movement a few times in a take (record it with `listen --record`), \
            write a MARKS file with one line per example, `SECONDS NAME`, where SECONDS is any \
            instant inside the movement (its peak, say) counted from the take's first row, and run \
            `teach FILE TAKE --marks MARKS`. (A labelled take's stretches may be given as they are, \
            `START END NAME`: the movement is looked for inside each.) SensorWah finds each \
            example's extent itself and adds \
            it to FILE (made when missing; several takes and names may add to it). Then \
            `--gestures FILE` on replay, listen, render, plot and export makes the sources \
            gesture:NAME (fires once per recognised movement, like flick) and \
            gesture:NAME.progress (0-1 while the movement unfolds).

            Poses: hold the wrist still in two or more poses in a take, and write a POSES file with \
            one line per pose, `START END NAME VALUE` (seconds from the take's first row, the \
            source's name, the value it should give there). pose:NAME then moves smoothly between \
            the values as the wrist moves between the poses.

            Without a take, teach prints what FILE holds; with a take and no marks, it shows where \
            the take's movements are recognised, and each gesture's nearest miss.

            Examples:
              sensorwah teach moves.yaml take.csv --marks take-marks.txt
              sensorwah teach moves.yaml take.csv --poses take-poses.txt
              sensorwah teach moves.yaml take.csv --pose "3.0 3.3 wah 1" \\
                  --pose "5.8 6.1 wah 0"
              sensorwah teach moves.yaml                       what the file holds
              sensorwah teach moves.yaml another-take.csv      where it recognises them
              sensorwah replay another-take.csv --gestures moves.yaml \\
                  --map "gesture:forehand note=60"
            """
    )

    @Argument(help: ArgumentHelp("The gestures file (YAML) to add to, or to read.", valueName: "FILE"))
    var model: String
    @Argument(help: ArgumentHelp("A recorded take (any format replay reads).", valueName: "TAKE"))
    var take: String?
    @Option(
        help: ArgumentHelp(
            "Examples in TAKE: one line per example, SECONDS NAME, or START END NAME for a labelled stretch (# starts a comment).",
            valueName: "MARKS"))
    var marks: String?
    @Option(
        help: ArgumentHelp(
            "Poses held in TAKE: one line per pose, START END NAME VALUE (seconds; # starts a comment).",
            valueName: "POSES"))
    var poses: String?
    @Option(
        name: .customLong("mark"),
        help: ArgumentHelp(
            "One example, as a line of MARKS: \"SECONDS NAME\" or \"START END NAME\" (repeatable).",
            valueName: "SECONDS NAME"))
    var markLines: [String] = []
    @Option(
        name: .customLong("pose"),
        help: ArgumentHelp(
            "One pose, as a line of POSES: \"START END NAME VALUE\" (repeatable).", valueName: "START END NAME VALUE"))
    var poseLines: [String] = []
    @Option(help: ArgumentHelp("Where the poses' orientation comes from: fused or device.", valueName: "fused|device"))
    var tiltSource = "fused"
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        if take == nil && teaches {
            throw ValidationError(
                "--marks, --mark, --poses and --pose mark instants of a take: give the TAKE after the gestures file")
        }
        guard TiltSource(rawValue: tiltSource.lowercased()) != nil else {
            throw ValidationError("--tilt-source '\(tiltSource)': fused or device")
        }
    }

    var teaches: Bool { marks != nil || poses != nil || !markLines.isEmpty || !poseLines.isEmpty }

    /// The lines of a marks or poses file and of the options: where each is (`FILE:LINE` or
    /// the option) and its words.
    static func lines(file: String?, what: String, option: String, typed: [String]) throws -> [(
        at: String, words: [String]
    )] {
        func words(_ line: Substring) -> [String] {
            let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" }).map(String.init)
        }
        var out: [(String, [String])] = []
        if let path = file {
            guard let text = readWholeFile(path) else { throw RuntimeFailure("cannot read the \(what) file '\(path)'") }
            for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let w = words(raw)
                if !w.isEmpty { out.append(("\(path):\(i + 1)", w)) }
            }
        }
        for t in typed { out.append(("\(option) '\(t)'", words(Substring(t)))) }
        return out
    }

    /// The marks: `SECONDS NAME`, or `START END NAME` (a labelled stretch: the movement is
    /// looked for inside it, as labelled takes give them); a stretch's mark is its middle.
    func markList() throws -> [(seconds: Double, name: String, at: String, span: ClosedRange<Double>?)] {
        try Self.lines(file: marks, what: "marks", option: "--mark", typed: markLines).map { l in
            let numbers = l.words.dropLast().map { Double($0) }
            guard l.words.count == 2 || l.words.count == 3,
                numbers.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 })
            else {
                throw RuntimeFailure(
                    "\(l.at): expected SECONDS NAME, e.g. 12.3 forehand (seconds from the take's first row), or START END NAME for a labelled stretch, not '\(l.words.joined(separator: " "))'"
                )
            }
            let name = l.words[l.words.count - 1]
            guard LearnedSource.validName(Substring(name)) else {
                throw RuntimeFailure("\(l.at): '\(name)' is not a gesture name (letters, digits, - and _, up to 40)")
            }
            guard Double(name) == nil else {
                throw RuntimeFailure(
                    "\(l.at): '\(name)' is a number, not a gesture name (SECONDS NAME, or START END NAME: is the NAME missing?)"
                )
            }
            if numbers.count == 2 {
                let a = numbers[0]!, b = numbers[1]!
                guard b >= a else { throw RuntimeFailure("\(l.at): START \(l.words[0]) is after END \(l.words[1])") }
                // a point label (Audacity writes START = END for one): an instant
                if b == a { return (a, name, l.at, nil) }
                return ((a + b) / 2, name, l.at, a...b)
            }
            return (numbers[0]!, name, l.at, nil)
        }
    }

    func poseList() throws -> [(start: Double, end: Double, name: String, value: Double, at: String)] {
        try Self.lines(file: poses, what: "poses", option: "--pose", typed: poseLines).map { l in
            guard l.words.count == 4, let a = Double(l.words[0]), let b = Double(l.words[1]),
                let v = Double(l.words[3]),
                a.isFinite, b.isFinite, v.isFinite, a >= 0, b > a
            else {
                throw RuntimeFailure(
                    "\(l.at): expected START END NAME VALUE, e.g. 3.0 5.5 wah 0 (seconds from the take's first row, START before END), not '\(l.words.joined(separator: " "))'"
                )
            }
            guard LearnedSource.validName(Substring(l.words[2])) else {
                throw RuntimeFailure("\(l.at): '\(l.words[2])' is not a pose name (letters, digits, - and _, up to 40)")
            }
            return (a, b, l.words[2], v, l.at)
        }
    }

    /// The take's readings for the gestures, and its fused gravity direction per frame.
    struct Take {
        var times: [Double] = [], accel: [Vector3] = [], gyro: [Vector3] = []
        var gravity: [(t: Double, g: Vector3)] = []
        var frames = 0
    }

    func readTake(_ path: String) throws -> Take {
        var motion = MotionSettings()
        motion.tiltSource = TiltSource(rawValue: tiltSource.lowercased()) ?? .fused
        let export = FileExport(
            path: path, parserOptions: input.parserOptions(), maxLineLength: input.maxLine, motion: motion)
        var t = Take()
        let stats: ParserStats
        do {
            stats = try export.forEachFrame { f in
                if let r = LearnedReading.of(f) {
                    t.times.append(r.time); t.accel.append(r.accel); t.gyro.append(r.gyro)
                }
                if f.has(.derived) {
                    let g = Vector3(f[.tiltX], f[.tiltY], f[.tiltZ])
                    if g.isFiniteVector { t.gravity.append((f.time(.derived), g)) }
                }
            }
        } catch { throw RuntimeFailure("\(error)") }
        t.frames = stats.frames
        guard !t.times.isEmpty else {
            throw RuntimeFailure(
                "'\(path)': no accelerometer or rotation-rate readings (\(stats.frames) frames, \(stats.totalSkipped) rows skipped): nothing to teach from"
            )
        }
        return t
    }

    func run() throws {
        let exists = FileManager.default.fileExists(atPath: model)
        var learned = LearnedModel()
        if exists {
            do { learned = try GestureModelFile.read(model) } catch let p as GestureModelFile.Problem {
                throw RuntimeFailure(p.description)
            }
        }
        guard let takePath = take else {
            guard exists else {
                throw RuntimeFailure(
                    "'\(model)': no such gestures file (make one with sensorwah teach \(model) TAKE --marks MARKS)")
            }
            print(Self.report(learned, file: model), terminator: "")
            return
        }
        let name = takePath.split(separator: "/").last.map(String.init) ?? takePath
        let data = try readTake(takePath)
        guard teaches else {
            guard exists else {
                throw RuntimeFailure(
                    "'\(model)': no such gestures file to recognise with (teach it with --marks first)")
            }
            guard !learned.gestures.classes.isEmpty else {
                throw RuntimeFailure("'\(model)' has no gestures to recognise")
            }
            print(Self.recognition(learned.gestures, take: data, name: name), terminator: "")
            return
        }
        var taught = 0
        let markItems = try markList(), poseItems = try poseList()
        if marks != nil || !markLines.isEmpty {
            let list = markItems
            guard !list.isEmpty else {
                throw RuntimeFailure(
                    "\(marks ?? "--mark"): no marks (one line per example: SECONDS NAME, or START END NAME)")
            }
            var repeats = Set<Int>()
            let found = learned.gestures.teach(
                times: data.times, accel: data.accel, gyro: data.gyro,
                marks: list.map { ($0.seconds, $0.name) }, origin: name, spans: list.map(\.span),
                repeated: { repeats.insert($0) })
            for (i, (mark, f)) in zip(list, found).enumerated() {
                let place =
                    mark.span.map {
                        "in \(NumberText.printf($0.lowerBound, 3))-\(NumberText.printf($0.upperBound, 3)) s"
                    } ?? "at \(NumberText.printf(mark.seconds, 3)) s"
                if repeats.contains(i) {
                    print("\(mark.name) \(place) (\(mark.at)): the same movement as an earlier mark, taught once")
                } else if let f {
                    taught += 1
                    print(
                        "\(mark.name) \(place): example \(NumberText.printf(f.start, 3))-\(NumberText.printf(f.end, 3)) s (\(NumberText.printf(f.end - f.start, 2)) s)"
                    )
                } else {
                    print(
                        "\(mark.name) \(place) (\(mark.at)): no movement \(mark.span == nil ? "within 0.4 s of the mark" : "in that stretch"), not taught"
                    )
                }
            }
        }
        if poses != nil || !poseLines.isEmpty {
            let list = poseItems
            guard !list.isEmpty else {
                throw RuntimeFailure("\(poses ?? "--pose"): no poses (one line per pose: START END NAME VALUE)")
            }
            let t0 = data.times[0]
            for pose in list {
                let held = data.gravity.filter { $0.t >= t0 + pose.start && $0.t <= t0 + pose.end }.map(\.g)
                guard
                    let spread = learned.addPose(
                        pose.name, value: pose.value, samples: held,
                        origin: "\(name) \(NumberText.printf(pose.start, 3))-\(NumberText.printf(pose.end, 3)) s")
                else {
                    print(
                        "pose \(pose.name) = \(Self.f(pose.value)) from \(NumberText.printf(pose.start, 3))-\(NumberText.printf(pose.end, 3)) s (\(pose.at)): no orientation in that stretch, not taught"
                    )
                    continue
                }
                taught += 1
                let still = spread * 180 / .pi
                print(
                    "pose \(pose.name) = \(Self.f(pose.value)) from \(NumberText.printf(pose.start, 3))-\(NumberText.printf(pose.end, 3)) s: \(held.count) frames, held within \(NumberText.printf(still, 1))°\(still > 20 ? " (the wrist moved: hold it still for a pose)" : "")"
                )
            }
        }
        if let e = learned.validate() { throw RuntimeFailure("'\(model)': \(e)") }
        guard taught > 0 else {
            throw RuntimeFailure(
                "nothing taught from '\(takePath)': no mark fell on a movement (check the seconds: counted from the take's first row)"
            )
        }
        do { try GestureModelFile.write(learned, to: model) } catch let p as GestureModelFile.Problem {
            throw RuntimeFailure(p.description)
        }
        printError("teach: \(taught) taught from \(takePath) -> \(model)")
        print(Self.report(learned, file: model), terminator: "")
    }

    static func f(_ v: Double) -> String { NumberText.whole(v, limit: 1e9, significant: 6) }

    /// What the file holds, for a person: each gesture's examples, how far apart they are, its
    /// threshold; each pose's points.
    static func report(_ m: LearnedModel, file: String) -> String {
        let g = m.gestures.classes.count, p = m.poses.count
        var out = "\(file): \(g) gesture\(g == 1 ? "" : "s"), \(p) pose\(p == 1 ? "" : "s")\n"
        if g == 1 {
            // measured on other people's takes (docs/gestures.md): a gesture taught alone fires
            // on movements like it that the same gestures taught together tell apart
            out +=
                "  one gesture: other movements like it may play it too; teach the others you make as gestures of their own (one with no mapping plays nothing, but takes its own movements)\n"
        }
        for c in m.gestures.classes {
            let lengths = c.examples.map { NumberText.printf($0.duration, 2) }.joined(separator: ", ")
            out +=
                "  gesture:\(c.name): \(c.examples.count) example\(c.examples.count == 1 ? "" : "s") (\(lengths) s)\(c.gyro ? ", with rotation rate" : ", accelerometer only")\n"
            out +=
                "    threshold \(NumberText.printf(c.threshold, 4))\(c.tune != 1 ? " x tune \(NumberText.printf(c.tune, 2)) = \(NumberText.printf(c.effectiveThreshold, 4))" : "")"
            if let lo = c.spread.min(), let hi = c.spread.max() {
                out += "; examples \(NumberText.printf(lo, 4))-\(NumberText.printf(hi, 4)) from their nearest sibling"
            } else {
                out += "; one example: teach two or more so that the threshold is learned from how they differ"
            }
            if c.rest.isFinite { out += "; a device held still \(NumberText.printf(c.rest, 4))" }
            out += "\n"
            let which = c.tune != 1 ? "the learned threshold" : "the threshold"
            switch c.bound {
            case .floor:
                out +=
                    "    the examples are much alike: \(which) is at its floor (\(NumberText.printf(GestureModel.restFloor, 2)) of a device held still); if the same movement made a little differently is missed, teach one or two made differently (faster, softer, at another angle)\n"
            case .cap:
                out +=
                    "    the examples differ more than a device held still differs from them: \(which) is capped at \(NumberText.printf(GestureModel.restFraction, 2)) of that, so movements like the farthest example may be missed; check that each mark is on the movement, or teach more examples so that each has a close sibling\n"
            case .oneExample, .examples: break
            }
            if c.rest.isFinite && c.effectiveThreshold >= c.rest {
                out +=
                    "    tuned to \(NumberText.printf(c.effectiveThreshold, 4)), at or past the distance of a device held still (\(NumberText.printf(c.rest, 4))): holding still or any movement may fire it; lower tune\n"
            }
            for e in c.examples { out += "    from \(e.origin)\n" }
        }
        for q in m.poses {
            out +=
                "  pose:\(q.name): \(q.points.count) point\(q.points.count == 1 ? "" : "s")\(q.points.count < 2 ? " (teach a second pose to move between them)" : "")\n"
            for (i, pt) in q.points.enumerated() {
                var apart = ""
                if i > 0 {
                    let d = acos(min(max(pt.gravity.dot(q.points[i - 1].gravity), -1), 1)) * 180 / .pi
                    apart = ", \(NumberText.printf(d, 1))° from the one before"
                }
                out +=
                    "    \(f(pt.value)) at gravity (\(NumberText.printf(pt.gravity.x, 3)), \(NumberText.printf(pt.gravity.y, 3)), \(NumberText.printf(pt.gravity.z, 3)))\(apart), from \(pt.origin)\n"
            }
        }
        return out
    }

    /// Where a take's movements are recognised (time, match, strength), and each gesture's
    /// nearest miss.
    static func recognition(_ model: GestureModel, take t: Take, name: String) -> String {
        var r = GestureRecognizer(model: model)
        let t0 = t.times[0]
        var out = ""
        var total = 0
        for i in t.times.indices {
            r.feed(accel: t.accel[i], gyro: t.gyro[i], at: t.times[i])
            for c in 0..<r.classCount where r.fired[c] > 0 {
                total += 1
                out +=
                    "gesture:\(model.classes[c].name) at \(NumberText.printf(t.times[i] - t0, 3)) s: match \(NumberText.printf(r.lastRatio[c], 2)) of its threshold, strength \(NumberText.printf(r.fired[c], 2))\n"
            }
        }
        out += "\(name): \(total) recognised in \(NumberText.printf(t.times.last! - t0, 1)) s\n"
        for (c, k) in model.classes.enumerated() {
            let miss =
                r.nearestMiss[c].isFinite
                ? "nearest miss \(NumberText.printf(r.nearestMiss[c], 2)) x the threshold at \(NumberText.printf(r.nearestMissTime[c] - t0, 3)) s"
                : "no near miss"
            out += "  gesture:\(k.name): \(r.counts[c]) recognised; \(miss)\n"
        }
        return out
    }
}
