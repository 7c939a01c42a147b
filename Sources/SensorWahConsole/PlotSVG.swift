import SensorWahCore
#if canImport(Glibc)
    import Glibc
#endif

/// Draws a `PlotTrace` as an SVG document: one panel per mapping over a shared time axis in
/// seconds, the raw and smoothed values on the left axis (the source's units), the values sent
/// on the right axis (0-127, or 0-16383 for 14-bit), dropped outliers as red dots, gestures as
/// dashed lines. Plain text, written by hand, the same bytes for the same trace.
///
/// A long log keeps its shape: each series is cut to at most four points per pixel column
/// (the first, lowest, highest and last), so a one-sample spike stays visible.
public enum PlotSVG {
    public static let width = 1200.0
    static let left = 80.0, right = 70.0
    static let header = 78.0
    static let panelTitle = 22.0, panelHeight = 180.0, panelGap = 48.0
    static var plotWidth: Double { width - left - right }

    static let rawColour = "#7f8c9d", smoothColour = "#e67e22", sentColour = "#1e8449"
    static let outlierColour = "#c0392b", gestureColour = "#8e44ad"

    /// The document; `title` names the log.
    public static func render(_ trace: PlotTrace, title: String) -> String {
        let lanes = trace.lanes
        let height = header + Double(lanes.count) * (panelTitle + panelHeight + panelGap) + 20
        var t0 = trace.start, t1 = trace.end
        if !(t0 <= t1) { t0 = 0; t1 = 1 }
        if t1 - t0 < 1e-9 { t1 = t0 + 1 }
        if t0 > 0 && t0 < (t1 - t0) * 0.1 { t0 = 0 }  // a log that starts just after 0 s: the axis starts at 0
        let time = Scale(from: t0, to: t1, onto: left, left + plotWidth)
        var s = ""
        s += ##"<?xml version="1.0" encoding="UTF-8"?>"## + "\n"
        s +=
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(n(width))" height="\##(n(height))" viewBox="0 0 \##(n(width)) \##(n(height))" font-family="sans-serif" font-size="12">"##
            + "\n"
        s += ##"<title>SensorWah plot: \##(escape(title))</title>"## + "\n"
        s += ##"<rect width="100%" height="100%" fill="white"/>"## + "\n"
        s +=
            ##"<text class="title" x="\##(n(left))" y="26" font-size="18" font-weight="bold">SensorWah plot: \##(escape(title))</text>"##
            + "\n"
        let seconds = t1 - t0
        s +=
            ##"<text class="subtitle" x="\##(n(left))" y="46" fill="#555">\##(trace.frames) frames, \##(n(seconds, 1)) s, \##(lanes.count) mapping\##(lanes.count == 1 ? "" : "s"), \##(trace.gestures.count) gesture\##(trace.gestures.count == 1 ? "" : "s")</text>"##
            + "\n"
        s += legend(y: 66)
        for (i, lane) in lanes.enumerated() {
            let top = header + Double(i) * (panelTitle + panelHeight + panelGap) + panelTitle
            s += panel(i, lane, top: top, time: time, gestures: trace.gestures)
        }
        s += "</svg>\n"
        return s
    }

