import ArgumentParser
import Logging
import SensorWahAudioFiles
import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahIO
#if canImport(Glibc)
    import Glibc
#endif

extension SoundSampleFormat: ExpressibleByArgument {}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract:
            "Run the wah (or an effect chain, --fx) over an audio file, driven by a recorded gesture or a fixed pedal.",
        discussion: """
            The gesture goes through the same parser, mapper and wah as in real time: the chosen \
            mapping's messages set the pedal (7-bit value/127, 14-bit value/16383) at sample \
            round(t * sample rate), where t is the message's sensor time; the wah smooths the pedal \
            at audio rate. WAV, FLAC and AIFF in and out; the output format follows its extension.

            Examples:
              sensorwah render --recording Recordings/wrist-wah-phone.csv guitar.wav \\
                  wah.wav
              sensorwah render --pedal 90 guitar.flac cocked.flac
              sensorwah render --wah-mode envelope --voice crybaby guitar.wav auto.wav
              sensorwah render --wah-mode both --pedal 20 --sensitivity 4 guitar.wav \\
                  touch.wav
              sensorwah render --recording take.csv --map "pitch cc14=1" \\
                  --sample-format float in.wav out.wav
              sensorwah render --recording take.csv --map "tilt.x zero cc=11" \\
                  --wah-switch flick in.wav out.wav
              sensorwah render --recording take.csv --fx-preset fuzz-wah guitar.wav \\
                  fuzzwah.wav
              sensorwah render --recording take.csv --fx "wah > tremolo" \\
                  --map "tilt.x zero cc=11" --map "tilt.y fx=tremolo.rate to=2..9" \\
                  in.wav out.wav
            """
    )

    @Option(help: ArgumentHelp("A sensor log whose gesture drives the pedal.", valueName: "LOG"))
    var recording: String?
    @Option(help: ArgumentHelp("Hold the pedal at N (0 = heel, 127 = toe) instead.", valueName: "N"))
    var pedal: Int?
    @Option(
        name: [.customLong("wah-map"), .customLong("pedal-map")],
        help: ArgumentHelp(
            "Which --map drives the wah pedal, 1 = the first (as replay's and listen's --wah-map; --pedal-map is the same).",
            valueName: "INDEX"))
    var pedalMap = 1
    @Option(
        name: .customLong("wah-switch"),
        help: ArgumentHelp(
            "A gesture in the recording that engages and bypasses the wah, like a wah pedal's toe switch (5 ms crossfade, no click); the wah starts bypassed.",
            valueName: "flick|shake|tap"))
    var wahSwitch: String?
    @Option(
        help: ArgumentHelp(
            "Output encoding: pcm16, pcm24 or float (default: as the input when the output format holds it, else pcm24).",
            valueName: "FORMAT"))
    var sampleFormat: SoundSampleFormat?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Output gain in dB (e.g. -6 when the summary says samples were clipped).", valueName: "DB"))
    var gain = 0.0
    @Flag(
        help: "Scale the output to the input's level (RMS), as a level-matched pedal against bypass; --gain adds to it."
    )
    var matchLevel = false
    @Option(
        help: ArgumentHelp(
            "With a delay in --fx: at most this many seconds rendered after the input ends, while the repeats die away (0: cut at the input's end).",
            valueName: "SECONDS"))
    var tail = 10.0
    @Argument(help: "Input audio file (WAV, FLAC, AIFF).")
    var input: String
    @Argument(help: "Output audio file; .wav, .flac, .aif or .aiff.")
    var output: String
    @OptionGroup(title: "Wah tone") var tone: WahToneOptions
    @OptionGroup(title: "Effect chain") var fx: EffectChainOptions
    @OptionGroup(title: "Sensors") var sensors: InputOptions
    @OptionGroup(title: "Mapping") var mapping: MappingOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        switch (recording, pedal) {
        case (nil, nil) where tone.mode != .envelope:
            throw ValidationError("give --recording LOG or --pedal N (or --wah-mode envelope)")
        case (.some, .some): throw ValidationError("--recording and --pedal exclude each other")
        default: break
        }
        if let p = pedal, !(0...127).contains(p) { throw ValidationError("--pedal must be 0...127") }
        if let w = wahSwitch {
            guard Gesture(name: w) != nil else { throw ValidationError("--wah-switch '\(w)': flick, shake or tap") }
            guard recording != nil else {
                throw ValidationError("--wah-switch needs --recording LOG (the gesture comes from the log)")
            }
        }
        guard (1...1000).contains(pedalMap) else { throw ValidationError("--wah-map counts from 1") }
        guard SoundFileContainer(path: output) != nil else {
            throw ValidationError("'\(output)': the output format comes from the extension: .wav, .flac, .aif or .aiff")
        }
        guard input != output else { throw ValidationError("input and output are the same file") }
        guard gain.isFinite, (-60...40).contains(gain) else { throw ValidationError("--gain must be -60 to 40 dB") }
        guard tail.isFinite, (0...600).contains(tail) else { throw ValidationError("--tail must be 0 to 600 seconds") }
    }

    func run() throws {
        global.bootstrapLogging()
        let source: SoundFile
        do { source = try SoundFile.openForReading(input) } catch { throw RuntimeFailure(error.message) }
        let rate = Double(source.sampleRate)

        let chain = try fx.chain()
        var effects: [EffectBreakpoint] = []
        var usesChain = fx.given
        var automation: PedalAutomation
        var how: String
        if recording == nil && pedal == nil {
            automation = .constant(0, sampleRate: rate)
            how = "pedal moved by the envelope alone"
        } else if let p = pedal {
            automation = .constant(WahProcessor.pedal(fromMIDI: p, bits: 7), sampleRate: rate)
            how = "pedal held at \(p)"
        } else {
            let mappings = try fx.resolve(try mapping.mappings(), chain: chain)
            if !Mapping.effectAddresses(in: mappings).isEmpty { usesChain = true }
            guard pedalMap <= mappings.count else {
                throw ValidationError(
                    "--wah-map \(pedalMap): there \(mappings.count == 1 ? "is 1 mapping" : "are \(mappings.count) mappings")"
                )
            }
            let m = mappings[pedalMap - 1]
            var start = PedalAutomation(mapping: m, sampleRate: rate)
            if m.target.isEffect { start.initialPedal = 0 }  // no mapping moves the wahs' pedal
            start.initialBypassed = wahSwitch != nil
            let collect = EffectAutomationOutput(start, chain: chain)
            // the switch's mapping goes after the user's, as with JACK (--wah-map counts are unchanged)
            var pipeline = Pipeline(mappings: mappings + wahSwitchMappings(wahSwitch), outputs: [collect])
            let paths = try Wiring.recordingPaths([recording!])
            let replay = FileReplay(
                paths: paths, parserOptions: sensors.parserOptions(), maxLineLength: sensors.maxLine,
                timing: PlaybackTiming(fast: true), motion: try mapping.motionSettings())
            let read: FileReplay.Result
            do { read = try replay.run(into: &pipeline) } catch { throw RuntimeFailure("\(error)") }
            // the gesture's own changes only: the end of the log does not move the pedal to rest
            pipeline.drain()
            guard read.parser.frames > 0 else {
                throw RuntimeFailure("'\(recording!)': no sensor frames (\(read.parser.totalSkipped) rows skipped)")
            }
            automation = collect.automation
            effects = collect.effects
            let end = automation.breakpoints.last.map { Double($0.frame) / rate } ?? 0
            how =
                "gesture \(recording!): \(read.parser.frames) frames, \(automation.breakpoints.count) pedal changes over \(NumberText.rounded(end, 2, padded: true)) s from mapping \(pedalMap) (\(m.target))"
            if let w = wahSwitch {
                how +=
                    "; wah switched by \(w): \(automation.switches.count) switch\(automation.switches.count == 1 ? "" : "es"), starts bypassed"
            }
        }

        // rendered first in float beside the output, then written in its encoding at the
        // gain asked for, measuring the level and what had to be clipped
        let format = SoundFile.renderFormat(requested: sampleFormat, input: source, output: output)
        let slash = output.lastIndex(of: "/")
        let folder = slash.map { String(output[...$0]) } ?? ""
        let temp =
            folder
            + ".\(slash.map { String(output[output.index(after: $0)...]) } ?? output).\(UInt32.random(in: 0...UInt32.max)).render.wav"
        defer { unlink(temp) }
        let hasDelay = chain.stages.contains { $0.kind == .delay }
        var result: OfflineRenderResult
        let inLevel: SoundLevel, outLevel: SoundLevel, clipped: Int, applied: Double
        do {
            let bar = ProgressLine("render")
            defer { bar.finish() }
            if usesChain {
                result = try renderChain(
                    input: source, output: temp, chain: chain, settings: tone.settings(), automation: automation,
                    effects: effects, sampleFormat: .float, maxTailSeconds: hasDelay ? tail : 0,
                    progress: bar.enabled ? bar.update : nil)
            } else {
                result = try renderWah(
                    input: source, output: temp, settings: tone.settings(), automation: automation,
                    sampleFormat: .float, progress: bar.enabled ? bar.update : nil)
            }
            inLevel = try SoundFile.level(input)
            let rendered = try SoundFile.level(temp)
            var g = gain
            if matchLevel, rendered.rms > 0, inLevel.rms > 0 { g += SoundLevel.dB(inLevel.rms / rendered.rms) }
            applied = g
            (outLevel, clipped) = try SoundFile.copyScaled(
                from: temp, to: output, sampleFormat: format, gain: pow(10, g / 20))
            result.outputFormat = format
        } catch {
            throw RuntimeFailure(error.message)
        }
        var text = "sensorwah render: \(input) -> \(output) (\(result.outputFormat.rawValue))\n"
        text +=
            "  \(result.frames) frames x \(result.channels) channel\(result.channels == 1 ? "" : "s") at \(result.sampleRate) Hz = \(NumberText.rounded(result.audioSeconds, 3, padded: true)) s of audio\n"
        text += "  \(how)"
        if recording != nil { text += "; \(result.pedalChanges) applied within the audio" }
        if wahSwitch != nil { text += ", \(result.switchChanges) switch\(result.switchChanges == 1 ? "" : "es")" }
        if !effects.isEmpty {
            text += "; \(result.effectChanges) effect parameter change\(result.effectChanges == 1 ? "" : "s")"
        }
        if usesChain { text += "\n  effects: \(chain)" }
        text += "\n  wah: \(tone.summary)\n"
        if result.tailFrames > 0 {
            text +=
                "  \(NumberText.rounded(Double(result.tailFrames) / Double(result.sampleRate), 2, padded: true)) s after the input: the delay's repeats dying away (--tail)\n"
        }
        func db(_ v: Double) -> String {
            v > 0
                ? NumberText.rounded(SoundLevel.dB(v) + 0, 1, padded: true).replacingOccurrences(
                    of: "-0.0", with: "0.0") : "-inf"
        }
        text +=
            "  level: input peak \(db(inLevel.peak)) dBFS, RMS \(db(inLevel.rms)) dBFS; output peak \(db(outLevel.peak)) dBFS, RMS \(db(outLevel.rms)) dBFS"
        if inLevel.rms > 0 && outLevel.rms > 0 {
            text +=
                " (\(NumberText.rounded(SoundLevel.dB(outLevel.rms / inLevel.rms), 1, padded: true)) dB against the input)"
        }
        if applied != 0 {
            text +=
                ", gain \(NumberText.rounded(applied, 1, padded: true)) dB applied"
                + (matchLevel ? " (--match-level)" : "")
        }
        text +=
            "\n  rendered in \(NumberText.rounded(result.elapsedSeconds, 3, padded: true)) s = \(NumberText.rounded(result.realTimeFactor, 0, padded: true))x real time"
        printError(text)
        if clipped > 0 {
            let share = Double(clipped) / Double(max(outLevel.samples, 1)) * 100
            let down = max(1, (SoundLevel.dB(outLevel.peak) + 0.5).rounded(.up))
            printError(
                "sensorwah render: warning: \(clipped) samples (\(NumberText.rounded(share, share < 0.1 ? 3 : 1, padded: true)) %) went past full scale and were clipped in the \(format.rawValue) output (it would peak at +\(NumberText.rounded(SoundLevel.dB(outLevel.peak), 1, padded: true)) dBFS): render again \(NumberText.rounded(down, 0, padded: true)) dB lower (--gain \(NumberText.rounded(gain - down, 0, padded: true))\(matchLevel ? " with --match-level" : "")), or with --sample-format float to keep the peaks"
            )
        } else if format == .float && outLevel.peak > 1 {
            printError(
                "sensorwah render: note: the float output peaks at +\(NumberText.rounded(SoundLevel.dB(outLevel.peak), 1, padded: true)) dBFS: kept in the file, but a player or a converter to PCM clips it (--gain -\(NumberText.rounded(max(1, (SoundLevel.dB(outLevel.peak) + 0.5).rounded(.up)), 0, padded: true)) avoids that)"
            )
        }
    }
}
