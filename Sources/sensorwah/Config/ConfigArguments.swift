import ArgumentParser
import SensorWahEngine

/// `--config FILE` on any command: the file's settings become options placed before the ones
/// typed on the command line (which therefore win), and an error caused by a setting from the
/// file is reported at its line in the file.
struct ConfigArguments {
    var arguments: [String]
    var file: ConfigFile?
    var origin: [String: (line: Int, key: String)] = [:]
    /// Long options typed on the command line.
    var typed: Set<String> = []

    static func configPath(in argv: [String]) -> String? {
        for (i, a) in argv.enumerated() {
            if a == "--config", i + 1 < argv.count { return argv[i + 1] }
            if a.hasPrefix("--config=") { return String(a.dropFirst("--config=".count)) }
        }
        return nil
    }

    static func longOptions(in argv: [String]) -> Set<String> {
        Set(
            argv.compactMap { a -> String? in
                guard a.hasPrefix("--"), a.count > 2 else { return nil }
                return String(a.dropFirst(2).split(separator: "=", maxSplits: 1).first ?? "")
            })
    }

    init(argv: [String]) throws {
        arguments = argv
        typed = Self.longOptions(in: argv)
        guard let path = Self.configPath(in: argv) else { return }
        let cfg = try ConfigFile(path: path)
        file = cfg
        guard let i = argv.firstIndex(where: { !$0.hasPrefix("-") }), i == 0 else { return }
        let (extra, o) = cfg.arguments(for: argv[0], given: typed)
        origin = o
        arguments.insert(contentsOf: extra, at: 1)
    }

    /// The error message, pointed at the file's line when a setting from the file caused it.
    func attribute(_ message: String) -> String? {
        guard let cfg = file else { return nil }
        // a mapping written in the file
        if !typed.contains("map") && !typed.contains("map-file"),
            let r = message.range(of: "mapping \""), let end = message[r.upperBound...].range(of: "\": ")
        {
            let text = String(message[r.upperBound..<end.lowerBound])
            if let line = cfg.line(ofMapping: text) {
                return "\(cfg.path):\(line): mappings: " + String(message[end.upperBound...])
            }
        }
        // an option the file set and the command line did not
        var i = message.startIndex
        while let r = message[i...].range(of: "--") {
            var j = r.upperBound
            while j < message.endIndex, message[j].isLetter || message[j].isNumber || message[j] == "-" {
                j = message.index(after: j)
            }
            let name = String(message[r.upperBound..<j])
            if let o = origin[name], !typed.contains(name) {
                return "\(cfg.path):\(o.line): \(o.key): " + message
            }
            i = j
        }
        return nil
    }
}
