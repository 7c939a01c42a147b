/// The input dialects SensorWah understands.
public enum SensorFormat: String, CaseIterable, Sendable {
    case auto, sensorlog, hyperimu, sensorstream
}

/// Why a line was not used.
public enum SkipReason: Int, CaseIterable, Sendable {
    case malformed        // a motion field is not a number
    case shortRow         // too few fields to reach the motion columns
    case noLayout         // data before any header, and no column list fits
    case noTimestamp      // values without a usable timestamp
    case binary           // control bytes: not text
    case tooLong          // longer than the maximum line length
    case outOfOrder       // timestamp stepped backwards (a late sample)
    case unknownHeader    // a header-like line with no column SensorWah can use

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
        }
    }
}

public enum LineResult: Equatable, Sendable {
    case frame          // `frame` now holds at least one new group
    case header
    case comment
    case blank
    case held           // a valid row that repeats samples already seen
    case skipped(SkipReason)
}

public struct ParserStats: Sendable, Equatable {
    public var lines = 0
    public var rows = 0              // data rows (lines that were not header, comment or blank)
    public var frames = 0
    public var headers = 0
    public var comments = 0
    public var blank = 0
    public var held = 0
    public var fieldCountMismatch = 0   // rows used although their field count differs from the header
    public var clockRestarts = 0
    /// Sensor-group samples dropped because their timestamp went backwards (the row may still be used).
    public var lateSamples = 0
    public var skipped: InlineArray<8, Int> = .init(repeating: 0)

    public init() {}

    /// Adds another parser's counts (several senders, several loops).
    public mutating func add(_ o: ParserStats) {
        lines += o.lines; rows += o.rows; frames += o.frames; headers += o.headers; comments += o.comments
        blank += o.blank; held += o.held; fieldCountMismatch += o.fieldCountMismatch; clockRestarts += o.clockRestarts
        lateSamples += o.lateSamples
        for i in 0..<8 { skipped[i] += o.skipped[i] }
    }

    public var totalSkipped: Int { var s = 0; for i in 0..<8 { s &+= skipped[i] }; return s }
    public func skipped(_ r: SkipReason) -> Int { skipped[r.rawValue] }

    public static func == (a: ParserStats, b: ParserStats) -> Bool {
        guard a.lines == b.lines, a.rows == b.rows, a.frames == b.frames, a.headers == b.headers,
              a.comments == b.comments, a.blank == b.blank, a.held == b.held,
              a.fieldCountMismatch == b.fieldCountMismatch, a.clockRestarts == b.clockRestarts,
              a.lateSamples == b.lateSamples else { return false }
        for i in 0..<8 where a.skipped[i] != b.skipped[i] { return false }
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

    public init(format: SensorFormat = .auto, fallbackColumns: [String]? = nil, fallbackSeparator: UInt8 = 0x2C,
                defaultSamplePeriod: Double = 0.02, hyperIMUSensors: [String] = ["accelerometer", "gyroscope"]) {
        self.format = format
        self.fallbackColumns = fallbackColumns
        self.fallbackSeparator = fallbackSeparator
        self.defaultSamplePeriod = defaultSamplePeriod
        self.hyperIMUSensors = hyperIMUSensors
    }
}

/// Column layout: what each column feeds. Built when a header arrives (or from a fallback).
struct ColumnLayout: Sendable {
    static let ignore: Int8 = -1
    static let timestampBase: Int8 = 20   // 20 + group
    static let motionRateBase: Int8 = 30  // 30 + axis
    static let lineTimestamp: Int8 = 40   // HyperIMU: one timestamp for every group (epoch ms)

    var separator: UInt8 = 0x2C
    var columnCount = 0
    var slots: [Int8] = []
    var lastNeeded = -1
    var scales: InlineArray<18, Double> = .init(repeating: 1)
    var groups: UInt8 = 0            // groups with at least one value column
    var timestampGroups: UInt8 = 0   // groups with a timestamp column
    var gyroFromMotion = false
    var dialect: SensorFormat = .sensorlog
    var lineTimestampScale = 1.0     // HyperIMU ms -> s
    var valid: Bool { lastNeeded >= 0 && groups != 0 }
}

/// A streaming sensor-line parser with per-sender state (its own header). Give it one line at
/// a time; it fills a `SensorFrame` without allocating once a header is known.
public struct SensorParser: Sendable {
    public var options: ParserOptions
    public private(set) var stats = ParserStats()
    public private(set) var format: SensorFormat
    var layout = ColumnLayout()
    var timeline = Timeline()
    /// HyperIMU: sensors named by an `@Sensors:` comment, and the sampling period it gives.
    var hyperComment: [String]? = nil
    var hyperPeriod: Double? = nil
    var syntheticIndex = 0

    public init(options: ParserOptions = .init()) {
        self.options = options
        self.format = options.format
        if let cols = options.fallbackColumns {
            layout = Self.sensorLogLayout(cols.map { Substring($0) }, separator: options.fallbackSeparator)
        }
    }

