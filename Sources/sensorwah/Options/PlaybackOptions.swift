import ArgumentParser
import SensorWahIO

/// Timing of a recording played back (`replay`, `stream`).
struct PlaybackOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Playback speed: 2 is twice as fast, 0.5 half speed.")
    var speed = 1.0
    @Flag(help: "Start again from the top at the end, until stopped.")
    var loop = false
    @Flag(help: "Ignore timing: as fast as possible.")
    var fast = false
    @Option(help: ArgumentHelp("Longest pause kept from the recording, in seconds.", valueName: "SECONDS"))
    var maxGap = 2.0

    func validate() throws {
        guard speed.isFinite, speed >= 0.01, speed <= 1000 else {
            throw ValidationError("--speed must be a number from 0.01 to 1000 (2 is twice as fast)")
        }
        guard maxGap.isFinite, maxGap > 0, maxGap <= 86_400 else {
            throw ValidationError("--max-gap must be a number of seconds above 0 and at most 86400")
        }
    }

    var timing: PlaybackTiming { PlaybackTiming(speed: speed, maxGap: maxGap, fast: fast, loop: loop) }
}
