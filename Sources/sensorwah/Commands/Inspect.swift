import ArgumentParser
import SensorWahCore
import SensorWahEngine
import SensorWahIO

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show how a sensor log is read: app, columns, units, time, rate, gaps, skipped rows.",
        discussion: """
            Reads the whole file as replay would (no MIDI) and prints the layout the recognition \
            table chose and the runner-up, each column used with what it feeds and its unit, the \
            time column and its unit, the rate, duration and gaps, and the rows skipped and why. \
            Exits 1 when the file is refused or nothing usable was read.

            Examples:
              sensorwah inspect Recordings/wrist-wah-phone.csv
              sensorwah inspect watch.csv --columns time,ax,ay,az
            """
    )

    @Argument(help: "A sensor log.")
    var file: String
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func run() throws {
        let report: FileInspection
        do {
            report = try FileReplay.inspect(
                path: file, parserOptions: input.parserOptions(), maxLineLength: input.maxLine)
        } catch { throw RuntimeFailure("\(error)") }
        print(report.text, terminator: "")
        if !report.usable { throw ExitCode(1) }
    }
}
