import Foundation
import PropertyBased
import Testing
@testable import SensorWahCore

// Any recognised log, re-saved with an index column (pandas), renamed, with a BOM, Windows line
// ends, a quoted header or label columns added, or with its time column in another unit,
// replays to the same controller stream as the log as the app wrote it.

/// A drawn log: the layout, the motion, and how the copy differs from the original.
struct DrawnLog: Sendable, CustomStringConvertible {
    var layout: Int  // 0 SensorLog, 1 Sensor Logger, 2 phyphox, 3 HyperIMU, 4 generic
    var rate: Double
    var count: Int
    var amplitude: Double  // tilt, rad
    var frequency: Double  // Hz
    var index: Int  // 0 none, 1 pandas' unnamed index, 2 re-saved twice (`,Unnamed: 0,`)
    var labels: Bool
    var bom: Bool
    var crlf: Bool
    var quoted: Bool
    var rename: Int  // 0 as written, 1 a prefix, 2 a suffix
    var timeUnit: Int  // generic only: 0 s (named), 1 ms (named), 2 µs (named), 3 ms (unnamed)

    static let layouts = ["SensorLog", "Sensor Logger", "phyphox", "HyperIMU", "generic"]
    var description: String {
        "\(Self.layouts[layout]) \(count) rows at \(rate) Hz, tilt \(amplitude) rad at \(frequency) Hz; copy: index \(index), labels \(labels), BOM \(bom), CRLF \(crlf), quoted \(quoted), rename \(rename), time unit \(timeUnit)"
    }
}

enum LogDraw {
    static let log = zip(
        zip(Gen.int(in: 0...4), Gen.int(in: 0...2), Gen.int(in: 20...150)),
        zip(Gen.double(in: 0.2...1.3), Gen.double(in: 0.2...2.0)),
        zip(Gen.int(in: 0...2), Gen.bool, Gen.bool, Gen.bool, Gen.bool),
        zip(Gen.int(in: 0...2), Gen.int(in: 0...3))
    ).map { (shape, motion, copy, naming) -> DrawnLog in
        DrawnLog(
            layout: shape.0, rate: [25.0, 50, 100][shape.1], count: shape.2, amplitude: motion.0, frequency: motion.1,
            index: copy.0, labels: copy.1, bom: copy.2, crlf: copy.3, quoted: copy.4, rename: naming.0,
            timeUnit: naming.1)
    }
}

/// Writes logs in each app's layout.
enum LogWriter {
    static let g = 9.80665

    static func f(_ v: Double, _ digits: Int = 6) -> String { String(format: "%.\(digits)f", v) }

    /// The file name and the lines (header first) of the log as the app writes it; with
    /// `timeUnit` for the generic layout.
    static func original(_ d: DrawnLog, timeUnit: Int = 0) -> (
        name: String, comments: [String], header: String, rows: [String]
    ) {
        var rows: [String] = []
        let w = 2 * Double.pi * d.frequency
        for k in 0..<d.count {
            let t = Double(k) / d.rate
            let a = d.amplitude * sin(w * t)
            let (ax, ay, az) = (sin(a), 0.01, -cos(a))  // G
            let gy = d.amplitude * w * cos(w * t)  // rad/s
            switch d.layout {
            case 0:
                rows.append(
                    "2024-04-09T12:44:46.093+02:00,\(f(500 + t)),\(f(ax)),\(f(ay)),\(f(az)),\(f(500 + t)),0,\(f(gy)),0")
            case 1:
                rows.append(
                    "\(1_700_000_000_000_000_000 + Int64(k) * Int64((1e9 / d.rate).rounded())),\(f(t)),\(f(az * g, 7)),\(f(ay * g, 7)),\(f(ax * g, 7))"
                )
            case 2:
                rows.append(
                    "\(String(format: "%.9E", t)),\(String(format: "%.9E", ax * g)),\(String(format: "%.9E", ay * g)),\(String(format: "%.9E", az * g)),\(String(format: "%.9E", g))"
                )
            case 3:
                rows.append(
                    "\(1_500_989_996_591 + k * Int(1000 / d.rate)),\(f(ax * g, 7)),\(f(ay * g, 7)),\(f(az * g, 7)),0,\(f(gy)),0"
                )
            default:
                let time: String
                switch timeUnit {
                case 1, 3: time = f(t * 1e3, 3)
                case 2: time = f(t * 1e6, 0)
                default: time = f(t)
                }
                rows.append("\(time),\(f(ax)),\(f(ay)),\(f(az)),0,\(f(gy)),0")
            }
        }
        switch d.layout {
        case 0:
            return (
                "take.csv", [],
                "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G),gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),gyroRotationY(rad/s),gyroRotationZ(rad/s)",
                rows
            )
        case 1:
            return ("TotalAcceleration.csv", [], "time,seconds_elapsed,z,y,x", rows)
        case 2:
            return (
                "Acceleration with g 2024-05-01 10-00-00.csv", [],
                "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"",
                rows
            )
        case 3:
            return (
                "hyperimu.csv",
                ["@ HyperIMU - ianovir - 2017", "@ Date: Tue Jul 25 15:39:56 GMT+02:00 2017, Sampling Time: 20ms", ""],
                "timestamp,MPL_Accelerometer.x,MPL_Accelerometer.y,MPL_Accelerometer.z,MPL_Gyroscope.x,MPL_Gyroscope.y,MPL_Gyroscope.z",
                rows
            )
        default:
            let time = ["time_s", "time_ms", "timestamp_us", "time"][timeUnit]
            return ("take.csv", [], "\(time),ax,ay,az,gx,gy,gz", rows)
        }
    }

