/// The input dialects SensorWah understands.
public enum SensorFormat: String, CaseIterable, Sendable {
    case auto, sensorlog, hyperimu, sensorstream
    /// Sensor Logger (Kelvin Choi, iOS/Android): one CSV per sensor, `time,seconds_elapsed,z,y,x`.
    case sensorlogger
    /// phyphox CSV export: `"Time (s)","Linear Acceleration x (m/s^2)",...`.
    case phyphox
    /// Physics Toolbox Sensor Suite: `time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz,`.
    case physicstoolbox
    /// Any table of a time column and three or six axes (`time,x,y,z`, `Milliseconds,X,Y,Z`, ...).
    case generic
}

/// Why a line was not used.
public enum SkipReason: Int, CaseIterable, Sendable {
    case malformed  // a motion field is not a number
    case shortRow  // too few fields to reach the motion columns
    case noLayout  // data before any header, and no column list fits
    case noTimestamp  // values without a usable timestamp
    case binary  // control bytes: not text
    case tooLong  // longer than the maximum line length
    case outOfOrder  // timestamp stepped backwards (a late sample)
    case unknownHeader  // a header-like line with no column SensorWah can use
    case underUnknownHeader  // a data row under a header that was refused: never read positionally

    public var label: String {
        switch self {
        case .malformed: return "malformed (a motion field is not a number)"
        case .shortRow: return "too few fields for the motion columns"
        case .noLayout: return "no header yet and no column list fits"
        case .noTimestamp: return "no usable timestamp"
        case .binary: return "binary data"
        case .tooLong: return "line too long"
        case .outOfOrder: return "timestamp went backwards (late sample)"
        case .unknownHeader: return "header with no usable motion column"
        case .underUnknownHeader: return "row under a header that was not understood"
        }
    }
}

public enum LineResult: Equatable, Sendable {
    case frame  // `frame` now holds at least one new group
    case header
    case comment
    case blank
    case held  // a valid row that repeats samples already seen
    case skipped(SkipReason)
}

public struct ParserStats: Sendable, Equatable {
    public var lines = 0
    public var rows = 0  // data rows (lines that were not header, comment or blank)
    public var frames = 0
    public var headers = 0
    public var comments = 0
    public var blank = 0
    public var held = 0
    public var fieldCountMismatch = 0  // rows used although their field count differs from the header
    public var clockRestarts = 0
    /// Sensor-group samples dropped because their timestamp went backwards (the row may still be used).
    public var lateSamples = 0
    /// Indexed by `SkipReason.rawValue` (room for 16 reasons).
    public var skipped: InlineArray<16, Int> = .init(repeating: 0)
    /// Frames whose time was not read from the data but counted from a sample period: the
    /// file's stated sampling time or `ParserOptions.defaultSamplePeriod` (no time column), or
    /// spread within a whole second (Sensorstream rows with whole-second timestamps).
    public var assumedTiming = 0
    /// Stream time (s) of the first and the last frame; NaN before the first frame.
    public var firstTime = Double.nan
    public var lastTime = Double.nan
    /// The line number (1-based) of the first skipped row and why (0: none skipped).
    public var firstSkipLine = 0
    public var firstSkipReason: SkipReason? = nil
    /// Intervals between consecutive frames, in half-octave buckets (see `implausibleRateWarning`).
    public var intervalBuckets: InlineArray<64, Int> = .init(repeating: 0)

    public init() {}

    /// Adds another parser's counts (several senders, several loops).
    public mutating func add(_ o: ParserStats) {
        lines += o.lines; rows += o.rows; frames += o.frames; headers += o.headers; comments += o.comments
        blank += o.blank; held += o.held; fieldCountMismatch += o.fieldCountMismatch; clockRestarts += o.clockRestarts
        lateSamples += o.lateSamples; assumedTiming += o.assumedTiming
        for i in 0..<16 { skipped[i] += o.skipped[i] }
        for i in 0..<64 { intervalBuckets[i] += o.intervalBuckets[i] }
        if !o.firstTime.isNaN { firstTime = firstTime.isNaN ? o.firstTime : min(firstTime, o.firstTime) }
        if !o.lastTime.isNaN { lastTime = lastTime.isNaN ? o.lastTime : max(lastTime, o.lastTime) }
        if firstSkipLine == 0 && o.firstSkipLine != 0 {
            firstSkipLine = o.firstSkipLine; firstSkipReason = o.firstSkipReason
        }
    }

    public var totalSkipped: Int { var s = 0; for i in 0..<16 { s &+= skipped[i] }; return s }
    public func skipped(_ r: SkipReason) -> Int { skipped[r.rawValue] }

