import ArgumentParser
import SensorWahCore

extension SensorFormat: ExpressibleByArgument {}
extension LoggedSensor: ExpressibleByArgument {}

struct InputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Input dialect: \(SensorFormat.allCases.map(\.rawValue).joined(separator: ", ")). auto recognises each app's header; an unknown header is refused.",
            valueName: "FORMAT"))
    var format: SensorFormat = .auto
    @Option(
        help: ArgumentHelp(
            "The sensor a one-sensor file holds when its name does not say (Sensor Logger, phyphox): \(LoggedSensor.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "SENSOR"))
    var sensor: LoggedSensor?
    @Option(
        help: ArgumentHelp(
            "Sample rate of logs without a time column (HyperIMU without timestamps), in Hz, used when the file states none (default 50).",
            valueName: "HZ"))
    var sampleRate: Double?
    @Option(
        help: ArgumentHelp(
            "Column names for a file or stream without a header, comma-separated: SensorLog names, or a time column and axes (time,ax,ay,az; time,gx,gy,gz; units from the names or the data).",
            valueName: "NAMES"))
    var columns: String?
    @Option(
        help: ArgumentHelp("Longest line accepted, in bytes; longer lines are counted and dropped.", valueName: "BYTES")
    )
    var maxLine = 16_384

    static let maxLineRange = 64...(64 << 20)

    func validate() throws {
        guard Self.maxLineRange.contains(maxLine) else {
            throw ValidationError(
                "--max-line must be \(Self.maxLineRange.lowerBound) to \(Self.maxLineRange.upperBound) bytes")
        }
        if let r = sampleRate, !(r.isFinite && r >= 0.1 && r <= 10_000) {
            throw ValidationError("--sample-rate must be 0.1 to 10000 Hz")
        }
        if let c = columns, columnNames(c).isEmpty {
            throw ValidationError(
                "--columns needs column names, e.g. --columns 'loggingTime,accelerometerAccelerationX(G)'")
        }
    }

    private func columnNames(_ c: String) -> [String] {
        c.split(whereSeparator: { $0 == "," || $0 == "|" || $0 == ";" || $0 == "\t" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func parserOptions() -> ParserOptions {
        var o = ParserOptions(format: format)
        o.sensor = sensor
        if let r = sampleRate { o.defaultSamplePeriod = 1 / r }
        if let c = columns {
            o.fallbackColumns = columnNames(c)
        }
        return o
    }
}
