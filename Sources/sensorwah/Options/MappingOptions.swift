import Foundation
import ArgumentParser
import SensorWahCore
import SensorWahIO

struct MappingOptions: ParsableArguments {
    @Option(
        name: .customLong("map"),
        help: ArgumentHelp(
            "A mapping, e.g. \"accel.x cc=11 ch=1 range=-1..1 bipolar smooth=40\" (repeatable; see `sensorwah mappings`).",
            valueName: "MAPPING"))
    var maps: [String] = []
    @Option(help: ArgumentHelp("A file with one mapping per line (# starts a comment).", valueName: "FILE"))
    var mapFile: String?
    /// The --config file's mappings, one per line, in one argument: a list of any length is one
    /// option to parse (each `--map` of a long list costs the parser more than the one before).
    @Option(name: .customLong("config-mappings"), help: .private)
    var configMappings: String?
    @Option(
        help: ArgumentHelp(
            "Run only mapping N (1 = the first); with MIDI out, a DAW's MIDI learn then sees exactly one controller.",
            valueName: "N"))
    var solo: Int?
    @Option(
        help: ArgumentHelp(
            "Where tilt.* comes from: fused (our fusion of the raw accelerometer and gyro) or device (the attitude the app sends, e.g. SensorLog's motionQuaternion).",
            valueName: "fused|device"))
    var tiltSource = "fused"
    @Option(
        help: ArgumentHelp(
            "A gesture that captures the rest orientation for `zero` mappings: after it, the next half second the wrist is held still becomes the rest (SIGUSR1 does the same).",
            valueName: "flick|shake|tap"))
    var zeroGesture: String?
    @Option(
        help: ArgumentHelp(
            "A saved rest orientation for `zero` mappings (the gravity direction X,Y,Z; listen --config saves it there when you re-zero).",
            valueName: "X,Y,Z"))
    var restGravity: String?
    @Option(name: .customLong("gesture-setting"), parsing: .singleValue, help: GestureSettings.optionHelp)
    var gestureSettings: [String] = []
    @Option(
        name: .customLong("gestures"),
        help: ArgumentHelp(
            "Gestures and poses taught by example (a file `sensorwah teach` writes), recognised in the stream: sources gesture:NAME, gesture:NAME.progress, pose:NAME. With listen it is reloaded when it changes and taught into live (t in the live view, Teach on the control page), and may not exist yet.",
            valueName: "FILE"))
    var gesturesFile: String?

    /// The taught gestures and poses (`--gestures`), nil without the option. With
    /// `missingIsEmpty` (listen, which can teach live), a file not made yet is an empty model.
    func learnedModel(missingIsEmpty: Bool = false) throws -> LearnedModel? {
        guard let path = gesturesFile else { return nil }
        if missingIsEmpty && !FileManager.default.fileExists(atPath: path) { return LearnedModel() }
        do { return try GestureModelFile.read(path) } catch let p as GestureModelFile.Problem {
            throw RuntimeFailure(p.description)
        }
    }

    /// Gives `gesture:` and `pose:` sources their slots in the model (`--gestures`).
    func resolveLearned(_ mappings: inout [Mapping]) throws {
        guard let first = mappings.first(where: { if case .learned = $0.source { return true } else { return false } })
        else { return }
        if let path = gesturesFile, !FileManager.default.fileExists(atPath: path) {
            throw ValidationError(
                "\(first.source): \(path) does not exist yet: teach it first (sensorwah teach \(path) TAKE --marks MARKS, or live: t in the live view, Teach on the control page)"
            )
        }
        if let error = LearnedModel.resolve(&mappings, against: try learnedModel(), file: gesturesFile) {
            throw ValidationError(error)
        }
    }

