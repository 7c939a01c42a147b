import SensorWahCore
import SensorWahIO
import Yams

/// A configuration file a musician edits (YAML): read, checked key by key, and turned into the
/// command-line options it stands for. Every error names the file, the line and the key, and
/// says what is allowed.
struct ConfigFile {
    struct Entry {
        var section: String
        var key: ConfigSchema.Key
        var values: [String]
        var line: Int
    }

    struct Problem: Error, CustomStringConvertible {
        var path: String
        var line: Int
        var key: String?
        var message: String
        /// The column (from 1) of a YAML syntax mistake; nil for a mistake in a key's value.
        var column: Int? = nil
        var description: String {
            "\(path):\(line)\(column.map { ":\($0)" } ?? ""): \(key.map { "\($0): " } ?? "")\(message)"
        }
    }

    var path: String
    var entries: [Entry] = []
    /// Mapping lines and where they are.
    var mappings: [(text: String, line: Int)] = []
    var mappingsLine: Int?
    /// Named sets of mappings, in file order, each with its own effect chain if it names one
    /// (`chain:` or `fx-preset:` under the scene); and the one to start with.
    var scenes: [(name: String, line: Int, mappings: [(text: String, line: Int)], chain: SceneChain?)] = []
    /// `chain:` (the text of `--fx`; a list is joined with ` > `) or `fx-preset:`, and `fx-cc:`
    /// (`CC=EFFECT.PARAM` each, as `--fx-cc` takes them), with their lines.
    var chain: (text: String, line: Int)?
    var fxPreset: (name: String, line: Int)?
    var fxCC: [(text: String, line: Int)] = []

    /// A scene's own chain: a chain's text or a preset's name.
    struct SceneChain: Equatable {
        var text: String
        var preset: Bool
        var line: Int
    }
    var startScene: (name: String, line: Int)?

    /// Reads `path` when it is a regular file of at most `CarefulFile.maxBytes` (a FIFO, a
    /// directory or a device in its place is refused at once, never waited on).
    init(path: String) throws {
        let text: String
        do { text = try CarefulFile.readText(path, what: "the configuration file") } catch {
            throw Problem(path: path, line: 0, key: nil, message: error.description)
        }
        try self.init(path: path, text: text)
    }

