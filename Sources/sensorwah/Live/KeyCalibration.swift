import Atomics
import Logging
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import SensorWahRuntime

/// The live view's `c` key in `listen --config`: traces the soloed mapping's source from the
/// running listener like `sensorwah calibrate N` does (hold the rest pose, then move through
/// the range), then writes range= (and centre=) into mapping N of the file, whose reload puts
/// it to work at once. Driven by the live rig (`LiveRig`, `step` every 10-50 ms on the
/// listener's loop, at the rig's clock); the trace is filled through the listener's frame tap.
final class KeyCalibration {
    static let seconds = 6.0, restSeconds = 1.5, patience = 15.0
    let index: Int
    let mapping: Mapping
    let path: String
    let listener: Listener
    /// Where its progress is said: the live view's message line and the control page's.
    let say: (String) -> Void
    let logger: Logger
    let box: CalibrationBox
    let started: UInt64

    /// The frame tap that was there before the trace (`--osc-out-sources`): kept running through
    /// it and put back after.
    var baseTap: ((String, SensorFrame) -> Void)?

    private init(
        index: Int, mapping: Mapping, path: String, listener: Listener, say: @escaping (String) -> Void, logger: Logger,
        started: UInt64
    ) {
        self.index = index; self.mapping = mapping; self.path = path; self.started = started
        self.listener = listener; self.say = say; self.logger = logger
        box = CalibrationBox(RangeCalibration(restSeconds: Self.restSeconds))
    }

    /// Starts tracing mapping `index` (1 = the first) of those `running`, or says through `say`
    /// why it cannot (nil).
    static func start(
        _ index: Int, running: [Mapping], scenes: Bool, path: String?, listener: Listener,
        say: @escaping (String) -> Void, logger: Logger, baseTap: ((String, SensorFrame) -> Void)? = nil
    ) -> KeyCalibration? {
        func refuse(_ why: String) -> KeyCalibration? {
            say("calibrate: \(why)")
            logger.error("calibrate: \(why)")
            return nil
        }
        guard let path else { return refuse("needs --config FILE: the range is written there") }
        if scenes {
            return refuse(
                "the file has scenes; calibrate writes into its mappings: list (edit the scene's line by hand)")
        }
        guard index >= 1, index <= running.count else { return refuse("there is no mapping \(index)") }
        let m = running[index - 1]
        guard !m.source.isTriggerSource, !m.target.isTrigger else {
            return refuse("mapping \(index) is played by a gesture; only a continuous source has a range")
        }
        // the running mapping N must be the file's mapping N (not a typed --map or --solo)
        let file: ConfigFile
        do { file = try ConfigFile(path: path) } catch { return refuse("\(error)") }
        guard index <= file.mappings.count, let written = try? Mapping(parsing: file.mappings[index - 1].text),
            written.syntax == m.syntax
        else {
            return refuse(
                "mapping \(index) running is not mapping \(index) of \(path) (a typed --map or --solo?); use sensorwah calibrate"
            )
        }
        let c = KeyCalibration(
            index: index, mapping: m, path: path, listener: listener, say: say, logger: logger,
            started: monotonicNanos())
        c.baseTap = baseTap
        let box = c.box, g = m.source.group, wanted = m.sender
        listener.replaceFrameTap { sender, f in
            baseTap?(sender, f)
            guard f.has(g) else { return }
            if let w = wanted, !Mapping.sender(sender, matches: w) { return }
            box.cal.add(m.source.read(f), at: f.time(g))
            _ = box.first.compareExchange(expected: 0, desired: monotonicNanos(), ordering: .relaxed)
        }
        say("calibrate mapping \(index) (\(m.source)): waiting for the sensor ...")
        logger.notice(
            "calibrate mapping \(index) (\(m.source)): hold your rest pose, then move through your comfortable range")
        return c
    }

    /// Moves on, at monotonic time `now`; false when finished (written, failed or given up).
    func step(now: UInt64) -> Bool {
        let first = box.first.load(ordering: .relaxed)
        guard first > 0 else {
            if Double(now &- started) / 1e9 < Self.patience { return true }
            cancel()
            return finish(
                "no readings of \(mapping.source) in \(Int(Self.patience)) s: is the sender streaming it?", failed: true
            )
        }
        let elapsed = Double(now &- first) / 1e9
        if elapsed < Self.restSeconds {
            say(
                "calibrate mapping \(index) (\(mapping.source)): hold your rest pose ... \(NumberText.rounded(max(Self.restSeconds - elapsed, 0), 1)) s"
            )
            return true
        }
        if elapsed < Self.seconds {
            say(
                "calibrate mapping \(index) (\(mapping.source)): now move through your comfortable range ... \(NumberText.rounded(max(Self.seconds - elapsed, 0), 1)) s"
            )
            return true
        }
        cancel()  // the frame tap has let go of the trace: it is ours to read
        let r: RangeCalibration.Result
        do { r = try box.cal.result() } catch { return finish("\(error)", failed: true) }
        let n = { (v: Double) in v == v.rounded() ? String(Int(v)) : String(v) }
        let text = "range=\(n(r.min))..\(n(r.max))" + (mapping.bipolar ? " centre=\(n(r.centre))" : "")
        do {
            try ConfigEditor.setRange(
                in: path, mapping: index, min: r.min, max: r.max, centre: mapping.bipolar ? r.centre : nil)
        } catch { return finish("\(error)", failed: true) }
        return finish("\(text) written to \(path) (\(box.cal.samples) readings)", failed: false)
    }

    /// Removes the frame tap (a run that stops mid-trace, or the end of the trace).
    func cancel() { listener.replaceFrameTap(baseTap) }

    private func finish(_ text: String, failed: Bool) -> Bool {
        let line = "calibrate mapping \(index) (\(mapping.source)): \(text)"
        say(line)
        if failed { logger.error("\(line)") } else { logger.notice("\(line)") }
        return false
    }

}
