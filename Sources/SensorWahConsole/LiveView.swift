import Atomics
import Foundation
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime
#if canImport(Glibc)
    import Glibc
#endif

/// The live view (`--monitor`): on its own thread, ten times a second, it reads the latest
/// picture from a `MonitorBoard` and a few atomics (latency, JACK) and redraws the terminal
/// with ANSI cursor positioning; keys arrive in raw mode (z re-zero, s solo the next mapping,
/// a all, n next scene, c calibrate the soloed mapping, q quit). Without a terminal it prints
/// one plain status line every 5 s on stderr. It never touches the data path's state: the data
/// path never waits for it. The mapping labels follow a reloaded configuration (`setScenes`).
public final class LiveView: @unchecked Sendable {
    public enum Mode: Sendable, Equatable {
        /// Draw on this terminal (1 or 2), read keys from stdin when it is a terminal.
        case terminal(fd: Int32)
        /// A plain status line every `interval` seconds on stderr.
        case plain(interval: Double)
    }

    public struct Configuration {
        public var title: String
        public var mode: Mode
        /// Each scene's mapping labels (one scene without scenes) and the scenes' names.
        public var labels: [[String]]
        public var sceneNames: [String] = []
        /// Each scene's mapping output maxima (127, 16383), for the bars.
        public var maxima: [[Int]]
        /// Extra lines (the wah, JACK), computed on the view thread.
        public var extraLines: (() -> [String])?
        /// The output thread's latency p50/p99 in µs (nil: not measured, as in replay).
        public var latency: (() -> (p50: Int, p99: Int))?
        public var keys = true
        /// The `c` key asks for a range calibration (`LiveCommand.calibrate`); someone
        /// (`listen --config`) answers it.
        public var calibrateKey = false
        /// The `t` key teaches a gesture or pose (`LiveCommand.teach`); someone (`listen
        /// --gestures FILE`) answers it.
        public var teachKey = false
        public init(title: String, mode: Mode, labels: [[String]], maxima: [[Int]]) {
            self.title = title; self.mode = mode; self.labels = labels; self.maxima = maxima
        }
    }

    /// Where to draw: stdout if it is a terminal, else stderr if it is; nil: no terminal.
    public static func terminalFD() -> Int32? {
        if isatty(1) == 1 { return 1 }
        if isatty(2) == 1 { return 2 }
        return nil
    }

    public let board: MonitorBoard
    let config: Configuration
    /// What changes while running (a reload, a calibration's progress), set from another
    /// thread: the labels, the scenes' names and a message line.
    private let lock = NSLock()
    private var shown: (labels: [[String]], maxima: [[Int]], sceneNames: [String], message: String)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    /// Cleared by `stop` on the caller's thread, read by the view's loop.
    private let running = ManagedAtomic<Bool>(true)
    private var saved = termios()
    private var rawMode = false
    private let copy = UnsafeMutablePointer<UInt64>.allocate(capacity: MonitorLayout.words)
    private var previous: (clock: Double, frames: [String: Int])?
    /// Frames per second by sender name (the senders' order may change between pictures).
    private var rates: [String: Double] = [:]
    private var lastGestures = (flick: 0, shake: 0, tap: 0)
    private var lastGestureText = ""
    private var lastGestureClock = 0.0

    /// Where the keys post what they ask, and whose solo they move.
    public let control: LiveControl

    public init(board: MonitorBoard, configuration: Configuration, control: LiveControl) {
        self.control = control
        self.board = board
        self.config = configuration
        shown = (configuration.labels, configuration.maxima, configuration.sceneNames, "")
        copy.initialize(repeating: 0, count: MonitorLayout.words)
    }

    deinit { copy.deallocate() }

    /// A mapping's label in the view.
    public static func label(_ m: Mapping) -> String { "\(m.source) -> \(m.target)" }

    /// The mappings now running (one scene, or each scene's, with their names), after a reload.
    public func setScenes(_ scenes: [[Mapping]], names: [String]) {
        lock.withLock {
            shown.labels = scenes.map { $0.map(Self.label) }
            shown.maxima = scenes.map { $0.map(\.target.maxValue) }
            shown.sceneNames = names
        }
    }

    /// A line under the status (a calibration's progress); empty: none.
    public func setMessage(_ text: String) { lock.withLock { shown.message = text } }

    var snapshot: (labels: [[String]], maxima: [[Int]], sceneNames: [String], message: String) {
        lock.withLock { shown }
    }

