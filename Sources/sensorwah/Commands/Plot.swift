import ArgumentParser
import SensorWahAudioFiles
import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahIO
#if canImport(Glibc)
    import Glibc
#endif

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw what each mapping makes of a recording, as an SVG picture, to tune by looking.",
        discussion: """
            One panel per mapping over the recording's time in seconds: the raw reading and the \
            smoothed value (left axis, the source's units), the value sent to MIDI (right axis, \
            0-127), readings dropped as outliers (red dots) and gestures (dashed lines). The log \
            plays through the same pipeline as `replay --fast`, so the green line is exactly the \
            controller stream replay sends. Open the file in a web browser.

            Examples:
              sensorwah plot Recordings/wrist-wah-phone.csv -o wah.svg
              sensorwah plot take.csv --config rig.yaml -o take.svg
              sensorwah plot take.csv --map "tilt.x zero cc=11 smooth=80" -o smoother.svg
              sensorwah plot take.csv --audio fuzzwah.wav -o fuzzwah.svg
                  the rendered sound's spectrogram

            With --audio, the picture is instead the spectrum of that sound over time (a \
            spectrogram, e.g. of `render`'s output), with the wah's centre frequency that the first \
            mapping's values ask for drawn over it (the svf voice's law: --heel-hz to --toe-hz).
            """
    )

    @Argument(
        help: ArgumentHelp(
            "A sensor log, or several files / a folder of one recording (as for replay).", valueName: "LOG"))
    var files: [String]
    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp("Write the picture here (- for stdout).", valueName: "FILE.svg"))
    var output: String
    @Option(
        help: ArgumentHelp(
            "Draw this sound's spectrogram instead (a WAV, FLAC or AIFF file, e.g. what render wrote from the same log), with the wah's centre frequency from the first mapping over it.",
            valueName: "FILE"))
    var audio: String?
    @Option(
        name: .customLong("heel-hz"),
        help: ArgumentHelp("With --audio: the wah's centre at the heel, Hz (as render's).", valueName: "HZ"))
    var heelHz = WahSettings().heelFrequency
    @Option(
        name: .customLong("toe-hz"),
        help: ArgumentHelp("With --audio: the wah's centre at the toe, Hz.", valueName: "HZ"))
    var toeHz = WahSettings().toeFrequency
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Mapping") var mapping: MappingOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        // the picture is SVG: a name that promises another format would hold what it does not say
        let ext = output.split(separator: "/").last.flatMap { $0.contains(".") ? $0.split(separator: ".").last : nil }
            .map { $0.lowercased() }
        if let e = ext, e != "svg" {
            let stem = output.dropLast(e.count + 1)
            throw ValidationError(
                "-o \(output): plot writes SVG, not \(e.uppercased()); name the file \(stem).svg (an SVG opens in any browser; to get a \(e.uppercased()), convert it, e.g. rsvg-convert \(stem).svg -o \(output))"
            )
        }
    }

    func run() throws {
        let mappings = try mapping.mappings()
        let motion = try mapping.motionSettings()
        let paths = try Wiring.recordingPaths(files)
        // the output first: a file that cannot be written fails before a long log is read
        let out: WholeFileOutput
        do { out = try WholeFileOutput(output, example: "plot.svg") } catch { throw RuntimeFailure(error.description) }
        let trace = PlotTrace(mappings: mappings)
        var pipeline = Pipeline(mappings: mappings, outputs: [trace])
        var replay = FileReplay(
            paths: paths, parserOptions: input.parserOptions(), maxLineLength: input.maxLine,
            timing: PlaybackTiming(fast: true), motion: motion)
        replay.afterFrame = { frame, mapper in trace.note(frame, mapper: mapper) }
        Shutdown.installHandlers()
        let result: FileReplay.Result
        do { result = try replay.run(into: &pipeline) } catch {
            out.abandon()
            throw RuntimeFailure("\(error)")
        }
        guard result.parser.frames > 0 else {
            out.abandon()
            throw RuntimeFailure(
                "'\(files.joined(separator: " "))': no sensor frames (\(result.parser.totalSkipped) rows skipped)")
        }
        pipeline.finish()  // what replay sends at the end (held-back changes, rest values) is drawn too
        let title = files.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: " ")
        if let path = audio {
            let sound: (sampleRate: Int, channels: [[Float]])
            do { sound = try SoundFile.readAll(path) } catch { out.abandon(); throw RuntimeFailure(error.message) }
            // the pedal the first mapping sends, as the svf wah's centre frequency
            var line: [(t: Double, hz: Double)] = []
            if let lane = trace.lanes.first, !lane.mapping.target.isEffect, !lane.mapping.target.isTrigger {
                let top = Double(lane.mapping.target.maxValue)
                for (t, v) in zip(lane.sent.t, lane.sent.v) {
                    let p = min(max(v / top, 0), 1)
                    if let last = line.last { line.append((t, last.hz)) }  // a step: held until the next value
                    line.append((t, heelHz * pow(toeHz / heelHz, p)))
                }
            }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let svg = SpectrogramSVG.render(
                sound.channels.first ?? [], rate: sound.sampleRate,
                title: "\(name): spectrum over time, \(title) driving the wah",
                line: line, lineLabel: line.isEmpty ? "" : "- - the wah's centre the wrist asks for (mapping 1)")
            do { try out.write(svg) } catch { throw RuntimeFailure(error.description) }
            printError(
                "plot: spectrogram of \(path) (\(sound.channels.first?.count ?? 0) samples at \(sound.sampleRate) Hz), the wah's centre from \(line.count / 2) values of mapping 1 -> \(output == "-" ? "stdout" : output)"
            )
            return
        }
        do { try out.write(PlotSVG.render(trace, title: title)) } catch { throw RuntimeFailure(error.description) }
        let outliers = trace.lanes.reduce(0) { $0 + $1.outliers.count }
        printError(
            "plot: \(trace.frames) frames, \(mappings.count) mapping\(mappings.count == 1 ? "" : "s"), \(outliers) outlier\(outliers == 1 ? "" : "s"), \(trace.gestures.count) gesture\(trace.gestures.count == 1 ? "" : "s") -> \(output == "-" ? "stdout" : output)"
        )
    }
}
