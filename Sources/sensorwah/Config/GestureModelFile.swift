import Foundation
import SensorWahCore
import SensorWahIO
import Yams

/// The file of gestures and poses taught by example (`sensorwah teach` writes it, `--gestures`
/// reads it): YAML a person can read and tune. Every error names the file, the line and the
/// key, and says what is expected.
enum GestureModelFile {
    struct Problem: Error, CustomStringConvertible {
        var path: String
        var line: Int
        var key: String?
        var message: String
        var description: String { "\(path):\(line): \(key.map { "\($0): " } ?? "")\(message)" }
    }

    static let version = GestureModel.version

    // MARK: reading

    static func read(_ path: String) throws -> LearnedModel {
        let text: String
        do { text = try CarefulFile.readText(path, what: "the gestures file") } catch {
            throw Problem(
                path: path, line: 0, key: nil,
                message: error.missing
                    ? "cannot read the gestures file (make one with sensorwah teach FILE TAKE --marks MARKS)"
                    : error.description)
        }
        return try read(text: text, path: path)
    }

    static func read(text: String, path: String) throws -> LearnedModel {
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch let e as YamlError {
            let m = ConfigFile.mistake(in: e, text: text)
            throw Problem(path: path, line: m.line, key: nil, message: m.message)
        }
        guard let root, let top = root.mapping else {
            throw Problem(
                path: path, line: 1, key: nil,
                message: "not a gestures file: expected version:, gestures: and poses: (sensorwah teach writes one)")
        }
        func fail(_ n: Node?, _ key: String, _ message: String) -> Problem {
            Problem(path: path, line: n?.mark?.line ?? 1, key: key, message: message)
        }
        func number(_ n: Node, _ key: String) throws -> Double {
            guard let s = n.scalar?.string, let v = Double(s), v.isFinite else {
                throw fail(n, key, "expects a number, not '\(n.scalar?.string ?? "a list")'")
            }
            return v
        }
        var model = LearnedModel()
        // the version first, wherever it stands: a newer file is refused; an older one is read
        // for its poses (their layout has not changed) but refused when it holds gestures
        // (their features have)
        var older: Node?
        if let v = top.first(where: { $0.key.string == "version" })?.value {
            let n = try number(v, "version"), given = v.scalar?.string ?? "?"
            if n > Double(version) {
                throw fail(
                    v, "version",
                    "version \(given): written by a newer SensorWah; this one reads version \(version) (update SensorWah, or teach the gestures again with this one)"
                )
            }
            if n != Double(version) { older = v }
        }
        var sawVersion = false
        for (k, v) in top {
            guard let key = k.string else { continue }
            switch key {
            case "version":
                sawVersion = true
            case "rate":
                let r = try number(v, key)
                guard r == GestureFeatures.rate else {
                    throw fail(
                        v, key,
                        "frames at \(r) per second: this SensorWah's are at \(GestureFeatures.rate) (teach the gestures again with it)"
                    )
                }
            case "gestures":
                if v.scalar?.string == "" || v.scalar?.string == "~" { continue }
                guard let named = v.mapping else {
                    throw fail(v, key, "expects gestures by name, each with its taught examples")
                }
                if let older, named.count > 0 {
                    throw fail(
                        older, "version",
                        "version \(older.scalar?.string ?? "?"): this SensorWah reads version \(version), and the gestures' features have changed since: move this file aside, teach the gestures again from your takes into a new one, then copy this file's poses: section over as it is"
                    )
                }
                for (nk, nv) in named {
                    guard let name = nk.string, LearnedSource.validName(Substring(name)) else {
                        throw fail(
                            nk, key, "'\(nk.string ?? "")' is not a gesture name (letters, digits, - and _, up to 40)")
                    }
                    model.gestures.classes.append(try gestureClass(name, nv, path: path, number: number, fail: fail))
                }
            case "poses":
                if v.scalar?.string == "" || v.scalar?.string == "~" { continue }
                guard let named = v.mapping else { throw fail(v, key, "expects poses by name, each a list of points") }
                for (nk, nv) in named {
                    guard let name = nk.string, LearnedSource.validName(Substring(name)) else {
                        throw fail(
                            nk, key, "'\(nk.string ?? "")' is not a pose name (letters, digits, - and _, up to 40)")
                    }
                    model.poses.append(try poseSet(name, nv, path: path, number: number, fail: fail))
                }
            default:
                throw fail(k, key, "unknown key; a gestures file holds version:, rate:, gestures: and poses:")
            }
        }
        guard sawVersion else {
            throw fail(
                root, "version", "missing: a gestures file starts with version: \(version) (is this a gestures file?)")
        }
        if let e = model.validate() { throw fail(root, "gestures", e) }
        return model
    }

