import ArgumentParser
import SensorWahConsole
import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

/// `--monitor` / `--no-monitor`: the live view in the terminal (`listen`, `replay`).
struct MonitorOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "A live view in the terminal: senders, mappings (raw, smoothed, output), tilt, gestures, the wah, JACK, latency; keys z re-zero, s solo, a all, n next scene, c calibrate (--config), t teach (--gestures), q quit. On by default when stdout is a terminal and MIDI goes elsewhere; without a terminal, --monitor prints a status line every 5 s on stderr."
        ))
    var monitor: Bool?

    /// How the view runs, or nil for none.
    func mode(midiToStdout: Bool) -> LiveView.Mode? {
        let stdoutFree = isatty(1) == 1 && !midiToStdout
        switch monitor {
        case false?: return nil
        case nil: return stdoutFree ? .terminal(fd: 1) : nil
        case true?:
            if stdoutFree { return .terminal(fd: 1) }
            if isatty(2) == 1 { return .terminal(fd: 2) }
            return .plain(interval: 5)
        }
    }
}