    public static func == (a: ParserStats, b: ParserStats) -> Bool {
        guard a.lines == b.lines, a.rows == b.rows, a.frames == b.frames, a.headers == b.headers,
            a.comments == b.comments, a.blank == b.blank, a.held == b.held,
            a.fieldCountMismatch == b.fieldCountMismatch, a.clockRestarts == b.clockRestarts,
            a.lateSamples == b.lateSamples, a.assumedTiming == b.assumedTiming,
            a.firstSkipLine == b.firstSkipLine, a.firstSkipReason == b.firstSkipReason
        else { return false }
        for i in 0..<16 where a.skipped[i] != b.skipped[i] { return false }
        for i in 0..<64 where a.intervalBuckets[i] != b.intervalBuckets[i] { return false }
        return true
    }
}

public struct ParserOptions: Sendable {
    public var format: SensorFormat
    /// Column names (units optional) for SensorLog streams that send no header.
    public var fallbackColumns: [String]?
    /// Separator for header-less streams; detected from the header otherwise.
    public var fallbackSeparator: UInt8
    /// Sample period assumed for HyperIMU data without timestamps when the file does not say.
    public var defaultSamplePeriod: Double
    /// Sensor order assumed for HyperIMU data without header or `@Sensors` line.
    public var hyperIMUSensors: [String]
    /// Which sensor a one-sensor file holds when its header does not say: required for Sensor
    /// Logger's `time,seconds_elapsed,z,y,x` files, and for phyphox files with plain
    /// `X (m/s^2)` columns. Usually from the file name: `LoggedSensor.fromFileName(_:)`.
    /// A header that names its sensor always wins over this hint.
    public var sensor: LoggedSensor?
    /// Leaves the attitude quaternion columns (SensorLog `motionQuaternion*`) unread when the
    /// rest of the motion group has columns: for a run where no mapping reads `quat.*` and the
    /// motion stage is off, it saves parsing four long numbers a row. `quat.*` stays "no value".
    public var skipsQuaternions = false
    /// The file's name and first lines, when the input is a file: the recognition table's
    /// data checks read them (gravity or not, time unit, G or m/s²), and a file without a
    /// header whose layout is not certain is refused rather than read positionally.
    public var preview: InputPreview?

    public init(
        format: SensorFormat = .auto, fallbackColumns: [String]? = nil, fallbackSeparator: UInt8 = 0x2C,
        defaultSamplePeriod: Double = 0.02, hyperIMUSensors: [String] = ["accelerometer", "gyroscope"],
        sensor: LoggedSensor? = nil
    ) {
        self.format = format
        self.fallbackColumns = fallbackColumns
        self.fallbackSeparator = fallbackSeparator
        self.defaultSamplePeriod = defaultSamplePeriod
        self.hyperIMUSensors = hyperIMUSensors
        self.sensor = sensor
    }
}

/// Column layout: what each column feeds. Built when a header arrives (or from a fallback).
struct ColumnLayout: Sendable {
    static let ignore: Int8 = -1
    static let timestampBase: Int8 = 40  // 40 + group (above every Quantity raw value)
    static let motionRateBase: Int8 = 50  // 50 + axis
    static let lineTimestamp: Int8 = 60  // HyperIMU: one timestamp for every group (epoch ms)

    /// `ParserOptions.skipsQuaternions`: the quaternion columns become ignored ones, but only
    /// when another motion-group column remains (rows keep the same groups and validity).
    mutating func dropQuaternions() {
        let quat = Int8(Quantity.quatX.rawValue)...Int8(Quantity.quatW.rawValue)
        let otherMotion = slots.contains { c in
            (c >= 0 && c < Self.timestampBase && !quat.contains(c) && Quantity(rawValue: Int(c))?.group == .motion)
                || (c >= Self.motionRateBase && c < Self.lineTimestamp)
        }
        guard otherMotion else { return }
        for i in slots.indices where quat.contains(slots[i]) { slots[i] = Self.ignore }
    }

    var separator: UInt8 = 0x2C
    var columnCount = 0
    var slots: [Int8] = []
    var lastNeeded = -1
    var scales: InlineArray<35, Double> = .init(repeating: 1)
    var groups: UInt8 = 0  // groups with at least one value column
    var timestampGroups: UInt8 = 0  // groups with a timestamp column
    var gyroFromMotion = false
    var dialect: SensorFormat = .sensorlog
    var lineTimestampScale = 1.0  // HyperIMU ms -> s, Sensor Logger ns -> s
    /// How the one time column of a row is written.
    var lineTimeKind = LineTimeKind.number
    /// Groups stamped by the row's one time column, or by the sample period when the layout
    /// has no time column at all (`hasLineTimeColumn` false).
    var lineTimeGroups: UInt8 = 0
    var hasLineTimeColumn = false
    /// `;`- or tab-separated files may write `1,5` for 1.5.
    var decimalComma = false
    /// Rows whose field count differs from the header's are not used (text columns that may
    /// hold separators come before motion columns).
    var strictFieldCount = false
    var valid: Bool { lastNeeded >= 0 && groups != 0 }