    public var hasLayout: Bool { layout.valid }
    public var detectedFormat: SensorFormat { format }

    /// Counts a line the framer cut off for being too long.
    public mutating func noteTooLong() {
        stats.lines &+= 1
        stats.rows &+= 1
        stats.skipped[SkipReason.tooLong.rawValue] &+= 1
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
        case .skipped(let why): stats.rows &+= 1; stats.skipped[why.rawValue] &+= 1
        }
        return r
    }

    @usableFromInline
    mutating func parse(_ p: UnsafePointer<UInt8>, _ count: Int, into frame: inout SensorFrame) -> LineResult {
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
        let isLetter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A
        if isLetter || c == 0x22 || c == 0xEF {
            if let header = tryHeader(p + s, n - s) { return note(header) }
        }
        if !layout.valid || format == .sensorstream {
            if format == .sensorstream || (format == .auto && looksLikeSensorstream(p, n)) {
                format = .sensorstream
                return note(parseSensorstream(p, n, into: &frame))
            }
            if !inferLayout(p, n) {
                return note(.skipped(Self.hasControlBytes(p, n) ? .binary : .noLayout))
            }
        }
        return note(parseColumns(p, n, into: &frame))
    }

    // MARK: - Columnar rows (SensorLog, HyperIMU)

    mutating func parseColumns(_ p: UnsafePointer<UInt8>, _ n: Int, into frame: inout SensorFrame) -> LineResult {
        let sep = layout.separator
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
                    while j < n && p[j] != sep { j &+= 1 }
                    let code = slots[col]
                    if code >= 0 {
                        let v = parseField(p + start, j &- start)
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
                            if bad { invalidGroups |= g } else if !value.isNaN {
                                frame.values[q] = value * layout.scales[q]; valueGroups |= g
                            } else { frame.values[q] = .nan }
                        } else if code < ColumnLayout.motionRateBase {
                            let g = Int(code &- ColumnLayout.timestampBase)
                            if bad { invalidGroups |= UInt8(1 << g) } else { ts[g] = value }
                        } else if code < ColumnLayout.lineTimestamp {
                            let axis = Int(code &- ColumnLayout.motionRateBase)
                            if bad { invalidGroups |= 4 } else {
                                frame.values[Quantity.rateX.rawValue &+ axis] = value
                                if !value.isNaN { valueGroups |= 4 }
                                if layout.gyroFromMotion { frame.values[Quantity.gyroX.rawValue &+ axis] = value }
                            }
                        } else {
                            if bad { invalidGroups |= 7 } else { lineTime = value }
                        }
                    }
                } else {
                    // past the motion columns: only count separators
                    while j < n && p[j] != sep { j &+= 1 }
                }
                col &+= 1
                if j >= n { break }
                start = j &+ 1
            }
        }
        if col <= lastNeeded { return .skipped(Self.hasControlBytes(p, n) ? .binary : .shortRow) }
        if invalidGroups != 0 && invalidGroups & valueGroups == valueGroups {
            // every group with values had a broken field
            return .skipped(Self.hasControlBytes(p, n) ? .binary : .malformed)
        }
        let mismatch = layout.columnCount > 0 && col != layout.columnCount
        var usable = valueGroups & ~invalidGroups
        if layout.gyroFromMotion && usable & 4 != 0 { usable |= 2 }

        if layout.dialect == .hyperimu {
            if lineTime.isNaN {
                if layout.timestampGroups != 0 { return .skipped(.noTimestamp) }
                lineTime = Double(syntheticIndex) * (hyperPeriod ?? options.defaultSamplePeriod)
                syntheticIndex &+= 1
                timeline.unitScale = 1
            } else {
                timeline.unitScale = layout.lineTimestampScale
            }
            for g in 0..<3 { ts[g] = lineTime }
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
        return .frame
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
        var fields: [Substring] = []
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        fields = text.split(separator: ",", omittingEmptySubsequences: false)
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
                    if case .number(let x) = v, x == x.rounded() { id = Int(x) } else { broken = true; id = -1 }
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
        return admit(groups, .init(repeating: t), into: &frame) ?? .frame
    }

    // MARK: - Headers, comments, layouts (rare paths: allocation is fine here)

    mutating func tryHeader(_ p: UnsafePointer<UInt8>, _ n: Int) -> LineResult? {
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        let sep = Self.detectSeparator(text)
        let names = text.split(separator: Character(Unicode.Scalar(sep)), omittingEmptySubsequences: false).map(columnName)
        // SensorLog?
        if format != .hyperimu && format != .sensorstream {
            let known = names.filter { SensorLogColumns.role(of: $0) != nil || SensorLogColumns.isKnownNonMotion($0) }.count
            if known >= 2 || (known >= 1 && names.count <= 2) {
                let l = Self.sensorLogLayout(names, separator: sep)
                if !l.valid { return .skipped(.unknownHeader) }
                layout = l
                format = format == .auto ? .sensorlog : format
                return .header
            }
        }
        if format != .sensorlog && format != .sensorstream {
            if let l = Self.hyperIMULayout(names, separator: sep) {
                layout = l
                format = .hyperimu
                return .header
            }
        }
        if Self.hasControlBytes(p, n) { return .skipped(.binary) }
        // not a header: a data row that happens to start with a letter, or noise
        return layout.valid ? nil : .skipped(.unknownHeader)
    }

    mutating func readComment(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        let lower = text.lowercased()
        if let r = lower.firstRange(of: "sensors:") {
            let list = text[text.index(text.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: r.upperBound))...].split(separator: "-").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
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
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        let sep = Self.detectSeparator(text)
        let fields = text.split(separator: Character(Unicode.Scalar(sep)), omittingEmptySubsequences: false)
        let first = fields.first.map { $0.trimmingSpaces } ?? ""
        let firstIsDate = first.contains("T") && first.contains("-") && first.contains(":")
        if format == .sensorlog || (format == .auto && firstIsDate) {
            let names: [String]
            if let cols = options.fallbackColumns { names = cols }
            else if fields.count == SensorLogColumns.iPhone82.count { names = SensorLogColumns.iPhone82 }
            else if fields.count == SensorLogColumns.accelOnly5.count { names = SensorLogColumns.accelOnly5 }
            else { return false }
            layout = Self.sensorLogLayout(names.map { Substring($0) }, separator: sep)
            layout.columnCount = names.count
            if format == .auto { format = .sensorlog }
            return layout.valid
        }
        guard format == .auto || format == .hyperimu else { return false }
        // HyperIMU without a header: all numbers, 3 per sensor, optional timestamp first
        var numbers = 0
        for f in fields { if case .number = f.utf8.withContiguousStorageIfAvailable({ parseField($0.baseAddress!, $0.count) }) ?? .invalid { numbers += 1 } }
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

    static func sensorLogLayout(_ rawNames: [Substring], separator: UInt8) -> ColumnLayout {
        var l = ColumnLayout()
        l.separator = separator
        l.dialect = .sensorlog
        let names = rawNames.map(columnName)
        l.columnCount = names.count
        l.slots = .init(repeating: ColumnLayout.ignore, count: names.count)
        let hasRawGyro = names.contains("gyroRotationX") || names.contains("gyroRotationY") || names.contains("gyroRotationZ")
        l.gyroFromMotion = !hasRawGyro
        for (i, name) in names.enumerated() {
            guard let role = SensorLogColumns.role(of: name) else { continue }
            switch role {
            case .timestamp(let g):
                l.slots[i] = ColumnLayout.timestampBase + Int8(g.rawValue)
                l.timestampGroups |= g.bit
            case .value(let q):
                l.slots[i] = Int8(q.rawValue)
                l.groups |= q.group.bit
            case .motionRate(let axis):
                l.slots[i] = ColumnLayout.motionRateBase + Int8(axis)
                l.groups |= SensorGroup.motion.bit
                if l.gyroFromMotion { l.groups |= SensorGroup.gyro.bit }
            }
            l.lastNeeded = i
        }
        // a group without its timestamp column cannot be timed
        l.groups &= l.timestampGroups | (l.gyroFromMotion && l.timestampGroups & 4 != 0 ? 2 : 0)
        return l
    }

    static func hyperIMULayout(_ rawNames: [Substring], separator: UInt8) -> ColumnLayout? {
        var l = ColumnLayout()
        l.separator = separator
        l.dialect = .hyperimu
        let names = rawNames.map(columnName)
        l.columnCount = names.count
        l.slots = .init(repeating: ColumnLayout.ignore, count: names.count)
        var used = Set<Int>()
        for (i, name) in names.enumerated() {
            let lower = name.lowercased()
            if lower == "timestamp" || lower == "time" {
                l.slots[i] = ColumnLayout.lineTimestamp
                l.lineTimestampScale = 0.001
                l.timestampGroups = 7
                l.lastNeeded = i
                continue
            }
            guard let dot = name.lastIndex(of: ".") else { continue }
            let axisName = name[name.index(after: dot)...].lowercased()
            guard let axis = ["x": 0, "y": 1, "z": 2][axisName],
                  let (base, scale) = HyperIMUColumns.sensor(name[..<dot]) else { continue }
            var q = base.rawValue + axis
            if base == .yaw { q = [Quantity.yaw, .pitch, .roll][axis].rawValue }   // azimuth, pitch, roll
            if used.contains(q) { continue }   // first sensor of a kind wins
            used.insert(q)
            l.slots[i] = Int8(q)
            l.scales[q] = scale
            l.groups |= Quantity(rawValue: q)!.group.bit
            l.lastNeeded = max(l.lastNeeded, i)
        }
        return l.groups != 0 ? l : nil
    }

    static func detectSeparator(_ text: String) -> UInt8 {
        var counts: [UInt8: Int] = [0x2C: 0, 0x7C: 0, 0x3B: 0, 0x09: 0]
        for b in text.utf8 where counts[b] != nil { counts[b]! += 1 }
        let best = counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }!
        return best.value > 0 ? best.key : 0x2C
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