    public func start() {
        if case .terminal(let fd) = config.mode {
            if config.keys, isatty(0) == 1, tcgetattr(0, &saved) == 0 {
                var raw = saved
                raw.c_lflag &= ~tcflag_t(ICANON | ECHO)  // ISIG stays: Ctrl-C still stops the run
                withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                    cc[Int(VMIN)] = 0
                    cc[Int(VTIME)] = 0
                }
                rawMode = tcsetattr(0, TCSANOW, &raw) == 0
            }
            put(fd, "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
        }
        let t = Thread { [self] in
            loop()
            done.signal()
        }
        t.name = "sensorwah-view"
        t.start()
        thread = t
    }

    /// Stops the thread, restores the terminal (mode, screen, cursor). Safe to call twice.
    public func stop() {
        guard thread != nil else { return }
        running.store(false, ordering: .relaxed)
        done.wait()
        thread = nil
        restoreTerminal()
    }

    func restoreTerminal() {
        if case .terminal(let fd) = config.mode { put(fd, "\u{1B}[?25h\u{1B}[?1049l") }
        if rawMode { _ = tcsetattr(0, TCSANOW, &saved); rawMode = false }
    }

    private func loop() {
        var lastPlain = monotonicSeconds()
        while running.load(ordering: .relaxed) && !Shutdown.isRequested {
            switch config.mode {
            case .terminal(let fd):
                if rawMode { readKeys(timeoutMillis: 100) } else { sleepMillis(100) }
                if !running.load(ordering: .relaxed) { break }
                if board.read(into: copy) {
                    put(fd, render(MonitorRecord(p: copy), width: Self.width(fd)))
                }
            case .plain(let interval):
                sleepMillis(100)
                guard board.read(into: copy) else { continue }
                senderRates(MonitorRecord(p: copy))
                let now = monotonicSeconds()
                if now - lastPlain >= interval {
                    lastPlain = now
                    printError(plainLine(MonitorRecord(p: copy)))
                }
            }
        }
    }

    private func sleepMillis(_ ms: Int) {
        var ts = timespec(tv_sec: 0, tv_nsec: ms * 1_000_000)
        nanosleep(&ts, nil)
    }

