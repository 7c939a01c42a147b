import Atomics
import Foundation
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahRuntime

/// Filled through the listener's frame tap with the first sender's frames, read by the rig
/// (on the same loop) only after the tap is gone.
final class TeachBox: @unchecked Sendable {
    var capture: TeachCapture
    var sender: String?
    let frames = ManagedAtomic<Int>(0)
    let full = ManagedAtomic<Bool>(false)
    init(_ c: TeachCapture) { capture = c }
}

/// Teaching live in `listen --gestures FILE` (the live view's `t` key, the control page's
/// Teach panel): from `start` the first sender's frames are collected through the listener's
/// frame tap; each mark is a press ("that was one", or "this pose"); `finish` teaches the
/// presses into FILE (made when missing), writes it and puts the new model to work in every
/// sender at once. Driven by the live rig on the listener's loop, like the calibrate key.
final class LiveTeach {
    let name: String
    let value: Double?
    let path: String
    let listener: Listener
    let say: (String) -> Void
    let logger: Logger
    let box: TeachBox
    var baseTap: ((String, SensorFrame) -> Void)?
    private var presses: [UInt64] = []
    private var lastSaid = ""

    /// What the view and the page show while teaching: `swing` or `wah=0.5`.
    var label: String { value.map { "\(name)=\(Self.number($0))" } ?? name }

    static func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v) }

    init(
        name: String, value: Double?, path: String, listener: Listener, say: @escaping (String) -> Void, logger: Logger,
        baseTap: ((String, SensorFrame) -> Void)?
    ) {
        self.name = name; self.value = value; self.path = path
        self.listener = listener; self.say = say; self.logger = logger; self.baseTap = baseTap
        box = TeachBox(TeachCapture(name: name, kind: value.map { .pose(value: $0) } ?? .gesture))
        let box = self.box
        listener.replaceFrameTap { sender, f in
            baseTap?(sender, f)
            if box.sender == nil { box.sender = sender }
            guard box.sender == sender else { return }
            box.capture.add(f, arrived: monotonicNanos())
            box.frames.wrappingIncrement(ordering: .relaxed)
            if box.capture.isFull { box.full.store(true, ordering: .relaxed) }
        }
        say(steps)
        logger.notice("teach \(label): \(steps)")
    }

    var steps: String {
        value == nil
            ? "teach \(name): perform it; press space during or just after each one (3 to 5 times), Enter when done, Esc to drop"
            : "teach pose \(name) = \(Self.number(value!)): hold the pose still and press space, Enter when done, Esc to drop"
    }

    func mark(at nanos: UInt64) {
        guard box.full.load(ordering: .relaxed) == false else {
            say(
                "teach \(label): \(Int(TeachCapture.maxSeconds / 60)) minutes captured, the most one teach keeps: press Enter to teach what is marked"
            )
            return
        }
        guard box.frames.load(ordering: .relaxed) > 0 else {
            say("teach \(label): no readings yet: is the sender streaming? (press space again once it is)")
            return
        }
        presses.append(nanos)
        say(
            "teach \(label): \(presses.count) marked; \(value == nil ? "perform it again, or" : "hold another pose with another value after Enter, or") press Enter when done"
        )
    }

    /// Removes the frame tap (the end, or a run that stops mid-teach).
    func cancel() { listener.replaceFrameTap(baseTap) }

    /// Teaches the presses into the file and returns the new model (nil: nothing taught, or
    /// the file could not be read or written; `say` tells why).
    func finish() -> LearnedModel? {
        cancel()  // the frame tap has let go of the capture: it is ours to read
        var capture = box.capture
        guard !presses.isEmpty else { return fail("nothing marked (press space at each movement), nothing taught") }
        for p in presses { capture.press(at: p) }
        var model = LearnedModel()
        if FileManager.default.fileExists(atPath: path) {
            do { model = try GestureModelFile.read(path) } catch { return fail("\(error)") }
        }
        let stamp = ISO8601DateFormatter.string(
            from: Date(), timeZone: .current, formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime])
        let origin = "live \(stamp) from \(box.sender ?? "?")"
        let outcome = capture.teach(into: &model, origin: origin)
        for l in outcome.lines { logger.info("teach \(label): \(l)") }
        guard outcome.taught > 0 else { return fail(outcome.lines.last ?? "nothing taught") }
        if let e = model.validate() { return fail(e) }
        do { try GestureModelFile.write(model, to: path) } catch { return fail("\(error)") }
        let what: String
        if value == nil, let c = model.gestures.classes.first(where: { $0.name.lowercased() == name.lowercased() }) {
            what =
                "gesture:\(c.name) now has \(c.examples.count) example\(c.examples.count == 1 ? "" : "s")\(c.examples.count < 2 ? " (teach another so its threshold is learned)" : "")"
        } else if let q = model.poses.first(where: { $0.name.lowercased() == name.lowercased() }) {
            what =
                "pose:\(q.name) now has \(q.points.count) pose\(q.points.count == 1 ? "" : "s")\(q.points.count < 2 ? " (teach another with another value)" : "")"
        } else {
            what = ""
        }
        let line = "teach \(label): \(outcome.taught) of \(presses.count) taught, written to \(path); \(what)"
        say(line)
        logger.notice("\(line)")
        return model
    }

    private func fail(_ why: String) -> LearnedModel? {
        let line = "teach \(label): \(why)"
        say(line)
        logger.error("\(line)")
        return nil
    }
}