    /// Leading index columns of a re-saved table (left unread) before the layout's columns.
    mutating func shift(by k: Int) {
        slots = Array(repeating: Self.ignore, count: k) + slots
        if lastNeeded >= 0 { lastNeeded += k }
        if columnCount > 0 { columnCount += k }
    }
}

enum LineTimeKind: UInt8, Sendable {
    case number  // seconds times `lineTimestampScale`
    case iso8601  // SensorLog `loggingTime`: 2024-04-09T12:44:46.093+02:00
    case clock  // Physics Toolbox: a number of seconds, or a time of day 10:21:17:455
}

/// A streaming sensor-line parser with per-sender state (its own header). Give it one line at
/// a time; it fills a `SensorFrame` without allocating once a header is known.
public struct SensorParser: Sendable {
    public var options: ParserOptions
    public internal(set) var stats = ParserStats()
    public internal(set) var format: SensorFormat
    var layout = ColumnLayout() {
        didSet { if options.skipsQuaternions { layout.dropQuaternions() } }
    }
    var timeline = Timeline()
    /// HyperIMU: sensors named by an `@Sensors:` comment, and the sampling period it gives.
    var hyperComment: [String]? = nil
    var hyperPeriod: Double? = nil
    var syntheticIndex = 0
    /// Set when a header was refused; rows are then skipped until a header is understood.
    var refusedHeader = false
    /// A human message naming the refused header's columns, what was expected, and what to do.
    public internal(set) var refusal: String?
    /// Notes about an accepted header (columns that were left out and why).
    public internal(set) var headerNotes: [String] = []
    /// Clock-time columns: days added after passing midnight, and the last time of day read.
    var clockDays = 0.0
    var lastClock = -Double.infinity
    /// Sensorstream whole-second timestamps: repeats within the current second, rows in the last.
    var wholeSecond = Double.nan
    var wholeSecondRepeats = 0
    var rowsPerSecond = 0
    /// SensorLog JSON lines: the clock chosen on the first line (0 none, 1 sinceReboot, 2 loggingTime).
    var jsonClock: UInt8 = 0
    /// The table's choice for the current layout (winner and runner-up), and its header.
    public internal(set) var choice: LayoutChoice?
    var acceptedHeader: HeaderFields?

    public init(options: ParserOptions = .init()) {
        self.options = options
        self.format = options.format
        if let cols = options.fallbackColumns {
            layout = Self.fallbackLayout(cols, options: options, choice: &choice, notes: &headerNotes)
            if format == .auto, let c = choice { format = c.winner.format }
            if options.skipsQuaternions { layout.dropQuaternions() }  // no didSet in init
        }
    }

    /// True when some frames were timed from a sample period (the file's stated sampling time or
    /// `ParserOptions.defaultSamplePeriod`) because the data has no time column.
    public var timingFromAssumedRate: Bool { stats.assumedTiming > 0 }

    /// The sample period (s) used for frames without a time column: the file's `Sampling Time`
    /// comment when it has one, else `options.defaultSamplePeriod`.
    public var assumedSamplePeriod: Double { hyperPeriod ?? options.defaultSamplePeriod }

    /// A one-line note for a summary when timing did not come from the data, else nil.
    public var timingNote: String? {
        guard stats.assumedTiming > 0 else { return nil }
        if format == .sensorstream {
            return
                "timing from the assumed rate: \(stats.assumedTiming) frames shared a whole-second timestamp and were spread over that second"
        }
        let period = assumedSamplePeriod
        let hz = NumberText.rounded(1 / period, 2)
        let source = hyperPeriod != nil ? "the sampling time stated in the file" : "the default sample period"
        return "timing from the assumed rate: no time column, \(hz) Hz (\(period * 1000) ms, \(source))"
    }

    /// The raw clock reading, in seconds, of stream time 0 (the first sample): epoch seconds
    /// for Sensor Logger (`time`), HyperIMU (epoch ms) and SensorLog `loggingTime`; seconds
    /// since reboot for SensorLog `*_sinceReboot`; seconds since the start for phyphox. Nil
    /// before the first sample or when timing is assumed. `FrameMerger` aligns files on it.
    public var timeOrigin: Double? {
        guard let o = timeline.originRaw else { return nil }
        return o * timeline.unitScale
    }