    private func readKeys(timeoutMillis: Int32) {
        var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, timeoutMillis) > 0 else { return }
        var buf = [UInt8](repeating: 0, count: 16)
        let n = read(0, &buf, 16)
        guard n > 0 else { if n == 0 { sleepMillis(Int(timeoutMillis)) }; return }
        keys(Array(buf[0..<n]))
    }

    /// The bytes one read gave: keys, and escape sequences (arrows, Page Down: what a
    /// page-turner pedal sends) taken whole, so that their bytes are not read as Esc and
    /// letters. A lone Esc is the last byte of its read.
    func keys(_ bytes: [UInt8]) {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 27, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") || bytes[i + 1] == UInt8(ascii: "O") {
                var j = i + 2
                if bytes[i + 1] == UInt8(ascii: "[") {
                    while j < bytes.count && !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                }
                let end = min(j, bytes.count - 1)
                escapeSequence(Array(bytes[i...end]))
                i = end + 1
                continue
            }
            key(b)
            i += 1
        }
    }

    /// Down, Right or Page Down marks while teaching; other sequences change nothing.
    func escapeSequence(_ s: [UInt8]) {
        guard config.teachKey, typing == nil, control.teachingLabel != nil, let last = s.last else { return }
        let pageDown = s.count >= 4 && s[2] == UInt8(ascii: "6") && last == UInt8(ascii: "~")
        if pageDown || last == UInt8(ascii: "B") || last == UInt8(ascii: "C") {
            control.post(.teach(.mark(nanos: monotonicNanos())))
        }
    }

    /// What is typed after `t` (the name to teach); nil when not typing.
    private var typing: String?

    /// A key while teaching: typing the name after `t`, or marking / finishing / cancelling
    /// what is being taught. True when the key was taken.
    func teachKey(_ b: UInt8) -> Bool {
        if var text = typing {
            switch b {
            case 13, 10:
                typing = nil
                let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard let name = parts.first, LearnedSource.validName(Substring(name)) else {
                    setMessage("teach: '\(text)' is not a name (letters, digits, - and _); press t to try again")
                    return true
                }
                var value: Double?
                if parts.count == 2 {
                    guard let v = Double(parts[1]), v.isFinite else {
                        setMessage("teach: '\(parts[1])' is not a number for the pose's value; press t to try again")
                        return true
                    }
                    value = v
                }
                control.post(.teach(.start(name: name, value: value)))
            case 27:
                typing = nil
                setMessage("")
            case 127, 8:
                if !text.isEmpty { text.removeLast() }
                typing = text
                setMessage(Self.prompt(text))
            default:
                // ASCII only: a byte of a longer UTF-8 character is not a letter of its own
                let c = Character(UnicodeScalar(b))
                if b < 128, text.count < 50, c.isLetter || c.isNumber || "-_=.".contains(c) { text.append(c) }
                typing = text
                setMessage(Self.prompt(text))
            }
            return true
        }
        if control.teachingLabel != nil {
            switch b {
            // space (and Down, Right, Page Down)
            case UInt8(ascii: " "): control.post(.teach(.mark(nanos: monotonicNanos())))
            case 13, 10: control.post(.teach(.finish))
            case 27: control.post(.teach(.cancel))
            default: return false
            }
            return true
        }
        if b == UInt8(ascii: "t") || b == UInt8(ascii: "T") {
            typing = ""
            setMessage(Self.prompt(""))
            return true
        }
        return false
    }

    static func prompt(_ text: String) -> String {
        "teach: type a gesture's NAME, or NAME=VALUE for a pose, then Enter (Esc: never mind): \(text)_"
    }

    /// One key press.
    func key(_ b: UInt8) {
        if config.teachKey, teachKey(b) { return }
        switch b {
        case UInt8(ascii: "z"), UInt8(ascii: "Z"): control.post(.rezero)
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            let count = max(MonitorRecord(p: copy).mappingCount, 1)
            let now = control.solo.load(ordering: .relaxed)
            control.solo.store(now + 1 >= count ? 0 : now + 1, ordering: .relaxed)
        case UInt8(ascii: "a"), UInt8(ascii: "A"): control.solo.store(-1, ordering: .relaxed)
        case UInt8(ascii: "n"), UInt8(ascii: "N"): control.post(.nextScene)
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): control.post(.quit)
        case UInt8(ascii: "c"), UInt8(ascii: "C"):
            guard config.calibrateKey else { break }
            let r = MonitorRecord(p: copy)
            let solo = control.solo.load(ordering: .relaxed)  // an `s` just before counts
            if solo >= 0 && solo < r.mappingCount {
                control.post(.calibrate(mapping: solo + 1))
            } else if r.mappingCount == 1 {
                control.post(.calibrate(mapping: 1))
            } else {
                setMessage("calibrate: choose the mapping first with s (solo), then press c")
            }
        default: break
        }
    }

    static func width(_ fd: Int32) -> Int {
        var w = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &w) == 0 && w.ws_col > 20 { return Int(w.ws_col) }
        return 80
    }

    private func put(_ fd: Int32, _ s: String) {
        var t = s
        t.withUTF8 { _ = writeAll(fd, $0.baseAddress!, $0.count) }
    }

    // MARK: Text

    /// Frames per second per sender, from the change since the previous picture (at least
    /// 0.2 s before).
    private func senderRates(_ r: MonitorRecord) {
        var frames: [String: Int] = [:]
        for i in 0..<r.senderCount { let s = r.sender(i); frames[s.name] = s.frames }
        guard let prev = previous else { previous = (r.clock, frames); return }
        guard r.clock > prev.clock + 0.2 else { return }
        let dt = r.clock - prev.clock
        rates = [:]
        for (name, n) in frames { rates[name] = prev.frames[name].map { Double(max(n - $0, 0)) / dt } ?? 0 }
        previous = (r.clock, frames)
    }

    private func gestureText(_ r: MonitorRecord) -> String {
        let g = r.gestures
        var fired: [String] = []
        if g.flick > lastGestures.flick { fired.append("flick") }
        if g.shake > lastGestures.shake { fired.append("shake") }
        if g.tap > lastGestures.tap { fired.append("tap") }
        lastGestures = g
        if !fired.isEmpty { lastGestureText = fired.joined(separator: " "); lastGestureClock = r.clock }
        let recent = !lastGestureText.isEmpty && r.clock - lastGestureClock < 1.5
        return "gestures  flick \(g.flick)  shake \(g.shake)  tap \(g.tap)"
            + (recent ? "   << \(lastGestureText.uppercased()) >>" : "")
    }

    func labels(_ r: MonitorRecord) -> (names: [String], maxima: [Int]) {
        let now = snapshot
        let s = min(max(r.scene, 0), max(now.labels.count - 1, 0))
        return (
            now.labels.isEmpty ? [] : now.labels[s], now.maxima.isEmpty || s >= now.maxima.count ? [] : now.maxima[s]
        )
    }

    func render(_ r: MonitorRecord, width: Int) -> String {
        senderRates(r)
        let now = snapshot
        var lines: [String] = []
        lines.append(
            "\(config.title) live view   z re-zero  s solo next  a all  \(now.sceneNames.isEmpty ? "" : "n next scene  ")\(config.calibrateKey ? "c calibrate  " : "")\(config.teachKey ? "t teach  " : "")q quit"
        )
        var status = "solo: " + (r.solo < 0 ? "all mappings send" : "mapping \(r.solo + 1) only, the others held")
        if !now.sceneNames.isEmpty {
            let s = min(max(r.scene, 0), now.sceneNames.count - 1)
            status = "scene: \(now.sceneNames[s]) (\(s + 1) of \(now.sceneNames.count))   " + status
        }
        lines.append(status)
        lines.append(now.message)
        lines.append("senders")
        if r.senderCount == 0 { lines.append("  (none yet)") }
        for s in (0..<r.senderCount).map(r.sender).sorted(by: { $0.name < $1.name }) {
            let rate = rates[s.name] ?? 0
            lines.append(
                "  " + pad(s.name, 30) + lpad(NumberText.fixed(rate, 1, nonFinite: .nan("-")), 8)
                    + " frames/s   frames \(s.frames)   skipped \(s.skipped)")
        }
        if r.queueDrops > 0 { lines.append("  messages dropped (outputs behind): \(r.queueDrops)") }
        lines.append("")
        if r.tiltPitch.isNaN && r.tiltRoll.isNaN {
            lines.append("tilt      (no orientation in these frames)")
        } else {
            lines.append(
                "tilt      pitch " + lpad(NumberText.fixed(r.tiltPitch, 1, nonFinite: .nan("-")), 7) + "°   roll "
                    + lpad(NumberText.fixed(r.tiltRoll, 1, nonFinite: .nan("-")), 7) + "°")
        }
        lines.append(gestureText(r))
        lines.append("")
        let (names, maxima) = labels(r)
        let barWidth = max(10, min(40, width - 72))
        lines.append("mappings" + String(repeating: " ", count: 36) + "   raw  smoothed   out")
        for i in 0..<r.mappingCount {
            let m = r.mapping(i)
            let name = i < names.count ? names[i] : "mapping \(i + 1)"
            let top = i < maxima.count ? maxima[i] : 127
            let held = r.solo >= 0 && r.solo != i
            let mark = r.solo < 0 ? " " : (held ? "H" : "S")
            let frac = m.output < 0 ? 0 : Double(m.output) / Double(max(top, 1))
            let filled = Int((min(max(frac, 0), 1) * Double(barWidth)).rounded())
            // a mapping soloed out keeps its last value: its bar says so instead of moving
            let heldText = "-- held (solo \(r.solo + 1)) "
            let bar =
                held
                ? "["
                    + String(
                        (heldText + String(repeating: "-", count: max(0, barWidth - heldText.count))).prefix(barWidth))
                    + "]"
                : "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
            lines.append(
                "\(mark)\(lpad("\(i + 1)", 2)) " + pad(name, 38)
                    + lpad(NumberText.fixed(m.raw, 3, nonFinite: .nan("-")), 9)
                    + lpad(NumberText.fixed(m.smoothed, 3, nonFinite: .nan("-")), 9)
                    + lpad(m.output < 0 ? "-" : "\(m.output)", 6) + " " + bar)
        }
        lines.append("")
        if let extra = config.extraLines { lines += extra() }
        if let l = config.latency?() {
            lines.append(
                l.p50 < 0 ? "latency   (no message yet)" : "latency   socket->output p50 \(l.p50) µs   p99 \(l.p99) µs")
        }
        var out = "\u{1B}[H"
        for l in lines { out += String(l.prefix(width)) + "\u{1B}[K\r\n" }
        out += "\u{1B}[J"
        return out
    }

    /// The status line without a terminal.
    func plainLine(_ r: MonitorRecord) -> String {
        var parts: [String] = []
        for i in 0..<r.senderCount {
            let s = r.sender(i)
            parts.append(
                "\(s.name) \(NumberText.fixed(rates[s.name] ?? 0, 1, nonFinite: .nan("-"))) frames/s, skipped \(s.skipped)"
            )
        }
        if r.senderCount == 0 { parts.append("no sender") }
        let (names, _) = labels(r)
        for i in 0..<r.mappingCount {
            let m = r.mapping(i)
            parts.append(
                "\(i < names.count ? names[i] : "mapping \(i + 1)") raw \(NumberText.fixed(m.raw, 3, nonFinite: .nan("-"))) out \(m.output < 0 ? "-" : "\(m.output)")"
            )
        }
        if r.solo >= 0 { parts.append("solo \(r.solo + 1) (the others held)") }
        if let extra = config.extraLines { parts += extra() }
        if let l = config.latency?(), l.p50 >= 0 { parts.append("latency p50 \(l.p50) µs p99 \(l.p99) µs") }
        return "sensorwah monitor: " + parts.joined(separator: "; ")
    }

    func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? String(s.prefix(n - 1)) + " " : s + String(repeating: " ", count: n - s.count)
    }
    func lpad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : String(repeating: " ", count: n - s.count) + s
    }
}
