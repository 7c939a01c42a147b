/// The head of a file (its name and first lines), given to the recognition table so that an
/// entry can look at the data as well as at the header: whether acceleration includes gravity,
/// the unit of a time column, G or m/s². Read once per file, before its first line is parsed;
/// a live stream has none, and its entries decide from the header alone.
public struct InputPreview: Sendable {
    public var fileName: String?
    /// Lines trimmed as the parser trims them (leading spaces and tabs, trailing CR, spaces, tabs).
    public var lines: [String]

    public init(fileName: String?, lines: [String]) {
        self.fileName = fileName
        self.lines = lines.map { Self.trim(Substring($0)) }
    }

    /// From the first bytes of a file; a last line cut off by the byte limit is dropped.
    public init(fileName: String?, head: [UInt8], complete: Bool) {
        // split on bytes: "\r\n" is one Character in a Swift String
        var bytes = head[...]
        if !complete, let lastNewline = bytes.lastIndex(of: 0x0A) { bytes = bytes[..<lastNewline] }
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(Self.maxLines)
        self.fileName = fileName
        self.lines = lines.map { Self.trim(Substring(String(decoding: $0, as: UTF8.self))) }
    }

    public static let maxLines = 2000
    public static let maxBytes = 256 * 1024

    static func trim(_ s: Substring) -> String {
        var t = s
        while let c = t.first, c == " " || c == "\t" || c == "\u{FEFF}" { t = t.dropFirst() }
        while let c = t.last, c == "\r" || c == " " || c == "\t" || c == "\r\n" { t = t.dropLast() }
        return String(t)
    }

    /// The data rows after `header` (the first line equal to it), or every data row when
    /// `header` is nil: lines that are not blank, not comments, and start with a digit, sign,
    /// dot or separator. Split by `separator`, quotes trimmed.
    func dataRows(after header: String?, separator: UInt8, limit: Int = 1000) -> [[Substring]] {
        var start = 0
        // a header in the file: the rows under it; `--columns` (not in the file): every data row
        if let header, let i = lines.firstIndex(of: header) { start = i + 1 }
        let underHeader = start > 0
        var rows: [[Substring]] = []
        let sep = Character(Unicode.Scalar(separator))
        for line in lines[start...] {
            guard let c = line.utf8.first else { continue }
            if c == 0x40 || c == 0x23 { continue }
            let isLetter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A
            if isLetter || c == 0x22 || c == 0xEF { if underHeader { break } else { continue } }
            rows.append(
                line.split(separator: sep, omittingEmptySubsequences: false).map { f in
                    var s = f
                    while let q = s.first, q == "\"" || q == " " { s = s.dropFirst() }
                    while let q = s.last, q == "\"" || q == " " { s = s.dropLast() }
                    return s
                })
            if rows.count >= limit { break }
        }
        return rows
    }
}

extension InputPreview {
    /// The data rows under a header, without its leading index columns (as `h.names`).
    func rows(under h: HeaderFields) -> [[Substring]] {
        let rows = dataRows(after: h.text, separator: h.separator)
        return h.leading == 0 ? rows : rows.map { Array($0.dropFirst(h.leading)) }
    }
}

/// Checks on preview rows (rare path: allocation is fine).
enum DataChecks {
    static let g = HyperIMUColumns.standardGravity

    static func number(_ f: Substring, decimalComma: Bool) -> Double? {
        var s = String(f)
        let v = s.withUTF8 { u -> FieldValue in
            guard let b = u.baseAddress else { return .missing }
            return parseField(b, u.count, decimalComma: decimalComma)
        }
        if case .number(let x) = v, x.isFinite { return x }
        return nil
    }

    /// Values of one column (rows without a number there are left out).
    static func column(_ rows: [[Substring]], _ i: Int, decimalComma: Bool) -> [Double] {
        rows.compactMap { i < $0.count ? number($0[i], decimalComma: decimalComma) : nil }
    }

    /// Magnitudes of three columns, row by row, in the file's units.
    static func magnitudes(_ rows: [[Substring]], _ cols: (Int, Int, Int), decimalComma: Bool) -> [Double] {
        rows.compactMap { r in
            guard max(cols.0, cols.1, cols.2) < r.count,
                let x = number(r[cols.0], decimalComma: decimalComma),
                let y = number(r[cols.1], decimalComma: decimalComma),
                let z = number(r[cols.2], decimalComma: decimalComma)
            else { return nil }
            return (x * x + y * y + z * z).squareRoot()
        }
    }

    static func mean(_ v: [Double]) -> Double? { v.isEmpty ? nil : v.reduce(0, +) / Double(v.count) }

    /// The median of the positive steps of a time column.
    static func medianStep(_ t: [Double]) -> Double? {
        var steps: [Double] = []
        for k in 1..<max(1, t.count) where t[k] > t[k - 1] { steps.append(t[k] - t[k - 1]) }
        guard !steps.isEmpty else { return nil }
        steps.sort()
        return steps[steps.count / 2]
    }

    /// What the data says about gravity, from the mean magnitude in G: about 1 G with it,
    /// about 0 without it; nil when unclear (or no data).
    static func includesGravity(meanG m: Double?) -> Bool? {
        guard let m else { return nil }
        if m > 0.6 && m < 1.45 { return true }
        if m < 0.35 { return false }
        return nil
    }

    /// Which sensor a one-sensor m/s² file (Sensor Logger, phyphox plain `X (m/s^2)`) holds:
    /// `--sensor` when given; else what the file name says, checked against the data
    /// (acceleration with gravity reads about 1 G on average, without it about 0); else what
    /// the data says. Returns the sensor (nil: undecided) and a note saying what was assumed.
    static func sensor(explicit: LoggedSensor?, fileName: String?, meanMagnitudeSI m: Double?) -> (
        LoggedSensor?, String?
    ) {
        if let explicit { return (explicit, nil) }
        let named = fileName.flatMap(LoggedSensor.fromFileName)
        let gravity = includesGravity(meanG: m.map { $0 / g })
        let evidence = m.map { "mean magnitude \(NumberText.rounded($0 / g, 3)) G over the first rows" } ?? ""
        switch (named, gravity) {
        case (nil, true?):
            return (
                .totalAcceleration,
                "the file name does not say which sensor: read as \(LoggedSensor.totalAcceleration.label) from the data (\(evidence)); --sensor says otherwise"
            )
        case (nil, false?):
            return (
                .userAcceleration,
                "the file name does not say which sensor: read as \(LoggedSensor.userAcceleration.label) from the data (\(evidence); a rotation rate also reads about 0: --sensor gyro)"
            )
        case (nil, nil):
            return (nil, nil)
        case (.totalAcceleration?, false?), (.gravity?, false?):
            return (
                .userAcceleration,
                "the file name says \(named!.label), but the data has no gravity (\(evidence)): read as \(LoggedSensor.userAcceleration.label); --sensor says otherwise"
            )
        case (.userAcceleration?, true?):
            return (
                .totalAcceleration,
                "the file name says \(named!.label), but the data includes gravity (\(evidence)): read as \(LoggedSensor.totalAcceleration.label); --sensor says otherwise"
            )
        default:
            return (named, nil)
        }
    }
}
