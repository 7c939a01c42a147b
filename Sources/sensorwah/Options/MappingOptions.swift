import ArgumentParser
import SensorWahCore
import SensorWahIO

struct MappingOptions: ParsableArguments {
    @Option(name: .customLong("map"), help: ArgumentHelp(
        "A mapping, e.g. \"accel.x cc=11 ch=1 range=-1..1 bipolar smooth=40\" (repeatable; see `sensorwah mappings`).",
        valueName: "MAPPING"))
    var maps: [String] = []
    @Option(help: ArgumentHelp("A file with one mapping per line (# starts a comment).", valueName: "FILE"))
    var mapFile: String?

    func mappings() throws -> [Mapping] {
        var lines = maps
        if let path = mapFile {
            guard let text = readWholeFile(path) else {
                throw RuntimeFailure("cannot read mapping file '\(path)'")
            }
            for raw in text.split(whereSeparator: \.isNewline) {
                let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                if !line.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.append(String(line)) }
            }
        }
        if lines.isEmpty { return [.default] }
        var parsed = try lines.map { line in
            do { return try Mapping(parsing: line) } catch let e as MappingSyntaxError {
                throw ValidationError("mapping \"\(line)\": \(e.message)")
            }
        }
        // osc: sources share the frame's custom slots
        if let error = OSCRoutes.assign(&parsed).error { throw ValidationError(error) }
        return parsed
    }
}