    static func legend(y: Double) -> String {
        var s = ##"<g class="legend">"## + "\n"
        var x = left
        func line(_ colour: String, _ label: String, width w: Double = 2, dash: String? = nil) {
            let d = dash.map { ##" stroke-dasharray="\##($0)""## } ?? ""
            s +=
                ##"<line x1="\##(n(x))" y1="\##(n(y - 4))" x2="\##(n(x + 24))" y2="\##(n(y - 4))" stroke="\##(colour)" stroke-width="\##(n(w))"\##(d)/>"##
            s += ##"<text x="\##(n(x + 30))" y="\##(n(y))">\##(label)</text>"## + "\n"
            x += 44 + Double(label.count) * 6.5
        }
        line(rawColour, "raw reading (left axis)", width: 1)
        line(smoothColour, "smoothed (left axis)")
        line(sentColour, "sent to MIDI (right axis)")
        s += ##"<circle cx="\##(n(x + 6))" cy="\##(n(y - 4))" r="3.5" fill="\##(outlierColour)"/>"##
        s += ##"<text x="\##(n(x + 16))" y="\##(n(y))">outlier dropped</text>"## + "\n"
        x += 16 + 15 * 6.5 + 14
        line(gestureColour, "gesture", width: 1.5, dash: "4 3")
        s += "</g>\n"
        return s
    }

    static func panel(
        _ i: Int, _ lane: PlotTrace.Lane, top: Double, time: Scale, gestures: [(time: Double, gesture: Gesture)]
    ) -> String {
        let m = lane.mapping
        let bottom = top + panelHeight
        let k = i + 1
        var s = ##"<g class="panel" id="mapping-\##(k)">"## + "\n"
        s +=
            ##"<text class="panel-title" x="\##(n(left))" y="\##(n(top - 7))" font-weight="bold">\##(k). \##(escape(m.syntax))</text>"##
            + "\n"
        s +=
            ##"<clipPath id="clip-\##(k)"><rect x="\##(n(left))" y="\##(n(top))" width="\##(n(plotWidth))" height="\##(n(panelHeight))"/></clipPath>"##
            + "\n"
        s +=
            ##"<rect x="\##(n(left))" y="\##(n(top))" width="\##(n(plotWidth))" height="\##(n(panelHeight))" fill="#fbfbfb" stroke="#999"/>"##
            + "\n"

        // left axis: the source's units, covering the mapping's range and every reading kept
        var lo = min(m.inputMin, lane.keptMin.isNaN ? m.inputMin : lane.keptMin)
        var hi = max(m.inputMax, lane.keptMax.isNaN ? m.inputMax : lane.keptMax)
        if !lo.isFinite || !hi.isFinite { lo = -1; hi = 1 }
        if hi - lo < 1e-9 { lo -= 0.5; hi += 0.5 }
        let pad = (hi - lo) * 0.05
        let rawY = Scale(from: lo - pad, to: hi + pad, onto: bottom, top)
        let maxOut = Double(m.target.maxValue)
        let sentY = Scale(from: 0, to: maxOut, onto: bottom - 4, top + 4)

        // grid and ticks
        let rawTicks = ticks(lo - pad, hi + pad, about: 5)
        for v in rawTicks.values {
            let y = rawY.map(v)
            s +=
                ##"<line class="grid" x1="\##(n(left))" y1="\##(n(y))" x2="\##(n(left + plotWidth))" y2="\##(n(y))" stroke="#e3e3e3"/>"##
            s +=
                ##"<text class="tick-raw" data-mapping="\##(k)" x="\##(n(left - 6))" y="\##(n(y + 4))" text-anchor="end">\##(n(v, rawTicks.decimals))</text>"##
                + "\n"
        }
        let quarter = (maxOut + 1) / 4
        for v in maxOut > 1 ? [0, quarter, 2 * quarter, 3 * quarter, maxOut] : [0, 1] {
            let y = sentY.map(v)
            s +=
                ##"<text class="tick-sent" data-mapping="\##(k)" x="\##(n(left + plotWidth + 6))" y="\##(n(y + 4))" fill="\##(sentColour)">\##(Int(v))</text>"##
                + "\n"
        }
        let timeTicks = ticks(time.lo, time.hi, about: 12)
        for v in timeTicks.values {
            let x = time.map(v)
            s +=
                ##"<line class="grid" x1="\##(n(x))" y1="\##(n(top))" x2="\##(n(x))" y2="\##(n(bottom))" stroke="#e3e3e3"/>"##
            s +=
                ##"<text class="tick-time" data-mapping="\##(k)" x="\##(n(x))" y="\##(n(bottom + 15))" text-anchor="middle">\##(n(v, timeTicks.decimals))</text>"##
                + "\n"
        }
        s +=
            ##"<text class="axis-title" x="\##(n(left + plotWidth))" y="\##(n(bottom + 32))" text-anchor="end">time (s)</text>"##
            + "\n"
        let midY = (top + bottom) / 2
        s +=
            ##"<text class="axis-title" x="\##(n(left - 52))" y="\##(n(midY))" text-anchor="middle" transform="rotate(-90 \##(n(left - 52)) \##(n(midY)))">\##(escape(m.source.description))</text>"##
            + "\n"
        let rightX = left + plotWidth + 52
        s +=
            ##"<text class="axis-title" x="\##(n(rightX))" y="\##(n(midY))" text-anchor="middle" fill="\##(sentColour)" transform="rotate(90 \##(n(rightX)) \##(n(midY)))">\##(escape(m.target.description))</text>"##
            + "\n"

        // gestures
        for g in gestures {
            let x = time.map(g.time)
            s +=
                ##"<line class="gesture" data-gesture="\##(g.gesture)" x1="\##(n(x))" y1="\##(n(top))" x2="\##(n(x))" y2="\##(n(bottom))" stroke="\##(gestureColour)" stroke-width="1.5" stroke-dasharray="4 3"/>"##
            s +=
                ##"<text class="gesture-label" x="\##(n(x + 3))" y="\##(n(top + 12))" fill="\##(gestureColour)" font-size="10">\##(g.gesture)</text>"##
                + "\n"
        }

        // the curves, clipped to the panel (a reading beyond the axis shows at its edge)
        s += ##"<g clip-path="url(#clip-\##(k))">"## + "\n"
        if m.target.isTrigger {
            // a gesture's strength on the frames it fired: a dot each
            for j in 0..<lane.raw.count {
                s +=
                    ##"<circle class="raw" data-mapping="\##(k)" cx="\##(n(time.map(lane.raw.t[j])))" cy="\##(n(rawY.clamped(lane.raw.v[j])))" r="2.5" fill="\##(rawColour)"/>"##
                    + "\n"
            }
        } else {
            s += path("raw", k, lane.raw, time: time, y: rawY, colour: rawColour, width: 1)
            s += path("smoothed", k, lane.smoothed, time: time, y: rawY, colour: smoothColour, width: 2)
        }
        s += path("sent", k, steps(lane.sent, until: time.hi), time: time, y: sentY, colour: sentColour, width: 2)
        s += "</g>\n"
        for j in 0..<lane.outliers.count {
            let x = time.map(lane.outliers.t[j]), y = rawY.clamped(lane.outliers.v[j])
            let v = lane.outliers.v[j]
            s +=
                ##"<circle class="outlier" data-mapping="\##(k)" cx="\##(n(x))" cy="\##(n(y))" r="3.5" fill="\##(outlierColour)"><title>dropped \##(n(v, 3)) at \##(n(lane.outliers.t[j], 3)) s</title></circle>"##
                + "\n"
            if v < rawY.lo || v > rawY.hi {  // beyond the axis: say how far
                s +=
                    ##"<text class="outlier-value" x="\##(n(x + 6))" y="\##(n(v > rawY.hi ? y + 12 : y - 4))" fill="\##(outlierColour)" font-size="10">\##(n(v, 3))</text>"##
                    + "\n"
            }
        }
        s += "</g>\n"
        return s
    }

    /// A series as one polyline, at most four points per pixel column.
    static func path(
        _ name: String, _ k: Int, _ series: PlotTrace.Series, time: Scale, y: Scale, colour: String, width: Double
    ) -> String {
        let keep = decimate(series, time: time, columns: Int(plotWidth))
        var d = ""
        d.reserveCapacity(keep.count * 16)
        var first = true
        for j in keep {
            let v = series.v[j]
            guard v.isFinite else { continue }
            d += first ? "M" : " L"
            d += n(time.map(series.t[j])) + "," + n(y.clamped(v))
            first = false
        }
        return
            ##"<path class="\##(name)" data-mapping="\##(k)" d="\##(d)" fill="none" stroke="\##(colour)" stroke-width="\##(n(width))" stroke-linejoin="round"/>"##
            + "\n"
    }

    /// A value that holds until the next one: each change as a vertical step, the last value
    /// held to `end`.
    static func steps(_ s: PlotTrace.Series, until end: Double) -> PlotTrace.Series {
        var out = PlotTrace.Series()
        for j in 0..<s.count {
            if j > 0 { out.add(s.t[j], s.v[j - 1]) }
            out.add(s.t[j], s.v[j])
        }
        if let t = s.t.last, let v = s.v.last, t < end { out.add(end, v) }
        return out
    }

    /// The indices to draw: every point when there are few, else per pixel column the first,
    /// the lowest, the highest and the last (in time order), so the drawn shape is the same.
    static func decimate(_ s: PlotTrace.Series, time: Scale, columns: Int) -> [Int] {
        if s.count <= columns * 4 { return Array(0..<s.count) }
        var keep: [Int] = []
        keep.reserveCapacity(columns * 4)
        var j = 0
        while j < s.count {
            let col = time.column(s.t[j], columns: columns)
            var lowest = j, highest = j, last = j
            var k = j + 1
            while k < s.count, time.column(s.t[k], columns: columns) == col {
                if s.v[k] < s.v[lowest] { lowest = k }
                if s.v[k] > s.v[highest] { highest = k }
                last = k
                k += 1
            }
            var picked = [j, lowest, highest, last]
            picked.sort()
            for p in picked where keep.last != p { keep.append(p) }
            j = k
        }
        return keep
    }

    /// A linear map from data to pixels.
    struct Scale {
        let lo: Double, hi: Double, a: Double, b: Double
        init(from lo: Double, to hi: Double, onto a: Double, _ b: Double) {
            self.lo = lo; self.hi = hi; self.a = a; self.b = b
        }
        func map(_ v: Double) -> Double { a + (v - lo) / (hi - lo) * (b - a) }
        /// Kept inside the axis: a value beyond it sits on its edge.
        func clamped(_ v: Double) -> Double { map(min(max(v, lo), hi)) }
        func column(_ v: Double, columns: Int) -> Int {
            min(max(Int((v - lo) / (hi - lo) * Double(columns)), 0), columns - 1)
        }
    }

    /// Round tick values (1, 2 or 5 times a power of ten apart) covering lo...hi, about `count` of them.
    static func ticks(_ lo: Double, _ hi: Double, about count: Int) -> (values: [Double], decimals: Int) {
        let raw = (hi - lo) / Double(count)
        guard raw > 0, raw.isFinite else { return ([lo], 0) }
        let p = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * p }.first { $0 >= raw } ?? 10 * p
        let decimals = max(0, Int(-floor(log10(step) + 1e-9)))
        var values: [Double] = []
        var v = ceil(lo / step - 1e-9) * step
        while v <= hi + step * 1e-9 {
            values.append(abs(v) < step * 1e-9 ? 0 : v)
            v += step
        }
        return (values, decimals)
    }

    /// A number with at most `decimals` decimals, trailing zeros dropped ("12", "0.5", "-3.25").
    static func n(_ x: Double, _ decimals: Int = 2) -> String {
        guard x.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (x * scale).rounded()
        if r == 0 { return "0" }
        let neg = r < 0
        let whole = Int(abs(r) / scale)
        var frac = Int(abs(r) - Double(whole) * scale)
        var digits = decimals
        while digits > 0 && frac % 10 == 0 { frac /= 10; digits -= 1 }
        var s = neg ? "-" : ""
        s += String(whole)
        if digits > 0 {
            let f = String(frac)
            s += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return s
    }

    static func escape(_ text: String) -> String {
        var s = ""
        for c in text {
            switch c {
            case "&": s += "&amp;"
            case "<": s += "&lt;"
            case ">": s += "&gt;"
            case "\"": s += "&quot;"
            default: s.append(c)
            }
        }
        return s
    }
}
