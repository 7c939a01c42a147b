import ArgumentParser
import SensorWahCore

/// `--gesture-setting NAME=VALUE` (and the config's `motion: gesture-setting:` list): one of
/// `GestureSettings`' numbers by its name, in seconds, G or rad/s (docs/gestures.md).
extension GestureSettings {
    static var settingNames: [(String, WritableKeyPath<GestureSettings, Double>)] {
        [
            ("flickThreshold", \.flickThreshold), ("flickRelease", \.flickRelease),
            ("flickRefractory", \.flickRefractory),
            ("flickSweepRate", \.flickSweepRate), ("flickSweepAngle", \.flickSweepAngle),
            ("flickTurnAccel", \.flickTurnAccel),
            ("flickAdaptive", \.flickAdaptive),
            ("flickAccelThreshold", \.flickAccelThreshold), ("flickAccelStartFraction", \.flickAccelStartFraction),
            ("flickAccelMagnitude", \.flickAccelMagnitude),
            ("flickAccelMinDuration", \.flickAccelMinDuration), ("flickAccelTimeConstant", \.flickAccelTimeConstant),
            ("flickGravityTimeConstant", \.flickGravityTimeConstant),
            ("flickPlayerScale", \.flickPlayerScale), ("flickPlayerMemory", \.flickPlayerMemory),
            ("flickAccelReleaseFraction", \.flickAccelReleaseFraction),
            ("flickAccelGap", \.flickAccelGap), ("flickRearmFraction", \.flickRearmFraction),
            ("flickRearmTime", \.flickRearmTime), ("flickAccelPeakFraction", \.flickAccelPeakFraction),
            ("flickPeakFraction", \.flickPeakFraction), ("flickAccelSpentByRotation", \.flickAccelSpentByRotation),
            ("flickSpentTime", \.flickSpentTime),
            ("flickReturnTime", \.flickReturnTime), ("flickReturnAccel", \.flickReturnAccel),
            ("flickAccelStrengthScale", \.flickAccelStrengthScale),
            ("shakeThreshold", \.shakeThreshold), ("shakeRelease", \.shakeRelease),
            ("shakeTimeConstant", \.shakeTimeConstant),
            ("shakeMinDuration", \.shakeMinDuration),
            ("tapThreshold", \.tapThreshold), ("tapQuiet", \.tapQuiet), ("tapMaxRate", \.tapMaxRate),
            ("tapMaxDuration", \.tapMaxDuration),
            ("tapQuietRotation", \.tapQuietRotation), ("tapQuietBefore", \.tapQuietBefore),
            ("tapRefractory", \.tapRefractory), ("tapActive", \.tapActive)
        ]
    }

    /// The defaults with each `NAME=VALUE` applied in order, `flickAdaptive` (a preset of the
    /// accelerometer flick's settings) before all the others wherever it is given; a wrong name or
    /// value is refused naming it (and, for a name, the ones there are).
    static func parsing(_ items: [String]) throws -> GestureSettings {
        var g = GestureSettings()
        let isPreset = { (item: String) in item.lowercased().hasPrefix("flickadaptive") }
        for item in items.filter(isPreset) + items.filter({ !isPreset($0) }) {
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let v = Double(parts[1]), v.isFinite, v >= 0 else {
                throw ValidationError(
                    "--gesture-setting '\(item)': NAME=VALUE with a number >= 0, e.g. flickAccelThreshold=2.5")
            }
            guard let path = settingNames.first(where: { $0.0.lowercased() == parts[0].lowercased() })?.1 else {
                throw ValidationError(
                    "--gesture-setting '\(parts[0])': not a gesture setting; one of \(settingNames.map(\.0).joined(separator: ", "))"
                )
            }
            g[keyPath: path] = v
        }
        return g
    }

    static let optionHelp = ArgumentHelp(
        "A gesture setting, NAME=VALUE (repeatable; seconds, G, rad/s): flickAccelThreshold=2.5, shakeMinDuration=1, ... (docs/gestures.md lists them; `export --list-gestures` shows what fires with them).",
        valueName: "NAME=VALUE")
}
