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

    func parserOptions() -> ParserOptions {
        var o = ParserOptions(format: format)
        if let c = columns {
            o.fallbackColumns = c.split(whereSeparator: { $0 == "," || $0 == "|" || $0 == ";" || $0 == "\t" }).map(String.init)
        }
        return o
    }
}
