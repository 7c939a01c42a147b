import SensorWahCore

/// What a run read, used and sent: the counts printed at its end.
public struct Summary {
    public var source: String
    public var format: SensorFormat
    public var parser: ParserStats
    public var mapper: MapperStats
    public var gapsShortened = 0
    public var elapsed: Double
    public var showElapsed = true
    /// Extra lines: files left out, header notes, how timing was found, rate warnings.
    public var notes: [String] = []

    public init(
        source: String, format: SensorFormat, parser: ParserStats, mapper: MapperStats,
        gapsShortened: Int = 0, elapsed: Double, showElapsed: Bool = true
    ) {
        self.source = source; self.format = format; self.parser = parser; self.mapper = mapper
        self.gapsShortened = gapsShortened; self.elapsed = elapsed; self.showElapsed = showElapsed
    }

    /// The lines printed on stderr at the end of a run.
    public var text: String {
        var s = "sensorwah: \(source) (\(format.rawValue))\n"
        s += "  rows read \(parser.rows), frames used \(parser.frames)"
        if parser.held > 0 { s += ", repeated samples (held) \(parser.held)" }
        s += ", headers \(parser.headers)"
        if parser.comments > 0 { s += ", comments \(parser.comments)" }
        s += "\n"
        let skipped = parser.totalSkipped
        if skipped > 0 {
            s += "  rows skipped \(skipped):"
            var parts: [String] = []
            for r in SkipReason.allCases where parser.skipped(r) > 0 {
                parts.append(" \(parser.skipped(r)) \(r.label)")
            }
            s += parts.joined(separator: ",") + "\n"
        } else {
            s += "  rows skipped 0\n"
        }
        if parser.fieldCountMismatch > 0 {
            s += "  rows with a field too many or too few, used (motion columns intact): \(parser.fieldCountMismatch)\n"
        }
        if parser.lateSamples > 0 { s += "  late samples dropped (timestamp went backwards): \(parser.lateSamples)\n" }
        if parser.clockRestarts > 0 { s += "  clock restarts (timestamp jumped back > 1 s): \(parser.clockRestarts)\n" }
        if gapsShortened > 0 { s += "  long pauses shortened: \(gapsShortened)\n" }
        s +=
            "  outliers dropped \(mapper.outliers) (\(mapper.outOfBounds) beyond the hard bound, \(mapper.implausibleJumps) implausible jumps)"
        if mapper.nonFinite > 0 { s += ", non-finite \(mapper.nonFinite)" }
        s += "\n  messages sent \(mapper.messages)"
        if mapper.rateLimited > 0 { s += " (\(mapper.rateLimited) changes delayed by the rate limit)" }
        if showElapsed { s += " in \(NumberText.rounded(elapsed, 2)) s" }
        for n in notes { s += "\n  " + n }
        return s
    }
}