    init(path: String, text: String) throws {
        self.path = path
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch let e as YamlError {
            let m = Self.mistake(in: e, text: text)
            // a tab where YAML wants spaces: libyaml's words for it do not say so
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            if let k = lines.prefix(max(m.line, 1)).firstIndex(where: {
                $0.prefix { $0 == " " || $0 == "\t" }.contains("\t")
            }) {
                let column = lines[k].prefix { $0 == " " || $0 == "\t" }.firstIndex(of: "\t").map {
                    lines[k].distance(from: lines[k].startIndex, to: $0) + 1
                }
                throw Problem(
                    path: path, line: k + 1, key: nil,
                    message:
                        "a tab in the indentation: YAML indents with spaces only (replace the tab with spaces): `\(String(lines[k].drop { $0 == " " || $0 == "\t" }))`",
                    column: column)
            }
            throw Problem(path: path, line: m.line, key: nil, message: m.message, column: m.column)
        }
        guard let root else { return }  // an empty file: the built-in defaults
        guard let top = root.mapping else {
            throw Problem(
                path: path, line: root.mark?.line ?? 1, key: nil,
                message:
                    "expected sections (\(ConfigSchema.sectionNames.joined(separator: ", "))), each followed by a colon"
            )
        }
        for (k, v) in top {
            guard let name = k.string else { continue }
            let line = k.mark?.line ?? 0
            if name == ConfigSchema.mappingsKey {
                mappingsLine = line
                mappings = try Self.mappingList(v, path: path, line: line, key: name)
                continue
            }
            if name == ConfigSchema.scenesKey {
                guard let named = v.mapping else {
                    throw Problem(
                        path: path, line: line, key: name,
                        message: "expected scenes by name, each with its list of mappings, e.g. verse: [accel.x cc=11]")
                }
                for (sk, sv) in named {
                    guard let sceneName = sk.string, !sceneName.isEmpty else { continue }
                    let sl = sk.mark?.line ?? line
                    let key = "scenes.\(sceneName)"
                    // a list of mappings, or mappings: with the scene's chain: / fx-preset:
                    if let parts = sv.mapping {
                        var list: [(text: String, line: Int)] = []
                        var own: SceneChain?
                        for (pk, pv) in parts {
                            let pl = pk.mark?.line ?? sl
                            switch pk.string {
                            case ConfigSchema.mappingsKey:
                                list = try Self.mappingList(pv, path: path, line: pl, key: "\(key).mappings")
                            case ConfigSchema.chainKey:
                                own = SceneChain(
                                    text: try Self.chainText(pv, path: path, line: pl, key: "\(key).chain"),
                                    preset: false, line: pl)
                            case ConfigSchema.presetKey:
                                guard let name = pv.scalar?.string, !name.isEmpty else {
                                    throw Problem(
                                        path: path, line: pl, key: "\(key).fx-preset",
                                        message: "expects the name of a chain preset (see sensorwah mappings)")
                                }
                                own = SceneChain(text: name, preset: true, line: pl)
                            default:
                                throw Problem(
                                    path: path, line: pl, key: "\(key).\(pk.string ?? "")",
                                    message:
                                        "unknown key; a scene holds mappings: and, for its own effect chain, chain: or fx-preset:"
                                )
                            }
                        }
                        scenes.append((sceneName, sl, list, own))
                        continue
                    }
                    scenes.append((sceneName, sl, try Self.mappingList(sv, path: path, line: sl, key: key), nil))
                }
                continue
            }
            if name == ConfigSchema.chainKey {
                chain = (try Self.chainText(v, path: path, line: line, key: name), line)
                continue
            }
            if name == ConfigSchema.presetKey {
                guard let s = v.scalar?.string, !s.isEmpty else {
                    throw Problem(
                        path: path, line: line, key: name,
                        message: "expects the name of a chain preset, e.g. fuzz-wah (sensorwah mappings lists them)")
                }
                fxPreset = (s, line)
                continue
            }
            if name == ConfigSchema.fxCCKey {
                if case .scalar(let s) = v, s.string.isEmpty || s.string == "~" || s.string == "null" { continue }
                guard let pairs = v.mapping else {
                    throw Problem(
                        path: path, line: line, key: name,
                        message:
                            "expects controller numbers with the parameter each moves, e.g. { 20: tremolo.rate, 21: delay.mix }"
                    )
                }
                for (ck, cv) in pairs {
                    let cl = ck.mark?.line ?? line
                    guard let cc = ck.string, let target = cv.scalar?.string, !target.isEmpty else {
                        throw Problem(
                            path: path, line: cl, key: name,
                            message: "each entry is CC: EFFECT.PARAM, e.g. 20: tremolo.rate")
                    }
                    fxCC.append(("\(cc)=\(target)", cl))
                }
                continue
            }
            if name == ConfigSchema.sceneKey {
                guard let s = v.string, !s.isEmpty else {
                    throw Problem(
                        path: path, line: line, key: name, message: "expects the name of a scene to start with")
                }
                startScene = (s, line)
                continue
            }
            guard let section = ConfigSchema.section(name) else {
                throw Problem(
                    path: path, line: line, key: name,
                    message: "unknown section; allowed: \(ConfigSchema.sectionNames.joined(separator: ", "))")
            }
            // an empty section
            if case .scalar(let s) = v, s.string.isEmpty || s.string == "~" || s.string == "null" { continue }
            guard let keys = v.mapping else {
                throw Problem(
                    path: path, line: line, key: name,
                    message: "expected keys under it, e.g. \(section.keys[0].name): ...")
            }
            for (kk, vv) in keys {
                guard let keyName = kk.string else { continue }
                let kline = kk.mark?.line ?? line
                let qualified = "\(name).\(keyName)"
                guard let key = section.keys.first(where: { $0.name == keyName }) else {
                    throw Problem(
                        path: path, line: kline, key: qualified,
                        message: "unknown key; allowed in \(name): \(section.keys.map(\.name).joined(separator: ", "))")
                }
                let values = try Self.values(vv, key: key, path: path, line: kline, qualified: qualified)
                entries.append(Entry(section: name, key: key, values: values, line: kline))
            }
        }
        if let c = chain, let p = fxPreset {
            throw Problem(
                path: path, line: max(c.line, p.line),
                key: c.line > p.line ? ConfigSchema.chainKey : ConfigSchema.presetKey,
                message:
                    "the file names a chain twice (chain: on line \(c.line), fx-preset: on line \(p.line)); keep one")
        }
    }

    /// An effect chain as the file writes it: one line (`fuzz drive=0.8 > wah`) or a list of
    /// effects, one per line (joined with ` > `).
    static func chainText(_ v: Node, path: String, line: Int, key: String) throws -> String {
        if let s = v.scalar?.string, !s.isEmpty, s != "~", s != "null" { return s }
        if let seq = v.sequence, !seq.isEmpty {
            return try seq.map { item in
                guard let s = item.scalar?.string, !s.isEmpty else {
                    throw Problem(
                        path: path, line: item.mark?.line ?? line, key: key,
                        message: "each effect is one line of text, e.g. - tremolo rate=5 depth=0.7")
                }
                return s
            }.joined(separator: " > ")
        }
        throw Problem(
            path: path, line: v.mark?.line ?? line, key: key,
            message: "expects a chain, e.g. \"fuzz drive=0.8 > wah > delay time=0.3\", or a list of effects")
    }

