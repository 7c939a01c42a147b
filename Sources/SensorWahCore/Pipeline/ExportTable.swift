/// One column of `sensorwah export`: a source, raw or derived, optionally smoothed like a
/// mapping smooths it (`tilt.x@40`: one-euro filter, 40 ms).
public struct ExportColumn: Sendable, Equatable {
    public var source: Source
    /// Smoothing time constant in seconds (nil = the raw value).
    public var smoothing: Double?
    public var name: String

    /// Parses `SOURCE` or `SOURCE@MS`; one-line errors.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let srcText = parts[0].trimmingCharacters(in: " ")
        guard !srcText.isEmpty else {
            throw MappingSyntaxError(message: "'\(text)': a column needs a source, e.g. tilt.x or accel.x@40")
        }
        guard let s = Source(parsing: srcText) else {
            throw MappingSyntaxError(
                message:
                    "'\(text)': unknown source '\(srcText)' (try accel.x, tilt.pitch, zero.x, flick; see `sensorwah mappings`)"
            )
        }
        source = s
        if parts.count == 2 {
            guard let ms = Double(parts[1].replacingMS), ms.isFinite, ms >= 0, ms <= 10_000 else {
                throw MappingSyntaxError(
                    message: "'\(text)': the smoothing after @ is a time from 0 to 10000 ms, e.g. tilt.x@40")
            }
            smoothing = ms / 1000
            name = "\(s)@\(Mapping.show(ms))"
        } else {
            smoothing = nil
            name = s.description
        }
    }
}

extension String {
    func trimmingCharacters(in c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}

/// Turns frames into CSV rows: `t` and one value per column, in the source's units. A column
/// whose group has no new sample in a frame repeats its last value (sample and hold); a
/// column never seen is empty. Gesture columns read 0 except on the frame a gesture fires.
public struct ExportTable: Sendable {
    public let columns: [ExportColumn]
    var filters: [OneEuroFilter]
    var last: [Double]

    public init(columns: [ExportColumn]) {
        self.columns = columns
        filters = columns.map { OneEuroFilter(timeConstant: $0.smoothing ?? 0) }
        last = Array(repeating: .nan, count: columns.count)
    }

    public var header: String { (["t"] + columns.map(\.name)).joined(separator: ",") }

    /// The CSV row (without line end) for one frame.
    public mutating func row(_ f: borrowing SensorFrame) -> String {
        var out = NumberText.trimmed(f.latestTime, 4)
        for i in 0..<columns.count {
            let c = columns[i]
            let g = c.source.group
            if f.newGroups & g.bit != 0 {
                let t = f.times[g.rawValue]
                let v = c.source.read(f)
                if v.isFinite { last[i] = c.smoothing != nil ? filters[i].filter(v, at: t) : v }
            }
            out += ","
            if last[i].isFinite { out += NumberText.trimmed(last[i], 6) }
        }
        return out
    }
}
