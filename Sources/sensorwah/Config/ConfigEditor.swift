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
            throw Failure(description: "\(path) has \(file.mappings.count) mapping\(file.mappings.count == 1 ? "" : "s") under mappings:, not \(index)")
        }
        let target = file.mappings[index - 1]
        guard let text = readWholeFile(path) else { throw Failure(description: "cannot read \(path)") }
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
        _ = try Mapping(parsing: edited)            // never write a mapping that does not parse
        lines[target.line - 1].replaceSubrange(r, with: edited)
        try replace(path, with: lines.joined(separator: "\n"))
    }

    /// Sets `key: value` in a top-level section (added if missing), keeping everything else.
    static func setValue(in path: String, section: String, key: String, value: String, comment: String) throws {
        guard let text = readWholeFile(path) else { throw Failure(description: "cannot read \(path)") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let entry = { (indent: String) in "\(indent)\(key): \(value)   # \(comment)" }
        if let s = lines.firstIndex(where: { $0.hasPrefix("\(section):") }) {
            var indent = "  "
            var i = s + 1
            var found: Int?
            while i < lines.count {
                let l = lines[i]
                let trimmed = l.drop { $0 == " " || $0 == "\t" }
                if !l.isEmpty && l.first != " " && l.first != "\t" && l.first != "#" { break }   // the next section
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

    /// Replaces the file with `out` once it loads, atomically (a write then a rename).
    static func replace(_ path: String, with out: String) throws {
        _ = try ConfigFile(path: path, text: out)   // never a file that does not load
        let tmp = path + ".sensorwah-tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot write \(tmp): \(String(cString: strerror(errno)))") }
        var bytes = Array(out.utf8)
        let ok = writeAll(fd, &bytes, bytes.count)
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            unlink(tmp)
            throw Failure(description: "cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }
}