    /// A list of mapping lines (`- accel.x cc=11 ...`), each with its line.
    static func mappingList(_ v: Node, path: String, line: Int, key: String) throws -> [(text: String, line: Int)] {
        switch v {
        case .sequence(let seq):
            guard seq.count <= MappingLimits.maxPerList else {
                throw Problem(
                    path: path, line: line, key: key,
                    message:
                        "\(seq.count) mappings; a list holds at most \(MappingLimits.maxPerList): the file is not used")
            }
            return try seq.map { item in
                guard let s = item.string, !s.isEmpty, item.scalar != nil else {
                    throw Problem(
                        path: path, line: item.mark?.line ?? line, key: key,
                        message: "each mapping is one line of text, e.g. - accel.x cc=11 range=-1..1 bipolar")
                }
                if let c = MappingLimits.forbiddenCharacter(in: s) {
                    throw Problem(
                        path: path, line: item.mark?.line ?? line, key: key,
                        message: "a mapping holds \(c): each mapping is one line of text")
                }
                return (s, item.mark?.line ?? line)
            }
        case .scalar(let s) where s.string.isEmpty || s.string == "~" || s.string == "null":
            return []
        default:
            throw Problem(
                path: path, line: v.mark?.line ?? line, key: key,
                message: "expected a list of mappings, one per line starting with '- '")
        }
    }

    /// The scenes' mappings, parsed; an error names the file, the line and the scene.
    func parsedScenes() throws -> [(name: String, mappings: [Mapping], chain: SceneChain?)] {
        if let start = startScene, !scenes.contains(where: { $0.name == start.name }) {
            throw Problem(
                path: path, line: start.line, key: ConfigSchema.sceneKey,
                message: "no scene '\(start.name)'; scenes: \(scenes.map(\.name).joined(separator: ", "))")
        }
        return try scenes.map { scene in
            guard !scene.mappings.isEmpty else {
                throw Problem(
                    path: path, line: scene.line, key: "scenes.\(scene.name)",
                    message: "a scene needs at least one mapping")
            }
            return (
                scene.name,
                try scene.mappings.map { m in
                    do { return try Mapping(parsing: m.text) } catch let e as MappingSyntaxError {
                        throw Problem(path: path, line: m.line, key: "scenes.\(scene.name)", message: e.message)
                    }
                }, scene.chain
            )
        }
    }

    static func values(_ v: Node, key: ConfigSchema.Key, path: String, line: Int, qualified: String) throws -> [String]
    {
        func fail() -> Problem {
            Problem(path: path, line: v.mark?.line ?? line, key: qualified, message: "expects \(key.kind.expects)")
        }
        switch key.kind {
        case .list:
            if let seq = v.sequence {
                return try seq.map { item in
                    guard let s = item.string, item.scalar != nil else { throw fail() }
                    return s
                }
            }
            guard let s = v.scalar?.string else { throw fail() }
            return s.isEmpty || s == "~" || s == "null" ? [] : [s]
        case .flag:
            guard let s = v.scalar?.string else { throw fail() }
            switch s.lowercased() {
            case "true", "yes", "on": return ["true"]
            case "false", "no", "off": return []
            default: throw fail()
            }
        case .number:
            guard let s = v.scalar?.string, Double(s) != nil else { throw fail() }
            return [s]
        case .text:
            guard let s = v.scalar?.string else { throw fail() }
            return s == "~" || s == "null" ? [] : [s]
        }
    }

