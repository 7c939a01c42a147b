import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

/// A one-line progress display on stderr for long batch jobs (`replay --fast`, `render`), only
/// when stderr is a terminal: redrawn at most five times a second, cleared at the end.
public final class ProgressLine {
    private let label: String
    private var lastDraw = 0.0
    private var shown = false
    public let enabled: Bool

    public init(_ label: String, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.enabled = enabled
    }

    public func update(_ fraction: Double) {
        guard enabled else { return }
        let now = monotonicSeconds()
        guard now - lastDraw >= 0.2 else { return }
        lastDraw = now
        let f = min(max(fraction, 0), 1)
        let width = 30
        let filled = Int((f * Double(width)).rounded())
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        printErrorRaw("\r\(label) [\(bar)] \(Int((f * 100).rounded()))%")
        shown = true
    }

    /// Removes the line (before the summary is printed).
    public func finish() {
        guard enabled, shown else { return }
        printErrorRaw("\r\u{1B}[2K")
        shown = false
    }
}

/// Text on stderr without a line end.
public func printErrorRaw(_ s: String) {
    var t = s
    t.withUTF8 { _ = writeAll(2, $0.baseAddress!, $0.count) }
}