    private static func gestureClass(
        _ name: String, _ v: Node, path: String,
        number: (Node, String) throws -> Double,
        fail: (Node?, String, String) -> Problem
    ) throws -> GestureModel.Class {
        let key = "gestures.\(name)"
        guard let m = v.mapping else { throw fail(v, key, "expects threshold:, tune:, gyro: and taught:") }
        var c = GestureModel.Class(name: name)
        var sawThreshold = false
        for (k, x) in m {
            guard let f = k.string else { continue }
            switch f {
            case "examples", "rest":
                if f == "rest" { c.rest = try number(x, "\(key).rest") }  // the count is the reader's
            case "threshold":
                c.threshold = try number(x, "\(key).threshold")
                guard c.threshold > 0 else { throw fail(x, "\(key).threshold", "must be above 0") }
                sawThreshold = true
            case "tune":
                c.tune = try number(x, "\(key).tune")
                guard c.tune > 0, c.tune <= 10 else {
                    throw fail(x, "\(key).tune", "a scale of the threshold above 0, at most 10 (1 = as learned)")
                }
            case "gyro":
                guard let b = x.scalar?.string.lowercased(), ["true", "false", "yes", "no"].contains(b) else {
                    throw fail(x, "\(key).gyro", "expects true or false")
                }
                c.gyro = b == "true" || b == "yes"
            case "spread":
                guard let s = x.sequence else { throw fail(x, "\(key).spread", "expects a list of numbers") }
                c.spread = try s.map { try number($0, "\(key).spread") }
            case "taught":
                guard let s = x.sequence else { throw fail(x, "\(key).taught", "expects a list of examples") }
                for (i, e) in s.enumerated() {
                    let ek = "\(key).taught[\(i + 1)]"
                    guard let em = e.mapping else { throw fail(e, ek, "expects from:, seconds: and frames:") }
                    var origin = "", values: [Double] = []
                    var sawFrames = false
                    for (ek2, ev) in em {
                        switch ek2.string ?? "" {
                        case "from": origin = ev.scalar?.string ?? ""
                        case "seconds": _ = try number(ev, "\(ek).seconds")
                        case "frames":
                            guard let rows = ev.sequence, !rows.isEmpty else {
                                throw fail(ev, "\(ek).frames", "expects a list of frames")
                            }
                            for r in rows {
                                guard let cells = r.sequence, cells.count == GestureFeatures.dims else {
                                    throw fail(
                                        r, "\(ek).frames",
                                        "each frame is [\(GestureFeatures.dims) numbers]: accelerometer x y z, its magnitude, rotation rate x y z"
                                    )
                                }
                                for cell in cells { values.append(try number(cell, "\(ek).frames")) }
                            }
                            sawFrames = true
                        default:
                            throw fail(ek2, ek, "unknown key; an example holds from:, seconds: and frames:")
                        }
                    }
                    guard sawFrames else { throw fail(e, ek, "has no frames:") }
                    c.examples.append(GestureModel.Example(values: values, origin: origin))
                }
            default:
                throw fail(
                    k, key,
                    "unknown key; a gesture holds examples:, threshold:, tune:, gyro:, spread:, rest: and taught:")
            }
        }
        guard !c.examples.isEmpty else { throw fail(v, key, "has no taught examples") }
        guard sawThreshold else { throw fail(v, key, "has no threshold:") }
        return c
    }