    /// The bytes of the original, and of the drawn copy.
    static func file(_ d: DrawnLog, copy: Bool) -> (name: String, bytes: [UInt8]) {
        let o = original(d, timeUnit: copy && d.layout == 4 ? d.timeUnit : 0)
        guard copy else {
            return (o.name, Array(((o.comments + [o.header] + o.rows).joined(separator: "\n") + "\n").utf8))
        }
        var header = o.header
        if d.quoted && !header.hasPrefix("\"") {
            header = header.split(separator: ",").map { "\"\($0)\"" }.joined(separator: ",")
        }
        var rows = o.rows
        switch d.index {
        case 1:
            header = "," + header
            rows = rows.enumerated().map { "\($0),\($1)" }
        case 2:
            header = ",Unnamed: 0," + header
            rows = rows.enumerated().map { "\($0),\($0),\($1)" }
        default: break
        }
        if d.labels {
            header += ",label,activity"
            rows = rows.map { $0 + ",wrist,1" }
        }
        var lines = o.comments + [header] + rows
        if d.bom { lines[0] = "\u{FEFF}" + lines[0] }
        var name = o.name
        switch d.rename {
        case 1: name = "walk1_" + name
        case 2: name = name.replacingOccurrences(of: ".csv", with: " 3.csv")
        default: break
        }
        let end = d.crlf ? "\r\n" : "\n"
        return (name, Array((lines.joined(separator: end) + end).utf8))
    }

    /// The controller stream a file replays to: (time, controller, value) of every message.
    static func stream(name: String, bytes: [UInt8]) throws -> (
        events: [(Double, Int, Int)], frames: Int, refusal: String?
    ) {
        var options = ParserOptions()
        options.preview = InputPreview(
            fileName: name, head: Array(bytes.prefix(InputPreview.maxBytes)),
            complete: bytes.count <= InputPreview.maxBytes)
        var parser = SensorParser(options: options)
        var mapper = Mapper(mappings: [
            try Mapping(parsing: "accel.x cc=11 range=-1..1 bipolar smooth=0"),
            try Mapping(parsing: "gyro.y cc=12 range=-6..6 bipolar smooth=0")
        ])
        var framer = LineFramer(maxLineLength: 16_384)
        var frame = SensorFrame()
        var events: [(Double, Int, Int)] = []
        func line(_ l: FramedLine) {
            guard case .line(let b) = l, parser.parse(b, into: &frame) == .frame else { return }
            mapper.process(frame) { e in events.append((e.time, Int(e.midi!.controller), Int(e.midi!.value))) }
        }
        bytes.withUnsafeBytes { all in framer.feed(all) { line($0) } }
        framer.finish { line($0) }
        return (events, parser.stats.frames, parser.refusal)
    }
}

@Suite struct LayoutProperties {
    @Test func aCopyReplaysToTheSameControllerStream() async {
        var total = 0
        defer { #expect(total > 3_000, "only \(total) messages over every log: the property checked too little") }
        await propertyCheck(count: 300, input: LogDraw.log) { d in
            let a = LogWriter.file(d, copy: false), b = LogWriter.file(d, copy: true)
            guard let original = try? LogWriter.stream(name: a.name, bytes: a.bytes),
                let copy = try? LogWriter.stream(name: b.name, bytes: b.bytes)
            else {
                Issue.record("mappings did not parse"); return
            }
            #expect(
                original.refusal == nil && original.frames == d.count,
                "the original: \(original.frames) frames, \(original.refusal ?? "")")
            #expect(
                copy.refusal == nil && copy.frames == d.count, "the copy: \(copy.frames) frames, \(copy.refusal ?? "")")
            #expect(original.events.count > 3, "the original hardly moves")
            #expect(
                copy.events.count == original.events.count,
                "\(copy.events.count) messages, the original \(original.events.count)")
            for (x, y) in zip(original.events, copy.events) {
                guard x.1 == y.1 && x.2 == y.2 && abs(x.0 - y.0) < 1e-9 else {
                    Issue.record("the copy sent \(y), the original \(x)"); return
                }
            }
            total += original.events.count
        }
    }
}
