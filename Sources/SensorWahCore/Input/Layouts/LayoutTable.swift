/// The recognition table: every app or layout SensorWah reads is one entry, defined in its own
/// file in this folder (`SensorLogLayout.swift`, `GenericLayout.swift`, ...), saying how it is
/// recognised (header words, name words, data checks), with what confidence, and how its
/// columns map. The parser asks the table once per header (or per header-less file) and keeps
/// the winner and the runner-up; rows are then read by the winner's layout only.
/// Adding an app is adding one file with its entry, listing it in `SensorParser.dialects`, and
/// its test logs.
public struct DialectRecognizer: Sendable {
    public let format: SensorFormat
    /// The app, for messages.
    public let name: String
    /// What the header (or row) must look like, for messages.
    public let expects: String
    /// A typical header (or row) of the dialect.
    public let sample: String
    /// Recognised per row (no header line): Sensorstream rows, SensorLog JSON objects.
    public let headerless: Bool
    /// The detection rule in one line, for the docs and `sensorwah inspect`.
    public let rule: String
    /// How sure a match of `test` is (0...1): app-specific headers score high, the generic
    /// time-plus-axes layout low, so an app's own entry wins over it.
    public let confidence: Double
    let test: @Sendable (HeaderFields) -> Bool
    let build: @Sendable (HeaderFields, ParserOptions) -> HeaderVerdict

    /// True when this entry recognises `line` as its header (or row).
    public func recognizes(_ line: String) -> Bool { test(HeaderFields(line)) }
}

/// What the table made of a header: the winning entry, and the next best one (if any).
public struct LayoutChoice: Sendable {
    public var winner: DialectRecognizer
    public var runnerUp: DialectRecognizer?
}

extension SensorParser {
    /// The table, in the order it is consulted on equal confidence.
    public static let dialects: [DialectRecognizer] = [
        .sensorLog, .sensorLogJSON, .sensorLogger, .phyphox, .physicsToolbox, .hyperIMU, .sensorstream, .generic
    ]

    /// The entries that recognise `line`, best first (a test and diagnostic aid).
    public static func recognizers(of line: String) -> [DialectRecognizer] {
        ranked(HeaderFields(line), forced: .auto, headerless: nil)
    }

    /// Entries recognising `h`, by confidence then table order; `forced` keeps one format.
    static func ranked(_ h: HeaderFields, forced: SensorFormat, headerless: Bool?) -> [DialectRecognizer] {
        var found: [(Int, DialectRecognizer)] = []
        for (i, d) in dialects.enumerated()
        where (headerless == nil || d.headerless == headerless!)
            && (forced == .auto || d.format == forced) && d.test(h)
        {
            found.append((i, d))
        }
        found.sort { a, b in a.1.confidence != b.1.confidence ? a.1.confidence > b.1.confidence : a.0 < b.0 }
        return found.map(\.1)
    }

    /// The winner and runner-up for a header line (nil: no entry recognises it).
    static func choose(_ h: HeaderFields, forced: SensorFormat) -> LayoutChoice? {
        let r = ranked(h, forced: forced, headerless: false)
        guard let w = r.first else { return nil }
        return LayoutChoice(winner: w, runnerUp: r.dropFirst().first)
    }

    static func refusalMessage(_ h: HeaderFields, reason: String?, forced: SensorFormat) -> String {
        let shown = h.raw.prefix(16).map { "\"\($0)\"" }.joined(separator: ", ")
        let more = h.raw.count > 16 ? ", ... (\(h.raw.count - 16) more)" : ""
        var s = "header not understood: \(h.raw.count) column\(h.raw.count == 1 ? "" : "s") \(shown)\(more)."
        if let reason { s += " " + reason }
        s += " Known layouts: " + dialects.map { "\($0.name): \($0.expects)" }.joined(separator: "; ") + "."
        if forced != .auto { s += " The input format was set to \(forced.rawValue)." }
        s +=
            " Rows under this header are skipped, never guessed: choose the layout with --format, or name the columns with --columns (SensorLog names, or a time column and axes such as time,ax,ay,az)."
        return s
    }
}