    private static func poseSet(
        _ name: String, _ v: Node, path: String,
        number: (Node, String) throws -> Double,
        fail: (Node?, String, String) -> Problem
    ) throws -> PoseSet {
        let key = "poses.\(name)"
        guard let s = v.sequence, !s.isEmpty else {
            throw fail(v, key, "expects a list of points, each with value: and gravity: [x, y, z]")
        }
        var set = PoseSet(name: name)
        for (i, p) in s.enumerated() {
            let pk = "\(key)[\(i + 1)]"
            guard let pm = p.mapping else { throw fail(p, pk, "expects value:, gravity: [x, y, z] and from:") }
            var value: Double?, gravity: Vector3?, origin = ""
            for (k, x) in pm {
                switch k.string ?? "" {
                case "value": value = try number(x, "\(pk).value")
                case "gravity":
                    guard let g = x.sequence, g.count == 3 else {
                        throw fail(x, "\(pk).gravity", "expects [x, y, z], the gravity direction in the device")
                    }
                    let v3 = Vector3(try number(g[0], pk), try number(g[1], pk), try number(g[2], pk))
                    guard v3.length > 1e-6 else { throw fail(x, "\(pk).gravity", "is zero: a direction is needed") }
                    gravity = v3
                case "from": origin = x.scalar?.string ?? ""
                default: throw fail(k, pk, "unknown key; a pose point holds value:, gravity: and from:")
                }
            }
            guard let value, let gravity else { throw fail(p, pk, "needs both value: and gravity:") }
            set.points.append(PoseSet.Point(gravity: gravity, value: value, origin: origin))
        }
        return set
    }

    // MARK: writing

    static func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func text(_ model: LearnedModel) -> String {
        var out = """
            # SensorWah: gestures and poses taught by example (sensorwah teach writes this file;
            # --gestures FILE reads it). Tune a gesture with 'tune': it scales the learned threshold
            # (above 1 takes looser matches, below 1 stricter); teaching more examples learns the
            # threshold again and keeps 'tune'.
            version: \(version)
            rate: \(Int(GestureFeatures.rate))   # feature frames per second: accelerometer x y z, its magnitude, rotation rate x y z

            """
        if model.gestures.classes.isEmpty { out += "gestures: {}\n" } else { out += "gestures:\n" }
        for c in model.gestures.classes {
            let secs = c.examples.map { NumberText.printf($0.duration, 2, minusZero: false) }.joined(separator: ", ")
            out += "  \(c.name):\n"
            out += "    examples: \(c.examples.count)   # lasting \(secs) s\n"
            out +=
                "    threshold: \(NumberText.printf(c.threshold, 5, minusZero: false))   # learned: a movement matching within this counts\n"
            out += "    tune: \(NumberText.printf(c.tune, 2, minusZero: false))\n"
            out += "    gyro: \(c.gyro)\n"
            if !c.spread.isEmpty {
                out +=
                    "    spread: [\(c.spread.map { NumberText.printf($0, 5, minusZero: false) }.joined(separator: ", "))]   # each example's distance to its nearest sibling\n"
            }
            if c.rest.isFinite {
                out +=
                    "    rest: \(NumberText.printf(c.rest, 5, minusZero: false))   # the distance at which a device held still would match\n"
            }
            out += "    taught:\n"
            for e in c.examples {
                out += "      - from: \(quoted(e.origin))\n"
                out += "        seconds: \(NumberText.printf(e.duration, 2, minusZero: false))\n"
                out += "        frames:\n"
                let D = GestureFeatures.dims
                for i in 0..<e.frames {
                    out +=
                        "          - ["
                        + (0..<D).map { NumberText.printf(e.values[i * D + $0], 4, minusZero: false) }.joined(
                            separator: ", ") + "]\n"
                }
            }
        }
        if model.poses.isEmpty { out += "poses: {}\n" } else { out += "poses:\n" }
        for p in model.poses {
            out += "  \(p.name):\n"
            for q in p.points {
                out += "    - value: \(NumberText.printf(q.value, 4, minusZero: false))\n"
                out +=
                    "      gravity: [\(NumberText.printf(q.gravity.x, 5, minusZero: false)), \(NumberText.printf(q.gravity.y, 5, minusZero: false)), \(NumberText.printf(q.gravity.z, 5, minusZero: false))]\n"
                out += "      from: \(quoted(q.origin))\n"
            }
        }
        return out
    }

    /// Writes the model (a temporary file renamed over the old one: a crash leaves either).
    static func write(_ model: LearnedModel, to path: String) throws {
        // a new file of a random name renamed over: the mode kept, a link kept a link
        do { try CarefulFile.replace(path, with: Array(text(model).utf8)) } catch {
            throw Problem(path: path, line: 0, key: nil, message: "cannot write the gestures file: \(error)")
        }
    }
}
