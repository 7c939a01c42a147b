import ArgumentParser
import SensorWahCore

extension SensorFormat: ExpressibleByArgument {}

struct InputOptions: ParsableArguments {
    @Option(help: "Input dialect: auto, sensorlog, hyperimu, sensorstream.")
    var format: SensorFormat = .auto
    @Option(help: ArgumentHelp("Column names for SensorLog streams that send no header, comma-separated.", valueName: "NAMES"))
    var columns: String?
    @Option(help: ArgumentHelp("Longest line accepted, in bytes; longer lines are counted and dropped.", valueName: "BYTES"))
    var maxLine = 16_384

    static let maxLineRange = 64...(64 << 20)

    func validate() throws {
        guard Self.maxLineRange.contains(maxLine) else {
            throw ValidationError("--max-line must be \(Self.maxLineRange.lowerBound) to \(Self.maxLineRange.upperBound) bytes")
        }
        if let c = columns, columnNames(c).isEmpty {
            throw ValidationError("--columns needs column names, e.g. --columns 'loggingTime,accelerometerAccelerationX(G)'")
        }
    }

    private func columnNames(_ c: String) -> [String] {
        c.split(whereSeparator: { $0 == "," || $0 == "|" || $0 == ";" || $0 == "\t" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func parserOptions() -> ParserOptions {
        var o = ParserOptions(format: format)
        if let c = columns {
            o.fallbackColumns = columnNames(c)
        }
        return o
    }
}
