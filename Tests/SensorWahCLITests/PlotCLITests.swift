import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import XCTest

/// `sensorwah plot`: the SVG is read back with XMLParser; its positions are turned back into
/// seconds and controller values through the axis labels it draws, and compared with what
/// `replay` sends for the same log and mappings.
final class PlotCLITests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensorwah-plot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    // MARK: reading the picture back

    struct Element { var name: String; var attributes: [String: String]; var text = "" }

    final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            elements.append(Element(name: name, attributes: attributes))
            open.append(elements.count - 1)
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let i = open.last { elements[i].text += string }
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }
    }

    struct Picture {
        var elements: [Element]
        func all(_ cls: String, mapping: Int? = nil) -> [Element] {
            elements.filter {
                $0.attributes["class"] == cls && (mapping == nil || $0.attributes["data-mapping"] == String(mapping!))
            }
        }
        func one(_ cls: String, mapping: Int) throws -> Element {
            let found = all(cls, mapping: mapping)
            XCTAssertEqual(found.count, 1, "\(cls) of mapping \(mapping)")
            return try XCTUnwrap(found.first)
        }
        /// The linear map from an axis's labels (value -> position) and back.
        /// Labels sit 4 px below their line on the value axes (`baseline`).
        func axis(_ cls: String, position: String, mapping: Int = 1, baseline: Double = 0) throws -> (
            toValue: (Double) -> Double, labels: [Double]
        ) {
            var seen: [Double: Double] = [:]
            for e in all(cls, mapping: mapping) {
                guard let v = Double(e.text), let p = e.attributes[position].flatMap(Double.init) else { continue }
                seen[v] = p - baseline
            }
            let sorted = seen.keys.sorted()
            guard let a = sorted.first, let b = sorted.last, a != b else {
                throw XCTSkip("axis \(cls) has fewer than two labels")
            }
            let pa = seen[a]!, pb = seen[b]!
            return ({ p in a + (p - pa) / (pb - pa) * (b - a) }, sorted)
        }
    }

    func plot(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Picture {
        let out = dir.appendingPathComponent("plot-\(UUID().uuidString).svg").path
        let r = try CLI.run(["plot"] + args + ["-o", out])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        let parser = XMLParser(data: data)
        let c = Collector()
        parser.delegate = c
        XCTAssertTrue(
            parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))", file: file, line: line)
        return Picture(elements: c.elements)
    }

    /// The points of a path's `d` ("M x,y L x,y ...").
    func points(_ e: Element) throws -> [(x: Double, y: Double)] {
        let d = try XCTUnwrap(e.attributes["d"])
        return try d.split(whereSeparator: { $0 == "M" || $0 == "L" || $0 == " " }).map { pair in
            let xy = pair.split(separator: ",")
            return (try XCTUnwrap(Double(xy[0])), try XCTUnwrap(Double(xy[1])))
        }
    }

    /// Replay's stream for one controller or note: (time, value).
    func replay(_ args: [String], matching: String) throws -> [(t: Double, v: Int)] {
        let r = try CLI.run(["replay"] + args + ["--fast", "--midi", "stdout"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return CLI.lines(r.stdout).filter { $0.contains(matching) }.compactMap { l in
            guard let data = l.data(using: .utf8),
                let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let t = o["t"] as? Double, let v = (o["value"] ?? o["velocity"]) as? Int
            else { return nil }
            return (t, v)
        }
    }

    /// Rows of a Physics Toolbox log (time in seconds, gFx in G) at 100 Hz for `seconds`.
    func toolboxLog(_ name: String, seconds: Double, x: (Int, Double) -> Double) throws -> String {
        var lines = ["time,gFx,gFy,gFz,ax,ay,az,wx,wy,wz"]
        let n = Int(seconds * 100)
        lines.reserveCapacity(n + 1)
        for i in 0..<n {
            let t = Double(i) / 100
            lines.append(String(format: "%.3f,%.4f,0.0000,1.0000,0,0,0,0,0,0", t, x(i, t)))
        }
        let p = dir.appendingPathComponent(name).path
        try (lines.joined(separator: "\n") + "\n").write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    // MARK: tests

    let wah = "tilt.x zero cc=11", knock = "tap note=38 ch=10 length=120"

    /// Mappings from a configuration file: a panel each, with its three curves, both value axes,
    /// the time axis and the legend.
    func testEveryMappingHasItsCurvesAxesAndLegend() throws {
        let cfg = dir.appendingPathComponent("rig.yaml").path
        try "mappings:\n  - \(knock)\n  - \(wah)\n  - accel.y cc=7 range=-1..1\n".write(
            toFile: cfg, atomically: true, encoding: .utf8)
        let pic = try plot([CLI.recording("wrist-wah-phone.csv"), "--config", cfg])
        XCTAssertTrue(
            pic.elements.contains { $0.attributes["class"] == "title" && $0.text.contains("wrist-wah-phone.csv") })
        let panels = pic.all("panel-title").map(\.text)
        XCTAssertEqual(panels.count, 3)
        for (i, prefix) in ["1. \(knock)", "2. zero.x cc=11", "3. accel.y cc=7"].enumerated() where i < panels.count {
            // each mapping written out in full
            XCTAssertTrue(panels[i].hasPrefix(prefix), "panel \(i + 1): \(panels[i])")
        }
        for k in [2, 3] {
            for cls in ["raw", "smoothed", "sent"] {
                XCTAssertGreaterThan(try points(pic.one(cls, mapping: k)).count, 100, "\(cls) of mapping \(k)")
            }
        }
        // the knock mapping: a dot per knock, and its note as the sent curve
        XCTAssertEqual(pic.all("raw", mapping: 1).count, 3)
        XCTAssertGreaterThan(try points(pic.one("sent", mapping: 1)).count, 6)
        // axes: seconds along the bottom of each panel, 0-127 on the right, the source's units on the left
        let time = try pic.axis("tick-time", position: "x")
        XCTAssertEqual(time.labels.first ?? -1, 0)
        XCTAssertGreaterThanOrEqual(time.labels.last ?? 0, 12)
        XCTAssertEqual(pic.all("tick-sent").count, 15)
        XCTAssertEqual(Set(pic.all("tick-sent").map(\.text)), ["0", "32", "64", "96", "127"])
        XCTAssertGreaterThanOrEqual(pic.all("tick-raw").count, 9)
        let titles = pic.all("axis-title").map(\.text)
        XCTAssertEqual(titles.filter { $0 == "time (s)" }.count, 3)
        XCTAssertTrue(titles.contains("zero.x") && titles.contains("CC 11 on channel 1"), "\(titles)")
        let legend = pic.elements.filter { $0.name == "text" }.map(\.text)
        for l in [
            "raw reading (left axis)", "smoothed (left axis)", "sent to MIDI (right axis)", "outlier dropped", "gesture"
        ] {
            XCTAssertTrue(legend.contains(l), "legend: \(l)")
        }
    }

    /// The green curve is replay's controller stream: every value in order, at its time.
    func testSentCurveIsReplaysControllerStream() throws {
        let log = CLI.recording("wrist-wah-phone.csv")
        let pic = try plot([log, "--map", wah, "--map", "accel.y cc=7 range=-1..1 rate=20"])
        let time = try pic.axis("tick-time", position: "x").toValue
        for (k, cc) in [(1, 11), (2, 7)] {
            let value = try pic.axis("tick-sent", position: "y", mapping: k, baseline: 4).toValue
            let sent = try replay(
                [log, "--map", wah, "--map", "accel.y cc=7 range=-1..1 rate=20"], matching: #""cc":\#(cc),"#)
            XCTAssertGreaterThan(sent.count, 50)
            // the steps of the path: each change of value, where it happens
            let pts = try points(pic.one("sent", mapping: k))
            var drawn: [(t: Double, v: Int)] = [(time(pts[0].x), Int(value(pts[0].y).rounded()))]
            for p in pts.dropFirst() {
                let v = Int(value(p.y).rounded())
                if v != drawn.last!.v { drawn.append((time(p.x), v)) }
            }
            XCTAssertEqual(drawn.map(\.v), sent.map(\.v), "mapping \(k): the drawn values are not replay's")
            for (d, s) in zip(drawn, sent) { XCTAssertEqual(d.t, s.t, accuracy: 0.002, "mapping \(k) at \(s.t) s") }
        }
    }

    /// A one-sample spike the mapping drops: one red dot, at its time.
    func testOutlierIsMarkedAtItsTime() throws {
        let log = try toolboxLog("spike.csv", seconds: 3) { i, t in i == 150 ? 9 : 0.1 + 0.1 * t }
        let pic = try plot([log, "--map", "accel.x cc=11 reject=2 speed=none"])
        let time = try pic.axis("tick-time", position: "x").toValue
        let dots = pic.all("outlier", mapping: 1)
        XCTAssertEqual(dots.count, 1)
        XCTAssertEqual(time(Double(dots[0].attributes["cx"]!)!), 1.5, accuracy: 0.005)
        XCTAssertEqual(pic.all("outlier-value").map(\.text), ["9"], "a dot pinned to the edge says how far off it was")
        // the same spike kept (no reject=): no dot, and the raw curve reaches it
        let kept = try plot([log, "--map", "accel.x cc=11 reject=none speed=none"])
        XCTAssertTrue(kept.all("outlier").isEmpty)
        let y = try kept.axis("tick-raw", position: "y", baseline: 4).toValue
        let top = try XCTUnwrap(try points(kept.one("raw", mapping: 1)).min { $0.y < $1.y })
        XCTAssertEqual(y(top.y), 9, accuracy: 0.01)
    }

    /// The demo recording's three knocks and two flicks: a gesture line in every panel where
    /// replay plays each gesture's note.
    func testGesturesAreMarkedWhereTheyFire() throws {
        let log = CLI.recording("wrist-wah-phone.csv")
        let pic = try plot([log, "--map", knock, "--map", wah])
        let time = try pic.axis("tick-time", position: "x").toValue
        for (gesture, count) in [("tap", 3), ("flick", 2)] {
            let notes = try replay([log, "--map", "\(gesture) note=40"], matching: "note_on")
            XCTAssertEqual(notes.count, count, gesture)
            let lines = pic.all("gesture").filter { $0.attributes["data-gesture"] == gesture }
            XCTAssertEqual(lines.count, count * 2, "a \(gesture) line in each of the two panels")
            let drawn = Set(lines.map { (time(Double($0.attributes["x1"]!)!) * 1000).rounded() })
            XCTAssertEqual(drawn.count, count, gesture)
            for (d, n) in zip(drawn.sorted(), notes) { XCTAssertEqual(d / 1000, n.t, accuracy: 0.005, gesture) }
            XCTAssertTrue(pic.all("gesture-label").contains { $0.text == gesture })
        }
    }

    /// An hour-long log is cut to a few points per pixel column; a single spike still shows.
    func testLongLogKeepsItsSpike() throws {
        let log = try toolboxLog("long.csv", seconds: 1200) { i, t in i == 70_000 ? 0.9 : 0.2 * sin(t) }
        let pic = try plot([log, "--map", "accel.x cc=11 reject=none speed=none smooth=0"])
        let raw = try points(pic.one("raw", mapping: 1))
        XCTAssertLessThanOrEqual(raw.count, 4 * 1050)
        let time = try pic.axis("tick-time", position: "x").toValue
        let top = try XCTUnwrap(raw.min { $0.y < $1.y })
        XCTAssertEqual(time(top.x), 700, accuracy: 1.5)
        let y = try pic.axis("tick-raw", position: "y", baseline: 4).toValue
        XCTAssertEqual(y(top.y), 0.9, accuracy: 0.01)
    }

    func testUnreadableLogAndUnwritableOutput() throws {
        let bad = dir.appendingPathComponent("notes.txt").path
        try "just some words\nand more\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("bad.svg").path
        let p = try CLI.run(["plot", bad, "-o", out])
        let r = try CLI.run(["replay", bad, "--fast"])
        XCTAssertEqual(p.status, 1)
        let error = { (s: String) in CLI.lines(s).filter { $0.hasPrefix("Error:") } }
        XCTAssertEqual(error(p.stderr).count, 1, p.stderr)
        XCTAssertEqual(error(p.stderr), error(r.stderr))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "a failed plot left an empty file")
        let w = try CLI.run([
            "plot", CLI.recording("wrist-wah-phone.csv"), "-o", dir.appendingPathComponent("no/such/dir.svg").path
        ])
        XCTAssertEqual(w.status, 1)
        XCTAssertTrue(w.stderr.contains("cannot write") && w.stderr.contains("No such file or directory"), w.stderr)
        let d = try CLI.run(["plot", CLI.recording("wrist-wah-phone.csv"), "-o", dir.path])
        XCTAssertEqual(d.status, 1)
        XCTAssertTrue(d.stderr.contains("is a folder"), d.stderr)
    }

    /// The same log and mappings give the same bytes.
    func testOutputIsDeterministic() throws {
        let a = dir.appendingPathComponent("a.svg").path, b = dir.appendingPathComponent("b.svg").path
        for o in [a, b] { XCTAssertEqual(try CLI.run(["plot", CLI.recording("watch-sweeps.csv"), "-o", o]).status, 0) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)))
    }
}