    /// Tilt and gesture settings for every sender's motion stage.
    func motionSettings(missingModelIsEmpty: Bool = false) throws -> MotionSettings {
        var m = MotionSettings()
        guard let src = TiltSource(rawValue: tiltSource.lowercased()) else {
            throw ValidationError("--tilt-source '\(tiltSource)': fused or device")
        }
        m.tiltSource = src
        m.gestures = try GestureSettings.parsing(gestureSettings)
        m.learned = try learnedModel(missingIsEmpty: missingModelIsEmpty)
        if let z = zeroGesture {
            guard let g = Gesture(name: z) else { throw ValidationError("--zero-gesture '\(z)': flick, shake or tap") }
            m.zeroGesture = g
        }
        if let r = restGravity {
            let parts = r.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2],
                x.isFinite, y.isFinite, z.isFinite, x * x + y * y + z * z > 1e-6
            else {
                throw ValidationError("--rest-gravity '\(r)': three numbers X,Y,Z, not all zero")
            }
            m.rest = Vector3(x, y, z)
        }
        return m
    }

    func validate() throws {
        if let n = solo, !(1...1000).contains(n) { throw ValidationError("--solo counts from 1") }
    }

    /// The mappings to run: every one, or only the `--solo` one.
    func mappings() throws -> [Mapping] {
        guard let n = solo else { return try allMappings() }
        return [try mapping(number: n, called: "--solo \(n)")]
    }

    /// Mapping `number` (1 = the first) of every mapping given, for `--solo N` and the commands
    /// that work on one (`learn N`, `calibrate N`); a number past the last is refused, naming it
    /// as `called` and saying how many there are.
    func mapping(number: Int, called: String? = nil) throws -> Mapping {
        let all = try allMappings()
        guard number >= 1, number <= all.count else {
            throw ValidationError(
                "\(called ?? "mapping \(number)"): there \(all.count == 1 ? "is 1 mapping" : "are \(all.count) mappings")"
            )
        }
        return all[number - 1]
    }

    /// Every mapping given, in order (the default mapping when none is).
    /// The mappings' texts as given (`--map`, then `--map-file`'s lines); empty: the default.
    func givenTexts() throws -> [String] {
        var lines = maps
        if let c = configMappings { lines += c.split(separator: "\n").map(String.init) }
        if let path = mapFile {
            guard let text = readWholeFile(path) else {
                throw RuntimeFailure("cannot read mapping file '\(path)'")
            }
            for raw in text.split(whereSeparator: \.isNewline) {
                let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                if !line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                    lines.append(String(line).trimmingCharacters(in: .whitespaces))
                }
            }
        }
        return lines
    }

    /// The texts of what `mappings()` runs, one per mapping (the default's full syntax when none
    /// was given), for the control page.
    func texts() throws -> [String] {
        let lines = try givenTexts()
        if lines.isEmpty { return [Mapping.default.syntax] }
        if let n = solo, n >= 1, n <= lines.count { return [lines[n - 1]] }
        return lines
    }

    /// One mapping from its text as the command line would run it (its `gesture:` and `pose:`
    /// sources resolved against `--gestures`, unless `learned` is false: the control page
    /// resolves them against the model running); the command line's message when it does not parse.
    func parseOne(_ line: String, learned: Bool = true) throws -> Mapping {
        var m: [Mapping]
        do { m = [try Mapping(parsing: line)] } catch let e as MappingSyntaxError {
            throw ValidationError("mapping \"\(line)\": \(e.message)")
        }
        if learned { try resolveLearned(&m) }
        return m[0]
    }

    func allMappings() throws -> [Mapping] {
        let lines = try givenTexts()
        if lines.isEmpty { return [.default] }
        var parsed = try lines.map { line in
            do { return try Mapping(parsing: line) } catch let e as MappingSyntaxError {
                throw ValidationError("mapping \"\(line)\": \(e.message)")
            }
        }
        // osc: sources share the frame's custom slots
        if let error = OSCRoutes.assign(&parsed).error { throw ValidationError(error) }
        try resolveLearned(&parsed)
        return parsed
    }
}