    /// The options this file gives `command`, leaving out what `given` (the options on the
    /// command line) already says for lists, and where each came from.
    func arguments(for command: String, given: Set<String>) -> (
        args: [String], origin: [String: (line: Int, key: String)]
    ) {
        var args: [String] = []
        var origin: [String: (Int, String)] = [:]
        for e in entries {
            guard let section = ConfigSchema.section(e.section), section.commands.contains(command),
                e.key.only?.contains(command) ?? true
            else { continue }
            let opt = e.key.option
            if e.key.kind == .list && given.contains(opt) { continue }
            if e.key.kind == .flag && e.values.isEmpty { continue }
            switch e.key.kind {
            case .flag: args.append("--\(opt)")
            // --opt=VALUE: a value that starts with '-' (a negative number, rest-gravity's
            // -0.1,0.2,-0.97) is not read as an option
            default: for v in e.values { args.append("--\(opt)=\(v)") }
            }
            origin[opt] = (e.line, "\(e.section).\(e.key.name)")
        }
        if ConfigSchema.chainCommands.contains(command) && !given.contains("fx") && !given.contains("fx-preset") {
            if let c = chain {
                args.append("--fx=\(c.text)")
                origin["fx"] = (c.line, ConfigSchema.chainKey)
            } else if let p = fxPreset {
                args.append("--fx-preset=\(p.name)")
                origin["fx-preset"] = (p.line, ConfigSchema.presetKey)
            }
        }
        if ConfigSchema.chainCommands.contains(command) && command != "render" && !given.contains("fx-cc") {
            for c in fxCC { args.append("--fx-cc=\(c.text)") }
            if let first = fxCC.first { origin["fx-cc"] = (first.line, ConfigSchema.fxCCKey) }
        }
        let takesMappings: Set<String> = ["replay", "listen", "render", "learn", "calibrate", "plot"]
        if takesMappings.contains(command) && !given.contains("map") && !given.contains("map-file") {
            // mapping texts hold no newline (mappingList refuses one)
            if !mappings.isEmpty { args.append("--config-mappings=" + mappings.map(\.text).joined(separator: "\n")) }
        }
        return (args, origin)
    }

    /// The line of a mapping written in this file.
    func line(ofMapping text: String) -> Int? { mappings.first { $0.text == text }?.line }

    /// Where a YAML syntax error's mistake is, and the message naming it with the offending line.
    /// libyaml's scanner reports the token it was reading as the context (a quote never closed)
    /// and the place it gave up as the problem (the end of the file): the mistake is at the
    /// context's mark. A key whose colon is missing reads on as a plain scalar into the next
    /// line, whose colon is then "not allowed": the mistake is the line the scalar began on. The
    /// parser's and composer's context is the enclosing block (a section's first line), so there
    /// the problem's mark is the token that does not fit.
    static func mistake(in e: YamlError, text: String) -> (line: Int, column: Int?, message: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func indent(_ l: Substring) -> Int { l.prefix { $0 == " " }.count }
        func trimmed(_ l: Substring) -> String {
            String(
                l.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
        }
        var line: Int, column: Int
        var what: String
        switch e {
        case .scanner(let context, let problem, let mark, _):
            (line, column, what) = (mark.line, mark.column, problem)
            if let c = context, c.mark.line >= 1 {
                (line, column, what) = (c.mark.line, c.mark.column, "\(problem) \(c.text)")
            } else if problem.hasPrefix("mapping values are not allowed"), mark.line >= 2, mark.line <= lines.count {
                // the plain scalar that ran into this colon: the lines above it with no colon
                var k = mark.line - 1, start: Int? = nil
                while k >= 1 {
                    let t = trimmed(lines[k - 1])
                    if t.isEmpty || t.hasPrefix("#") { k -= 1; continue }
                    guard !t.contains(":"), !t.hasPrefix("-") else { break }
                    start = k
                    k -= 1
                }
                if let s = start {
                    (line, column) = (s, indent(lines[s - 1]) + 1)
                    what = "a key without its ':' (\(problem) on line \(mark.line))"
                }
            }
        case .parser(let context, let problem, let mark, _), .composer(let context, let problem, let mark, _):
            (line, column, what) = (mark.line, mark.column, problem)
            if let c = context, c.mark.line >= 1, c.mark.line != mark.line {
                what += " (\(c.text) at line \(c.mark.line))"
            }
            // keys of one section line up: name the line above when the two are indented apart
            if mark.line >= 2, mark.line <= lines.count {
                var k = mark.line - 1
                while k >= 1, trimmed(lines[k - 1]).isEmpty || trimmed(lines[k - 1]).hasPrefix("#") { k -= 1 }
                if k >= 1, !trimmed(lines[k - 1]).hasSuffix(":") {
                    let above = indent(lines[k - 1]), here = indent(lines[mark.line - 1])
                    if above != here, above > 0 {
                        what +=
                            "; line \(k) is indented by \(above) spaces and this one by \(here): keys of one section line up"
                    }
                }
            }
        default:
            return (1, nil, "not valid YAML: \(e)")
        }
        var message = "not valid YAML: \(what)"
        if line >= 1, line <= lines.count {
            let offending = trimmed(lines[line - 1])
            if !offending.isEmpty { message += ": `\(offending)`" }
        }
        return (max(line, 1), column >= 1 ? column : nil, message)
    }
}
