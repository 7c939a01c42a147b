#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SensorWahCore

/// `sensorwah plot --audio`: the spectrum of a sound over time as a compact SVG picture (plain
/// text, no I/O), with an optional line on top (the wah's centre frequency the gesture asks
/// for), so a reader sees the wrist open the wah on the guitar.
///
/// Hann-windowed FFTs of 4096 samples at about `columns` times over the sound; their power is
/// summed into `bands` bands spaced evenly in log frequency from `low` to `high` Hz, in dB
/// relative to the loudest cell, drawn as `levels` shades over the `range` dB below it. Cells
/// of one band and shade next to each other in time are drawn as one rectangle, which keeps
/// the file small.
public enum SpectrogramSVG {
    public struct Options: Sendable {
        public var columns = 160
        public var bands = 48
        public var low = 60.0
        public var high = 10_000.0
        public var range = 60.0
        public var levels = 12
        public init() {}
    }

    /// The power per band (rows, low to high) per column (time), in dB below the loudest cell
    /// (0 the loudest), and each column's time in seconds.
    public static func analyse(_ x: [Float], rate: Int, options o: Options = .init()) -> (
        times: [Double], db: [[Double]]
    ) {
        let n = 4096
        guard x.count >= n, rate > 0 else { return ([], []) }
        let hop = max(1, (x.count - n) / max(o.columns - 1, 1))
        var edges: [Double] = []
        for b in 0...o.bands { edges.append(o.low * pow(o.high / o.low, Double(b) / Double(o.bands))) }
        let binHz = Double(rate) / Double(n)
        let window = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n - 1)) }
        var times: [Double] = []
        var power: [[Double]] = []
        var re = [Double](repeating: 0, count: n), im = re
        var start = 0
        while start + n <= x.count {
            for i in 0..<n { re[i] = Double(x[start + i]) * window[i]; im[i] = 0 }
            fft(&re, &im)
            var col = [Double](repeating: 1e-20, count: o.bands)
            for k in 1..<(n / 2) {
                let f = Double(k) * binHz
                guard f >= o.low, f < o.high else { continue }
                let b = min(Int(log(f / o.low) / log(o.high / o.low) * Double(o.bands)), o.bands - 1)
                col[b] += re[k] * re[k] + im[k] * im[k]
            }
            power.append(col)
            times.append((Double(start) + Double(n) / 2) / Double(rate))
            start += hop
        }
        let loudest = power.flatMap { $0 }.max() ?? 1
        let db = power.map { $0.map { 10 * log10($0 / loudest) } }
        return (times, db)
    }

    /// The picture: the spectrogram, time (s) along, frequency (Hz, log) up; `line` (time,
    /// frequency) drawn over it, labelled `lineLabel`.
    public static func render(
        _ x: [Float], rate: Int, title: String, line: [(t: Double, hz: Double)] = [],
        lineLabel: String = "", options o: Options = .init()
    ) -> String {
        let (times, db) = analyse(x, rate: rate, options: o)
        let w = 900.0, h = 360.0, left = 60.0, top = 36.0, right = 20.0, bottom = 40.0
        let pw = w - left - right, ph = h - top - bottom
        let duration = Double(x.count) / Double(max(rate, 1))
        func px(_ t: Double) -> Double { left + pw * min(max(t / max(duration, 1e-9), 0), 1) }
        func py(_ hz: Double) -> Double { top + ph * (1 - log(hz / o.low) / log(o.high / o.low)) }
        func n1(_ v: Double) -> String { NumberText.rounded(v, 1) }
        var s =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" viewBox=\"0 0 \(Int(w)) \(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(Int(left))\" y=\"22\" font-size=\"14\">\(escape(title))</text>\n"
        // one shade per level: dark blue (quiet) to yellow (loud)
        let shades = (0..<o.levels).map { k -> String in
            let u = Double(k) / Double(max(o.levels - 1, 1))
            let r = Int(20 + 235 * u), g = Int(20 + 200 * u * u), b = Int(90 + 60 * (1 - u) - 90 * u)
            return "rgb(\(r),\(g),\(max(b, 0)))"
        }
        s +=
            "<rect x=\"\(n1(left))\" y=\"\(n1(top))\" width=\"\(n1(pw))\" height=\"\(n1(ph))\" fill=\"\(shades[0])\"/>\n<g shape-rendering=\"crispEdges\">\n"
        let bandHeight = ph / Double(o.bands)
        let colWidth = times.count > 1 ? (times[1] - times[0]) : duration
        for b in 0..<o.bands {
            var c = 0
            while c < times.count {
                let level = Self.level(db[c][b], o)
                var end = c + 1
                while end < times.count && Self.level(db[end][b], o) == level { end += 1 }
                if level > 0 {
                    let x0 = px(times[c] - colWidth / 2), x1 = px(times[end - 1] + colWidth / 2)
                    let y0 = top + ph - Double(b + 1) * bandHeight
                    s +=
                        "<rect x=\"\(n1(x0))\" y=\"\(n1(y0))\" width=\"\(n1(x1 - x0))\" height=\"\(n1(bandHeight + 0.2))\" fill=\"\(shades[level])\"/>\n"
                }
                c = end
            }
        }
        s += "</g>\n"
        // axes: seconds along, a few frequencies up
        var t = 0.0
        let step = duration > 20 ? 5.0 : (duration > 6 ? 2.0 : 1.0)
        while t <= duration + 1e-9 {
            s += "<text x=\"\(n1(px(t)))\" y=\"\(n1(top + ph + 16))\" text-anchor=\"middle\">\(Int(t))</text>\n"
            t += step
        }
        s += "<text x=\"\(n1(left + pw / 2))\" y=\"\(n1(h - 6))\" text-anchor=\"middle\">seconds</text>\n"
        for hz in [100.0, 250, 500, 1000, 2000, 4000, 8000] where hz >= o.low && hz <= o.high {
            let label = hz >= 1000 ? "\(Int(hz / 1000)) kHz" : "\(Int(hz)) Hz"
            s += "<text x=\"\(n1(left - 6))\" y=\"\(n1(py(hz) + 4))\" text-anchor=\"end\">\(label)</text>\n"
        }
        if !line.isEmpty {
            var d = ""
            for (i, p) in line.enumerated() where p.hz.isFinite && p.hz > 0 {
                d += (i == 0 ? "M" : " L") + "\(n1(px(p.t))),\(n1(py(min(max(p.hz, o.low), o.high))))"
            }
            s += "<path d=\"\(d)\" fill=\"none\" stroke=\"white\" stroke-width=\"1.6\" stroke-dasharray=\"5,3\"/>\n"
            if !lineLabel.isEmpty {
                s +=
                    "<text x=\"\(n1(left + pw - 4))\" y=\"\(n1(top + 16))\" text-anchor=\"end\" fill=\"white\">\(escape(lineLabel))</text>\n"
            }
        }
        s += "</svg>\n"
        return s
    }

    static func level(_ db: Double, _ o: Options) -> Int {
        guard db.isFinite else { return 0 }
        let u = 1 + db / o.range
        return min(max(Int((u * Double(o.levels)).rounded(.down)), 0), o.levels - 1)
    }

    static func escape(_ t: String) -> String {
        var out = ""
        for c in t {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// In-place radix-2 FFT (the length a power of two).
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let a = -2 * Double.pi / Double(len)
            let wr = cos(a), wi = sin(a)
            var i = 0
            while i < n {
                var cr = 1.0, ci = 0.0
                for k in 0..<(len / 2) {
                    let ur = re[i + k], ui = im[i + k]
                    let vr = re[i + k + len / 2] * cr - im[i + k + len / 2] * ci
                    let vi = re[i + k + len / 2] * ci + im[i + k + len / 2] * cr
                    re[i + k] = ur + vr; im[i + k] = ui + vi
                    re[i + k + len / 2] = ur - vr; im[i + k + len / 2] = ui - vi
                    let nr = cr * wr - ci * wi
                    ci = cr * wi + ci * wr
                    cr = nr
                }
                i += len
            }
            len <<= 1
        }
    }
}