    public var hasLayout: Bool { layout.valid }
    public var detectedFormat: SensorFormat { format }

    /// Counts a line the framer cut off for being too long.
    public mutating func noteTooLong() {
        stats.lines &+= 1
        stats.rows &+= 1
        stats.skipped[SkipReason.tooLong.rawValue] &+= 1
        if stats.firstSkipLine == 0 { stats.firstSkipLine = stats.lines; stats.firstSkipReason = .tooLong }
    }

    /// A skipped row: counted by reason; the first one's line and reason kept (off the hot path).
    @usableFromInline @inline(never)
    mutating func noteSkipped(_ why: SkipReason) {
        stats.rows &+= 1
        stats.skipped[why.rawValue] &+= 1
        if stats.firstSkipLine == 0 { stats.firstSkipLine = stats.lines; stats.firstSkipReason = why }
    }

    /// Counts a line lost because its connection closed before the line ended.
    public mutating func skip(_ reason: SkipReason) {
        stats.skipped[reason.rawValue] &+= 1
    }

    @inlinable
    public mutating func parse(_ line: UnsafeRawBufferPointer, into frame: inout SensorFrame) -> LineResult {
        guard let raw = line.baseAddress else { return note(.blank) }
        return parse(raw.assumingMemoryBound(to: UInt8.self), line.count, into: &frame)
    }

    public mutating func parse(_ text: String, into frame: inout SensorFrame) -> LineResult {
        var s = text
        return s.withUTF8 { u in parse(UnsafeRawBufferPointer(u), into: &frame) }
    }

    @usableFromInline
    mutating func note(_ r: LineResult) -> LineResult {
        stats.lines &+= 1
        switch r {
        case .frame: stats.rows &+= 1; stats.frames &+= 1
        case .header: stats.headers &+= 1
        case .comment: stats.comments &+= 1
        case .blank: stats.blank &+= 1
        case .held: stats.rows &+= 1; stats.held &+= 1
        case .skipped(let why): noteSkipped(why)
        }
        return r
    }

    @usableFromInline
    mutating func parse(_ p: UnsafePointer<UInt8>, _ count: Int, into frame: inout SensorFrame) -> LineResult {
        let r = parseLine(p, count, into: &frame)
        if r == .frame { stats.noteFrameTime(frame.latestTime) }
        return r
    }

    mutating func parseLine(_ p: UnsafePointer<UInt8>, _ count: Int, into frame: inout SensorFrame) -> LineResult {
        var n = count
        while n > 0 && (p[n - 1] == 0x0D || p[n - 1] == 0x20 || p[n - 1] == 0x09) { n -= 1 }
        var s = 0
        while s < n && (p[s] == 0x20 || p[s] == 0x09) { s += 1 }
        if s == n { return note(.blank) }
        let c = p[s]
        if c == 0x40 || c == 0x23 {  // '@' or '#': HyperIMU and generic comments
            readComment(p + s, n - s)
            return note(.comment)
        }
        if c == 0x7B && (options.format == .auto || options.format == .sensorlog) {  // '{': SensorLog JSON
            return note(parseJSONLine(p + s, n - s, into: &frame))
        }
        let isLetter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A
        if isLetter || c == 0x22 || c == 0xEF {
            if c == 0xEF && n - s >= 3 && p[s + 1] == 0xBB && p[s + 2] == 0xBF {
                // a byte-order mark (a file re-saved as "UTF-8 with BOM"): the line after it
                return parseAfterMark(p + s + 3, n - s - 3, into: &frame)
            }
            if let header = tryHeader(p + s, n - s) { return note(header) }
        }
        if refusedHeader {
            return note(.skipped(Self.hasControlBytes(p, n) ? .binary : .underUnknownHeader))
        }
        if !layout.valid || format == .sensorstream {
            if !layout.valid && (c == 0x2C || c == 0x3B || c == 0x7C), let header = tryIndexedHeader(p + s, n - s) {
                // a re-saved table whose first column (an index) has no name: `,loggingTime(txt),...`
                return note(header)
            }
            if format == .sensorstream || (format == .auto && looksLikeSensorstream(p, n)) {
                format = .sensorstream
                return note(parseSensorstream(p, n, into: &frame))
            }
            if !inferLayout(p, n) {
                return note(.skipped(Self.looksBinary(p, n) ? .binary : .noLayout))
            }
        }
        return note(parseColumns(p, n, into: &frame))
    }

    // MARK: - Columnar rows (SensorLog, HyperIMU)

