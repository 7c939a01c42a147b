import SensorWahCore
import SensorWahEngine
import SensorWahIO
#if canImport(Glibc)
    import Glibc
#endif

/// Changes a configuration file the way a person would: one mapping line edited in place, the
/// rest of the file (comments, order, spacing) untouched; the result is checked before it
/// replaces the file, atomically.
enum ConfigEditor {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func setRange(in path: String, mapping index: Int, min: Double, max: Double, centre: Double?) throws {
        let file = try ConfigFile(path: path)
        guard index >= 1, index <= file.mappings.count else {
            throw Failure(
                description:
                    "\(path) has \(file.mappings.count) mapping\(file.mappings.count == 1 ? "" : "s") under mappings:, not \(index)"
            )
        }
        let target = file.mappings[index - 1]
        let text = try read(path)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard target.line >= 1, target.line <= lines.count, let r = lines[target.line - 1].range(of: target.text) else {
            throw Failure(description: "\(path):\(target.line): cannot find the mapping '\(target.text)' to edit")
        }
        func n(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        var words = target.text.split(separator: " ").map(String.init).filter {
            let k = $0.lowercased()
            return !k.hasPrefix("range=") && !k.hasPrefix("centre=") && !k.hasPrefix("center=")
        }
        words.append("range=\(n(min))..\(n(max))")
        if let c = centre { words.append("centre=\(n(c))") }
        let edited = words.joined(separator: " ")
        _ = try Mapping(parsing: edited)  // never write a mapping that does not parse
        lines[target.line - 1].replaceSubrange(r, with: edited)
        try replace(path, with: lines.joined(separator: "\n"))
    }

    /// Writes `texts` as the list of mappings (the top-level `mappings:`, or scene `scene`'s):
    /// an entry whose text is unchanged keeps its line (and comment), a changed one is edited in
    /// place, extra entries are removed and new ones added after the last in the same style.
    static func setMappings(in path: String, scene: String?, texts: [String]) throws {
        let file = try ConfigFile(path: path)
        guard !texts.isEmpty else { throw Failure(description: "a configuration keeps at least one mapping") }
        for t in texts {
            if let c = MappingLimits.forbiddenCharacter(in: t) {
                throw Failure(
                    description:
                        "the mapping \"\(t.unicodeScalars.filter { $0.properties.generalCategory != .control }.map(String.init).joined())\" holds \(c): a mapping is one line; not saved"
                )
            }
        }
        let entries: [(text: String, line: Int)]
        let where_: String
        if let name = scene {
            guard let s = file.scenes.first(where: { $0.name == name }) else {
                throw Failure(description: "\(path) has no scene '\(name)'")
            }
            entries = s.mappings; where_ = "scenes: \(name):"
        } else {
            entries = file.mappings; where_ = "mappings:"
        }
        let text = try read(path)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if entries.isEmpty {
            guard scene == nil, file.mappingsLine == nil else {
                throw Failure(description: "\(path): \(where_) has no entry to follow")
            }
            if lines.last == "" { lines.removeLast() }
            lines += ["", "mappings:"] + texts.map { "  - \($0)" } + [""]
            return try replace(path, with: lines.joined(separator: "\n"), expecting: texts, scene: scene)
        }
        guard Set(entries.map(\.line)).count == entries.count,
            entries.allSatisfy({ lines.indices.contains($0.line - 1) })
        else {
            throw Failure(
                description:
                    "\(path): \(where_) is written on one line ([a, b]); write one mapping per line ('- MAPPING') to save from the control page"
            )
        }
        let last = entries[entries.count - 1]
        guard let lastRange = lines[last.line - 1].range(of: last.text) else {
            throw Failure(description: "\(path):\(last.line): cannot find the mapping '\(last.text)' to follow")
        }
        let prefix = String(lines[last.line - 1][..<lastRange.lowerBound])
        let quote = prefix.last.map { $0 == "\"" || $0 == "'" ? String($0) : "" } ?? ""
        // edits first (every line number still holds), then additions after the last entry,
        // then removals from the end
        for i in 0..<min(entries.count, texts.count) where entries[i].text != texts[i] {
            let e = entries[i]
            guard let r = lines[e.line - 1].range(of: e.text) else {
                throw Failure(description: "\(path):\(e.line): cannot find the mapping '\(e.text)' to edit")
            }
            lines[e.line - 1].replaceSubrange(r, with: texts[i])
        }
        if texts.count > entries.count {
            lines.insert(contentsOf: texts[entries.count...].map { prefix + $0 + quote }, at: last.line)
        }
        for e in entries.dropFirst(texts.count).reversed() { lines.remove(at: e.line - 1) }
        try replace(path, with: lines.joined(separator: "\n"), expecting: texts, scene: scene)
    }

    /// Sets `key: value` in a top-level section (added if missing), keeping everything else.
    static func setValue(in path: String, section: String, key: String, value: String, comment: String) throws {
        let text = try read(path)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let entry = { (indent: String) in "\(indent)\(key): \(value)   # \(comment)" }
        if let s = lines.firstIndex(where: { $0.hasPrefix("\(section):") }) {
            var indent = "  "
            var i = s + 1
            var found: Int?
            while i < lines.count {
                let l = lines[i]
                let trimmed = l.drop { $0 == " " || $0 == "\t" }
                if !l.isEmpty && l.first != " " && l.first != "\t" && l.first != "#" { break }  // the next section
                if !trimmed.isEmpty && !trimmed.hasPrefix("#") {
                    indent = String(l.prefix { $0 == " " || $0 == "\t" })
                    if trimmed.hasPrefix("\(key):") { found = i; break }
                }
                i += 1
            }
            if let f = found { lines[f] = entry(indent) } else { lines.insert(entry(indent), at: s + 1) }
        } else {
            if lines.last == "" { lines.removeLast() }
            lines += ["", "\(section):", entry("  "), ""]
        }
        try replace(path, with: lines.joined(separator: "\n"))
    }

    /// The file's text, read as a configuration file is (a regular file, within the cap).
    static func read(_ path: String) throws -> String {
        do { return try CarefulFile.readText(path, what: "the configuration file") } catch {
            throw Failure(description: error.description)
        }
    }

    /// Replaces the file with `out` once it loads and reads back as the same mappings, through
    /// a new file of a random name in the target's folder renamed over it (CarefulFile.replace:
    /// the mode kept, a symbolic link kept a link and its target written, nothing planted at a
    /// predictable name followed).
    static func replace(_ path: String, with out: String, expecting texts: [String]? = nil, scene: String? = nil) throws
    {
        let loaded = try ConfigFile(path: path, text: out)  // never a file that does not load
        if let texts {
            let back =
                scene.map { name in loaded.scenes.first { $0.name == name }?.mappings.map(\.text) ?? [] }
                ?? loaded.mappings.map(\.text)
            guard back == texts else {
                throw Failure(
                    description:
                        "\(path): the mappings would read back differently from what runs (\(back.count) read back for \(texts.count)); not saved"
                )
            }
        }
        do { try CarefulFile.replace(path, with: Array(out.utf8)) } catch {
            throw Failure(description: error.description)
        }
    }
}