    mutating func parseColumns(_ p: UnsafePointer<UInt8>, _ n: Int, into frame: inout SensorFrame) -> LineResult {
        let sep = layout.separator
        let decimalComma = layout.decimalComma
        let timeKind = layout.lineTimeKind
        var ts: InlineArray<3, Double> = .init(repeating: .nan)
        var lineTime = Double.nan
        var invalidGroups: UInt8 = 0
        var valueGroups: UInt8 = 0
        var col = 0
        var start = 0
        let lastNeeded = layout.lastNeeded
        layout.slots.withUnsafeBufferPointer { slots in
            while true {
                var j = start
                if col <= lastNeeded {
                    j = nextByte(sep, p, from: j, end: n)
                    let code = slots[col]
                    if code == ColumnLayout.lineTimestamp && timeKind != .number {
                        // a time column written as text
                        let t: Double?
                        if timeKind == .iso8601 {
                            t = TimeText.iso8601(p + start, j &- start)
                        } else if case .number(let x) = parseField(p + start, j &- start, decimalComma: decimalComma) {
                            t = x
                        } else {
                            t = TimeText.clock(p + start, j &- start).map { clockTime($0) }
                        }
                        if let t { lineTime = t } else { invalidGroups |= 7 }
                    } else if code >= 0 {
                        let v = parseField(p + start, j &- start, decimalComma: decimalComma)
                        var value = Double.nan
                        var bad = false
                        switch v {
                        case .number(let x): value = x
                        case .missing: break
                        case .invalid: bad = true
                        }
                        if code < ColumnLayout.timestampBase {
                            let q = Int(code)
                            let g: UInt8 = q < 3 ? 1 : (q < 6 ? 2 : 4)
                            if bad {
                                invalidGroups |= g
                            } else if !value.isNaN {
                                frame.values[q] = value * layout.scales[q]; valueGroups |= g
                            } else {
                                frame.values[q] = .nan
                            }
                        } else if code < ColumnLayout.motionRateBase {
                            let g = Int(code &- ColumnLayout.timestampBase)
                            if bad { invalidGroups |= UInt8(1 << g) } else { ts[g] = value }
                        } else if code < ColumnLayout.lineTimestamp {
                            let axis = Int(code &- ColumnLayout.motionRateBase)
                            if bad {
                                invalidGroups |= 4
                            } else {
                                frame.values[Quantity.rateX.rawValue &+ axis] = value
                                if !value.isNaN { valueGroups |= 4 }
                                if layout.gyroFromMotion { frame.values[Quantity.gyroX.rawValue &+ axis] = value }
                            }
                        } else {
                            if bad { invalidGroups |= 7 } else { lineTime = value }
                        }
                    }
                } else {
                    // past the motion columns: only count the fields left
                    col &+= countByte(sep, p, from: start, end: n) &+ 1
                    break
                }
                col &+= 1
                if j >= n { break }
                start = j &+ 1
            }
        }
        if col <= lastNeeded { return .skipped(Self.hasControlBytes(p, n) ? .binary : .shortRow) }
        let mismatch = layout.columnCount > 0 && col != layout.columnCount
        if mismatch && layout.strictFieldCount { return .skipped(Self.hasControlBytes(p, n) ? .binary : .malformed) }
        if invalidGroups != 0 && invalidGroups & valueGroups == valueGroups {
            // every group with values had a broken field
            return .skipped(Self.hasControlBytes(p, n) ? .binary : .malformed)
        }
        var usable = valueGroups & ~invalidGroups
        if layout.gyroFromMotion && usable & 4 != 0 { usable |= 2 }

        var assumed = false
        if layout.lineTimeGroups != 0 {
            if lineTime.isNaN {
                if layout.hasLineTimeColumn { return .skipped(.noTimestamp) }
                lineTime = Double(syntheticIndex) * assumedSamplePeriod
                syntheticIndex &+= 1
                timeline.unitScale = 1
                assumed = true
            } else {
                timeline.unitScale = layout.lineTimestampScale
            }
            for g in 0..<3 where layout.lineTimeGroups & (1 << UInt8(g)) != 0 { ts[g] = lineTime }
        } else if layout.gyroFromMotion {
            ts[1] = ts[2]
        }
        if !timeline.started {
            var first = Double.infinity
            for g in 0..<3 where usable & (1 << UInt8(g)) != 0 && !ts[g].isNaN { first = min(first, ts[g]) }
            if first.isFinite { timeline.start(at: first) }
        }
        if let notNew = admit(usable, ts, into: &frame) {
            return notNew == .skipped(.malformed) ? .skipped(usable == 0 ? .malformed : .noTimestamp) : notNew
        }
        if mismatch { stats.fieldCountMismatch &+= 1 }
        if assumed { stats.assumedTiming &+= 1 }
        return .frame
    }

    /// A time of day (s) made monotonic across midnight.
    mutating func clockTime(_ secondsOfDay: Double) -> Double {
        var t = secondsOfDay + clockDays
        if t < lastClock - 43_200 { clockDays += 86_400; t += 86_400 }
        lastClock = t
        return t
    }

    /// Runs each group's timestamp through the timeline; stamps the new groups into `frame`.
    /// Returns nil when at least one group is new, else why the row carries nothing new.
    mutating func admit(_ groups: UInt8, _ ts: InlineArray<3, Double>, into frame: inout SensorFrame) -> LineResult? {
        var newGroups: UInt8 = 0
        var late = false, held = false
        for g in 0..<3 where groups & (1 << UInt8(g)) != 0 {
            let t = ts[g]
            if t.isNaN { continue }
            switch timeline.admit(SensorGroup(rawValue: g)!, raw: t) {
            case .new(let rel): frame.times[g] = rel; newGroups |= 1 << UInt8(g)
            case .held: held = true
            case .outOfOrder: late = true; stats.lateSamples &+= 1
            }
        }
        stats.clockRestarts = timeline.restarts
        frame.newGroups = newGroups
        if newGroups != 0 { return nil }
        return late ? .skipped(.outOfOrder) : (held ? .held : .skipped(.malformed))
    }

    // MARK: - Sensorstream IMU+GPS: `ts, 3, ax, ay, az, 4, gx, gy, gz, 5, ...`

    func looksLikeSensorstream(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        Self.looksLikeSensorstream(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
    }

    static func looksLikeSensorstream(_ text: String) -> Bool {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count >= 5, (fields.count - 1) % 4 == 0 else { return false }
        for k in stride(from: 1, to: fields.count, by: 4) {
            guard let id = Int(fields[k].trimmingSpaces), Self.sensorstreamIDs.contains(id) else { return false }
        }
        return true
    }

    static let sensorstreamIDs: Set<Int> = [1, 3, 4, 5, 6, 7, 8, 81, 82, 83, 84, 85, 86]

    mutating func parseSensorstream(_ p: UnsafePointer<UInt8>, _ n: Int, into frame: inout SensorFrame) -> LineResult {
        // fields: 0 = timestamp (s), then groups of (id, x, y, z)
        var fieldStart = 0
        var index = 0
        var id = -1
        var base = -1
        var scale = 1.0
        var t = Double.nan
        var groups: UInt8 = 0
        var broken = false
        var i = 0
        while true {
            while i < n && p[i] != 0x2C { i &+= 1 }
            let v = parseField(p + fieldStart, i &- fieldStart)
            if index == 0 {
                if case .number(let x) = v { t = x } else { broken = true }
            } else {
                let k = (index &- 1) % 4
                if k == 0 {
                    if case .number(let x) = v, x == x.rounded(), abs(x) < 1e6 {
                        id = Int(x)
                    } else {
                        broken = true; id = -1
                    }
                    switch id {
                    case 3: base = Quantity.accelX.rawValue; scale = 1 / HyperIMUColumns.standardGravity
                    case 4: base = Quantity.gyroX.rawValue; scale = 1
                    case 82: base = Quantity.userX.rawValue; scale = 1 / HyperIMUColumns.standardGravity
                    case 83: base = Quantity.gravityX.rawValue; scale = 1 / HyperIMUColumns.standardGravity
                    default: base = -1
                    }
                } else if base >= 0 {
                    switch v {
                    case .number(let x):
                        frame.values[base &+ k &- 1] = x * scale
                        groups |= base < 3 ? 1 : (base < 6 ? 2 : 4)
                    case .missing: frame.values[base &+ k &- 1] = .nan
                    case .invalid: broken = true
                    }
                }
            }
            index &+= 1
            if i >= n { break }
            i &+= 1
            fieldStart = i
        }
        if broken || index < 5 || (index &- 1) % 4 != 0 {
            return .skipped(Self.hasControlBytes(p, n) ? .binary : .malformed)
        }
        if t.isNaN { return .skipped(.noTimestamp) }
        if groups == 0 { return .skipped(.malformed) }
        // Each Sensorstream row is a new sample. Whole-second timestamps repeat for every row
        // of a second: spread those rows over the second at the rate of the previous second
        // (or the default sample period), always before the next whole second.
        var assumed = false
        if t == t.rounded(.towardZero) && abs(t) < 1e15 {
            if t == wholeSecond {
                wholeSecondRepeats &+= 1
                let k = Double(wholeSecondRepeats)
                let period = rowsPerSecond > 1 ? 1 / Double(rowsPerSecond) : options.defaultSamplePeriod
                t += min(k * period, 1 - 1 / (k + 2))
                assumed = true
            } else {
                if t == wholeSecond + 1 { rowsPerSecond = wholeSecondRepeats &+ 1 }
                wholeSecond = t
                wholeSecondRepeats = 0
            }
        } else {
            wholeSecond = .nan
        }
        if let notNew = admit(groups, .init(repeating: t), into: &frame) { return notNew }
        if assumed { stats.assumedTiming &+= 1 }
        return .frame
    }

    // MARK: - Headers, comments, layouts (rare paths: allocation is fine here)

    mutating func tryHeader(_ p: UnsafePointer<UInt8>, _ n: Int) -> LineResult? {
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        let h = HeaderFields(text)
        if let c = Self.choose(h, forced: options.format) {
            let d = c.winner
            switch d.build(h, options) {
            case .layout(var l, let notes):
                if h.leading > 0 { l.shift(by: h.leading) }
                layout = l
                format = d.format
                refusedHeader = false
                headerNotes = notes
                choice = c
                acceptedHeader = h
                return .header
            case .refused(let why):
                return refuse(h, why, dialect: d)
            }
        }
        if Self.hasControlBytes(p, n) { return .skipped(.binary) }
        // not a header: a data row that happens to start with a letter, or noise
        if (layout.valid || refusedHeader) && !h.looksLikeHeader { return nil }
        return refuse(h, nil, dialect: nil)
    }

    /// The rest of a line that began with a byte-order mark (kept out of `parseLine`'s body).
    @inline(never)
    mutating func parseAfterMark(_ p: UnsafePointer<UInt8>, _ n: Int, into frame: inout SensorFrame) -> LineResult {
        parseLine(p, n, into: &frame)
    }

    /// A line starting with a separator, before any layout: a header whose first column has no
    /// name (pandas' index column) when it looks like one, else nil (a data row).
    mutating func tryIndexedHeader(_ p: UnsafePointer<UInt8>, _ n: Int) -> LineResult? {
        let h = HeaderFields(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        guard h.looksLikeHeader, h.raw.dropFirst().contains(where: { !$0.isEmpty }) else { return nil }
        return tryHeader(p, n)
    }

    /// The layout `--columns` names, through the table like a header (SensorLog names, or a
    /// generic `time,ax,ay,az`); as SensorLog columns when no entry recognises them.
    static func fallbackLayout(
        _ cols: [String], options: ParserOptions, choice: inout LayoutChoice?, notes: inout [String]
    ) -> ColumnLayout {
        let sep = options.fallbackSeparator
        let h = HeaderFields(cols.joined(separator: String(Character(Unicode.Scalar(sep)))))
        if let c = choose(h, forced: options.format), case .layout(var l, let n) = c.winner.build(h, options) {
            l.separator = sep
            l.decimalComma = sep == 0x3B || sep == 0x09
            l.columnCount = cols.count
            choice = c
            notes = n
            return l
        }
        return sensorLogLayout(cols.map { Substring($0) }, separator: sep)
    }

    /// Refuses a header: no layout until a header is understood, rows are skipped, never
    /// re-read positionally as another app's layout.
    mutating func refuse(_ h: HeaderFields, _ why: String?, dialect: DialectRecognizer?) -> LineResult {
        layout = ColumnLayout()
        refusedHeader = true
        headerNotes = []
        if let d = dialect { format = d.format }
        refusal = Self.refusalMessage(h, reason: why, forced: options.format)
        return .skipped(.unknownHeader)
    }

    mutating func readComment(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        let lower = text.lowercased()
        if let r = lower.firstRange(of: "sensors:") {
            let list = text[
                text.index(text.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: r.upperBound))...
            ].split(separator: "-").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
            if !list.isEmpty { hyperComment = list.map(String.init) }
        }
        if let r = lower.firstRange(of: "sampling") {
            // "SamplingTime: 100ms" or "Sampling Time: 50ms"
            let tail = lower[r.upperBound...]
            if let colon = tail.firstIndex(of: ":") {
                let digits = tail[tail.index(after: colon)...].trimmingSpaces.prefix { $0.isNumber || $0 == "." }
                if let ms = Double(digits), ms > 0 { hyperPeriod = ms / 1000 }
            }
        }
    }

    /// A header-less data row: pick a layout from the fallback list, the field count, or the
    /// HyperIMU conventions.
    mutating func inferLayout(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        if layout.valid { return true }
        if Self.looksBinary(p, n) { return false }  // binary: counted as such, not a layout question
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        let sep = Self.detectSeparator(text)
        let fields = text.split(separator: Character(Unicode.Scalar(sep)), omittingEmptySubsequences: false)
        let first = fields.first.map { $0.trimmingSpaces } ?? ""
        let firstIsDate = first.contains("T") && first.contains("-") && first.contains(":")
        if format == .sensorlog || (format == .auto && firstIsDate) {
            let names: [String]
            if let cols = options.fallbackColumns {
                names = cols
            } else if fields.count == SensorLogColumns.iPhone82.count {
                names = SensorLogColumns.iPhone82
            } else if fields.count == SensorLogColumns.accelOnly5.count {
                names = SensorLogColumns.accelOnly5
            } else {
                refuseHeaderless(fields); return false
            }
            layout = Self.sensorLogLayout(names.map { Substring($0) }, separator: sep)
            layout.columnCount = names.count
            if format == .auto { format = .sensorlog }
            return layout.valid
        }
        guard format == .auto || format == .hyperimu else { refuseHeaderless(fields); return false }
        if format == .auto && options.preview != nil && hyperComment == nil {
            // a file without a header, and no `@Sensors:` line saying what its columns are
            refuseHeaderless(fields)
            return false
        }
        // HyperIMU without a header: all numbers, 3 per sensor, optional timestamp first
        var numbers = 0
        for f in fields {
            if case .number = f.utf8.withContiguousStorageIfAvailable({ parseField($0.baseAddress!, $0.count) })
                ?? .invalid
            {
                numbers += 1
            }
        }
        guard numbers == fields.count, fields.count >= 3 else { return false }
        let hasTimestamp = fields.count % 3 == 1
        guard fields.count % 3 == 0 || hasTimestamp else { return false }
        var names: [String] = []
        if hasTimestamp { names.append("timestamp") }
        let sensors = hyperComment ?? options.hyperIMUSensors
        let count = fields.count / 3
        for k in 0..<count {
            let s = k < sensors.count ? sensors[k] : "unknown\(k)"
            names += ["\(s).x", "\(s).y", "\(s).z"]
        }
        guard let l = Self.hyperIMULayout(names.map { Substring($0) }, separator: sep) else { return false }
        layout = l
        if format == .auto { format = .hyperimu }
        return true
    }

    /// A file without a header whose layout is not certain: refused, naming its column count
    /// and `--columns`; its rows are never read positionally.
    mutating func refuseHeaderless(_ fields: [Substring]) {
        guard options.preview != nil, refusal == nil else { return }
        refusedHeader = true
        let shown =
            fields.prefix(4).map { String($0.trimmingSpaces) }.joined(separator: ",") + (fields.count > 4 ? ",..." : "")
        if let cols = options.fallbackColumns {
            // the columns were named: say how they fit the rows
            let named = cols.joined(separator: ",")
            refusal =
                cols.count != fields.count
                ? "--columns names \(cols.count) column\(cols.count == 1 ? "" : "s") (\(named)) but the rows have \(fields.count) (\(shown)): name every column, in order, e.g. --columns time,ax,ay,az for a time and three accelerations"
                : "--columns \(named): not a layout SensorWah reads: a time column and three axes (time,ax,ay,az; time,gx,gy,gz; time,ax,ay,az,gx,gy,gz) or SensorLog's column names"
            return
        }
        refusal =
            "no header: the first data row has \(fields.count) column\(fields.count == 1 ? "" : "s") (\(shown)), and a file without a header is never read by guesswork. Name its columns with --columns, for example --columns time,ax,ay,az (acceleration), --columns time,gx,gy,gz (rotation rate), time,ax,ay,az,gx,gy,gz, or SensorLog's names; units and the time unit come from the names or the data. Or choose the app with --format."
    }

    static func detectSeparator(_ text: String) -> UInt8 {
        var counts: [UInt8: Int] = [0x2C: 0, 0x7C: 0, 0x3B: 0, 0x09: 0]
        for b in text.utf8 where counts[b] != nil { counts[b]! += 1 }
        let best = counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }!
        return best.value > 0 ? best.key : 0x2C
    }

    /// Control bytes or bytes that are not UTF-8: not a line of text (rare path).
    static func looksBinary(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        hasControlBytes(p, n) || String(validating: UnsafeBufferPointer(start: p, count: n), as: UTF8.self) == nil
    }

    static func hasControlBytes(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        for i in 0..<n { let b = p[i]; if (b < 0x20 && b != 0x09 && b != 0x0D) || b == 0x7F { return true } }
        return false
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return s
    }
}
