// OfflineRender.swift — the wah over a sound file (libsndfile), driven by pedal breakpoints.

import CSndfile
import SensorWahCore
import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

public struct SoundFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Container chosen from a file name's extension.
public enum SoundFileContainer: String, Sendable, CaseIterable {
    case wav, flac, aiff

    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "aif", "aiff", "aifc": self = .aiff
        default: return nil
        }
    }

    var majorFormat: Int32 {
        switch self {
        case .wav: return Int32(SF_FORMAT_WAV)
        case .flac: return Int32(SF_FORMAT_FLAC)
        case .aiff: return Int32(SF_FORMAT_AIFF)
        }
    }
}

/// Sample encoding of an output file.
public enum SoundSampleFormat: String, Sendable, CaseIterable {
    case pcm16, pcm24, float

    var subtype: Int32 {
        switch self {
        case .pcm16: return Int32(SF_FORMAT_PCM_16)
        case .pcm24: return Int32(SF_FORMAT_PCM_24)
        case .float: return Int32(SF_FORMAT_FLOAT)
        }
    }

    init?(subtype: Int32) {
        switch subtype {
        case Int32(SF_FORMAT_PCM_16): self = .pcm16
        case Int32(SF_FORMAT_PCM_24): self = .pcm24
        case Int32(SF_FORMAT_FLOAT): self = .float
        default: return nil
        }
    }
}

/// A libsndfile handle (read or write), float frames, interleaved.
public final class SoundFile {
    let handle: OpaquePointer
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// Frames in the file (read mode; may be unknown, then 0 or huge, for some containers).
    public let frames: Int64
    public let format: Int32

    init(handle: OpaquePointer, path: String, info: SF_INFO) {
        self.handle = handle
        self.path = path
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        frames = info.frames
        format = info.format
    }

    deinit { sf_close(handle) }

    public var sampleFormat: SoundSampleFormat? { SoundSampleFormat(subtype: format & Int32(SF_FORMAT_SUBMASK)) }

    /// Whether a file's first bytes are printable text (what a sensor log is).
    static func looksLikeText(_ path: String) -> Bool {
        guard let f = fopen(path, "rb") else { return false }
        defer { fclose(f) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let n = fread(&bytes, 1, bytes.count, f)
        guard n > 0 else { return false }
        return bytes[0..<n].allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || ($0 >= 0x20 && $0 != 0x7F) }
    }

    public static func openForReading(_ path: String) throws(SoundFileError) -> SoundFile {
        var info = SF_INFO()
        guard let h = sf_open(path, Int32(SFM_READ), &info) else {
            let why = String(cString: sf_strerror(nil))
            if looksLikeText(path) {
                throw SoundFileError(
                    "'\(path)' is not a sound file: it reads as text (a sensor log?). The input is a sound (WAV, FLAC, AIFF, OGG ...); give a log with --recording LOG"
                )
            }
            throw SoundFileError("cannot read '\(path)' as sound: \(why)")
        }
        guard info.channels > 0, info.samplerate > 0 else {
            sf_close(h)
            throw SoundFileError("'\(path)': no audio channels or no sample rate")
        }
        return SoundFile(handle: h, path: path, info: info)
    }

    /// Creates `path` in the container its extension names. `sampleFormat` nil: 24-bit PCM.
    /// Float is refused for FLAC.
    public static func create(
        _ path: String, sampleRate: Int, channels: Int,
        sampleFormat: SoundSampleFormat?
    ) throws(SoundFileError) -> SoundFile {
        guard let container = SoundFileContainer(path: path) else {
            throw SoundFileError("'\(path)': the output format comes from the extension: .wav, .flac, .aif or .aiff")
        }
        let sample = sampleFormat ?? .pcm24
        if container == .flac && sample == .float {
            throw SoundFileError("'\(path)': FLAC stores 16- or 24-bit PCM, not float")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = container.majorFormat | sample.subtype
        guard sf_format_check(&info) != 0 else {
            throw SoundFileError(
                "'\(path)': libsndfile cannot write \(container.rawValue) with \(sample.rawValue) at \(sampleRate) Hz, \(channels) channels"
            )
        }
        guard let h = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw SoundFileError("cannot create '\(path)': \(String(cString: sf_strerror(nil)))")
        }
        // out-of-range samples clip instead of wrapping around in integer formats; float files
        // keep them (the crybaby voice's boost takes a hot guitar past 1.0)
        if sample != .float { _ = sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE)) }
        return SoundFile(handle: h, path: path, info: info)
    }

    /// Reads up to `frames` frames; returns the number read (0 at the end).
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
    }

    public func write(_ buffer: UnsafePointer<Float>, frames: Int) throws(SoundFileError) {
        let n = sf_writef_float(handle, buffer, sf_count_t(frames))
        if n != frames {
            throw SoundFileError("writing '\(path)' failed: \(String(cString: sf_strerror(handle)))")
        }
    }

    /// Reads a whole file into memory, channel by channel (tests, tools).
    public static func readAll(_ path: String) throws(SoundFileError) -> (sampleRate: Int, channels: [[Float]]) {
        let f = try openForReading(path)
        var interleaved: [Float] = []
        let block = 8192
        var buf = [Float](repeating: 0, count: block * f.channels)
        while true {
            let n = buf.withUnsafeMutableBufferPointer { f.read(into: $0.baseAddress!, frames: block) }
            if n <= 0 { break }
            interleaved += buf[0..<(n * f.channels)]
        }
        let frames = interleaved.count / f.channels
        var out = [[Float]](repeating: [], count: f.channels)
        for c in 0..<f.channels {
            out[c] = (0..<frames).map { interleaved[$0 * f.channels + c] }
        }
        return (f.sampleRate, out)
    }

    /// Writes channels (equal lengths) to a new file.
    public static func writeAll(_ path: String, sampleRate: Int, channels: [[Float]], sampleFormat: SoundSampleFormat?)
        throws(SoundFileError)
    {
        let f = try create(path, sampleRate: sampleRate, channels: channels.count, sampleFormat: sampleFormat)
        let frames = channels.first?.count ?? 0
        var interleaved = [Float](repeating: 0, count: frames * channels.count)
        for (c, ch) in channels.enumerated() {
            for i in 0..<frames { interleaved[i * channels.count + c] = ch[i] }
        }
        try interleaved.withUnsafeBufferPointer { (b) throws(SoundFileError) in
            if frames > 0 { try f.write(b.baseAddress!, frames: frames) }
        }
    }
}

/// A sound's level over all its channels: the largest sample and the RMS, linear.
public struct SoundLevel: Sendable, Equatable {
    public var peak: Double = 0
    public var rms: Double = 0
    public var samples = 0
    public init() {}
    /// dBFS of a linear value (-inf for 0).
    public static func dB(_ v: Double) -> Double { v > 0 ? 20 * log10(v) : -.infinity }
}

extension SoundFile {
    /// The level of the sound file at `path`.
    public static func level(_ path: String) throws(SoundFileError) -> SoundLevel {
        let f = try openForReading(path)
        var l = SoundLevel()
        var sum = 0.0
        let block = 8192
        var buf = [Float](repeating: 0, count: block * f.channels)
        while true {
            let n = buf.withUnsafeMutableBufferPointer { f.read(into: $0.baseAddress!, frames: block) }
            if n <= 0 { break }
            for i in 0..<(n * f.channels) {
                let v = Double(buf[i])
                sum += v * v
                if abs(v) > l.peak { l.peak = abs(v) }
            }
            l.samples += n * f.channels
        }
        l.rms = l.samples > 0 ? (sum / Double(l.samples)).squareRoot() : 0
        return l
    }

    /// The encoding a render writes: `requested`, else the input's where the output's
    /// container holds it (a FLAC output takes no float), else 24-bit PCM.
    public static func renderFormat(requested: SoundSampleFormat?, input: SoundFile, output path: String)
        -> SoundSampleFormat
    {
        var chosen = requested ?? input.sampleFormat ?? .pcm24
        if requested == nil && chosen == .float && SoundFileContainer(path: path) == .flac { chosen = .pcm24 }
        return chosen
    }

    /// Copies the sound at `source` into a new file `path` in `sampleFormat`, every sample times
    /// `gain`; returns the copy's level (before any clipping) and, for an integer encoding, how
    /// many samples went past full scale and were clipped.
    public static func copyScaled(
        from source: String, to path: String, sampleFormat: SoundSampleFormat,
        gain: Double
    ) throws(SoundFileError) -> (level: SoundLevel, clipped: Int) {
        let f = try openForReading(source)
        let out = try create(path, sampleRate: f.sampleRate, channels: f.channels, sampleFormat: sampleFormat)
        var l = SoundLevel()
        var clipped = 0, sum = 0.0
        let block = 8192
        var buf = [Float](repeating: 0, count: block * f.channels)
        let g = Float(gain)
        while true {
            let n = buf.withUnsafeMutableBufferPointer { f.read(into: $0.baseAddress!, frames: block) }
            if n <= 0 { break }
            for i in 0..<(n * f.channels) {
                buf[i] *= g
                let v = Double(buf[i])
                sum += v * v
                if abs(v) > l.peak { l.peak = abs(v) }
                if abs(v) > 1 { clipped += 1 }
            }
            l.samples += n * f.channels
            try buf.withUnsafeBufferPointer { (b) throws(SoundFileError) in try out.write(b.baseAddress!, frames: n) }
        }
        l.rms = l.samples > 0 ? (sum / Double(l.samples)).squareRoot() : 0
        return (l, sampleFormat == .float ? 0 : clipped)
    }
}

public struct OfflineRenderResult: Sendable {
    public var frames = 0
    public var channels = 0
    public var sampleRate = 0
    /// Breakpoints that fell inside the audio.
    public var pedalChanges = 0
    /// Engage-switch changes (`--wah-switch`) that fell inside the audio.
    public var switchChanges = 0
    /// Effect parameter changes (`fx=` mappings) that fell inside the audio.
    public var effectChanges = 0
    public var elapsedSeconds = 0.0
    public var outputFormat: SoundSampleFormat = .pcm24
    /// Frames rendered after the input ended (a delay's repeats dying away).
    public var tailFrames = 0
    public var audioSeconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
    public var realTimeFactor: Double { elapsedSeconds > 0 ? audioSeconds / elapsedSeconds : .infinity }
}

/// Runs `WahProcessor`s (one per channel, same settings, same pedal) over `input` into a new file
/// `output`. The pedal target changes at each breakpoint's exact sample; the processors smooth
/// it as they do in real time. The engage switch (`automation.switches`) changes at its exact
/// sample too, with the wah's 5 ms crossfade. `sampleFormat` nil: the input's encoding where the output container
/// holds it, else 24-bit PCM.
public func renderWah(
    input: SoundFile, output path: String, settings: WahSettings, automation: PedalAutomation,
    sampleFormat: SoundSampleFormat? = nil, blockFrames: Int = 4096,
    progress: ((Double) -> Void)? = nil
) throws(SoundFileError) -> OfflineRenderResult {
    let start = monotonicSeconds()
    let channels = input.channels
    var chosen = sampleFormat ?? input.sampleFormat ?? .pcm24
    if sampleFormat == nil && chosen == .float && SoundFileContainer(path: path) == .flac { chosen = .pcm24 }
    let output = try SoundFile.create(path, sampleRate: input.sampleRate, channels: channels, sampleFormat: chosen)

    var startSettings = settings
    if automation.initialBypassed { startSettings.bypass = true }  // a switched wah starts off
    var wahs = [WahProcessor](repeating: WahProcessor(settings: startSettings), count: channels)
    for c in 0..<channels {
        wahs[c].setPedal(automation.initialPedal)
        wahs[c].prepare(sampleRate: Double(input.sampleRate))
    }
    let block = max(blockFrames, 1)
    let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
    let planar = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
    defer { interleaved.deallocate(); planar.deallocate() }

    let points = automation.breakpoints
    let switches = automation.switches
    var next = 0  // next breakpoint to apply
    var nextSwitch = 0  // next engage-switch change to apply
    var position = 0  // frame index of the block start
    var result = OfflineRenderResult()
    result.channels = channels
    result.sampleRate = input.sampleRate
    result.outputFormat = chosen
    let total = Double(max(input.frames, 1))
    while true {
        let n = input.read(into: interleaved, frames: block)
        if n <= 0 { break }
        progress?(Double(position) / total)
        for c in 0..<channels {
            let dst = planar + c * block
            for i in 0..<n { dst[i] = interleaved[i * channels + c] }
        }
        // segments between breakpoints inside this block
        var offset = 0
        while offset < n {
            while next < points.count && points[next].frame <= position + offset {
                for c in 0..<channels { wahs[c].setPedal(points[next].pedal) }
                next += 1
                result.pedalChanges += 1
            }
            while nextSwitch < switches.count && switches[nextSwitch].frame <= position + offset {
                // the wah's own 5 ms crossfade, as on JACK
                for c in 0..<channels { wahs[c].setBypass(switches[nextSwitch].pedal == 0) }
                nextSwitch += 1
                result.switchChanges += 1
            }
            var end = n
            if next < points.count && points[next].frame < position + n { end = points[next].frame - position }
            if nextSwitch < switches.count && switches[nextSwitch].frame < position + end {
                end = switches[nextSwitch].frame - position
            }
            for c in 0..<channels {
                let p = planar + c * block + offset
                wahs[c].process(p, p, count: end - offset)
            }
            offset = end
        }
        for c in 0..<channels {
            let src = planar + c * block
            for i in 0..<n { interleaved[i * channels + c] = src[i] }
        }
        try output.write(interleaved, frames: n)
        position += n
    }
    result.frames = position
    result.elapsedSeconds = monotonicSeconds() - start
    return result
}

/// `render`: the events of the pedal's mapping become breakpoints of an offline automation.
public final class PedalAutomationOutput: EventOutput {
    public private(set) var automation: PedalAutomation
    public init(_ automation: PedalAutomation) { self.automation = automation }
    public var name: String { "render" }
    public func send(_ e: MIDIEvent) { automation.add(e) }
    public func send(_ c: EffectControl) { automation.add(c) }
    public func flush() {}
    public func close() {}
}

/// A change of an effect parameter at a sample position (`render --fx` with `fx=` mappings):
/// from `frame` on, slot `slot` of the chain is set to `value` (in the parameter's units).
public struct EffectBreakpoint: Sendable, Equatable {
    public var frame: Int
    public var slot: Int
    public var value: Double
    public init(frame: Int, slot: Int, value: Double) {
        self.frame = frame; self.slot = slot; self.value = value
    }
}

/// `render`: the events of the pedal's mapping become pedal breakpoints (as `PedalAutomationOutput`)
/// and `fx=` events become effect breakpoints, each at round(t * sample rate).
public final class EffectAutomationOutput: EventOutput {
    public private(set) var automation: PedalAutomation
    public private(set) var effects: [EffectBreakpoint] = []
    let ranges: [(lower: Double, upper: Double)]
    public init(_ automation: PedalAutomation, chain: EffectChainSpec) {
        self.automation = automation
        ranges = chain.parameterList.map { ($0.parameter.range.lowerBound, $0.parameter.range.upperBound) }
    }
    public var name: String { "render" }
    public func send(_ e: MIDIEvent) { automation.add(e) }
    public func send(_ c: EffectControl) {
        guard case .parameter(let slot, let position) = c.action else { automation.add(c); return }
        guard slot >= 0, slot < ranges.count,
            let f = PedalAutomation.frame(at: c.time, sampleRate: automation.sampleRate)
        else {
            return
        }
        var frame = f
        if let last = effects.last, frame < last.frame { frame = last.frame }  // in frame order, as the pedal's
        effects.append(
            EffectBreakpoint(
                frame: frame, slot: slot,
                value: EffectTarget.value(position: position, minimum: ranges[slot].lower, maximum: ranges[slot].upper))
        )
    }
    public func flush() {}
    public func close() {}
}

/// Runs an effect chain (one `EffectChain` per channel, same spec and settings) over `input`
/// into a new file: the wahs' pedal follows `automation`'s breakpoints and their switch its
/// switches, and every effect breakpoint sets its parameter, each at its exact sample; the
/// chain smooths them as it does in real time. As `renderWah` otherwise.
public func renderChain(
    input: SoundFile, output path: String, chain spec: EffectChainSpec, settings: WahSettings,
    automation: PedalAutomation, effects: [EffectBreakpoint] = [],
    sampleFormat: SoundSampleFormat? = nil, blockFrames: Int = 4096, maxTailSeconds: Double = 0,
    progress: ((Double) -> Void)? = nil
) throws(SoundFileError) -> OfflineRenderResult {
    let start = monotonicSeconds()
    let channels = input.channels
    var chosen = sampleFormat ?? input.sampleFormat ?? .pcm24
    if sampleFormat == nil && chosen == .float && SoundFileContainer(path: path) == .flac { chosen = .pcm24 }
    let output = try SoundFile.create(path, sampleRate: input.sampleRate, channels: channels, sampleFormat: chosen)

    var startSettings = settings
    if automation.initialBypassed { startSettings.bypass = true }  // a switched wah starts off
    let block = max(blockFrames, 1)
    let chains = (0..<channels).map { _ in
        EffectChain(spec: spec, sampleRate: Double(input.sampleRate), maximumBlock: block, wah: startSettings)
    }
    defer { for c in chains { c.destroy() } }
    // the wahs' pedal and switch slots
    var pedalSlots: [Int] = [], switchSlots: [Int] = []
    let first = spec.firstSlots
    for (i, stage) in spec.stages.enumerated() where stage.kind == .wah {
        let pedal = EffectKind.wah.parameter(named: "pedal")!.index
        pedalSlots.append(first[i] + pedal)
        switchSlots.append(first[i] + EffectKind.wah.parameter(named: "bypass")!.index)
        if stage.settings[pedal] == nil {
            for c in chains { c.setParameter(slot: first[i] + pedal, value: Double(automation.initialPedal)) }
        }
    }
    for c in chains { c.reset() }  // the start is where it is, no glide from the defaults

    let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
    let planar = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
    defer { interleaved.deallocate(); planar.deallocate() }

    let points = automation.breakpoints
    let switches = automation.switches
    var next = 0, nextSwitch = 0, nextEffect = 0
    var position = 0
    var result = OfflineRenderResult()
    result.channels = channels
    result.sampleRate = input.sampleRate
    result.outputFormat = chosen
    let total = Double(max(input.frames, 1))
    // after the input: silence in, while the chain still sounds (a delay's repeats), up to
    // `maxTailSeconds`, ending once a tenth of a second has stayed under -90 dBFS
    let tailLimit = Int(maxTailSeconds * Double(input.sampleRate))
    var tail = 0, quiet = 0
    let quietFrames = input.sampleRate / 10
    while true {
        var n = input.read(into: interleaved, frames: block)
        let inTail = n <= 0
        if inTail {
            guard tail < tailLimit, tail == 0 || quiet < quietFrames else { break }
            n = min(block, tailLimit - tail)
            for i in 0..<(n * channels) { interleaved[i] = 0 }
        }
        progress?(Double(position) / total)
        for c in 0..<channels {
            let dst = planar + c * block
            for i in 0..<n { dst[i] = interleaved[i * channels + c] }
        }
        var offset = 0
        while offset < n {
            let here = position + offset
            while next < points.count && points[next].frame <= here {
                for c in chains { for s in pedalSlots { c.setParameter(slot: s, value: Double(points[next].pedal)) } }
                next += 1
                result.pedalChanges += 1
            }
            while nextSwitch < switches.count && switches[nextSwitch].frame <= here {
                for c in chains {
                    for s in switchSlots { c.setParameter(slot: s, value: switches[nextSwitch].pedal == 0 ? 1 : 0) }
                }
                nextSwitch += 1
                result.switchChanges += 1
            }
            while nextEffect < effects.count && effects[nextEffect].frame <= here {
                for c in chains { c.setParameter(slot: effects[nextEffect].slot, value: effects[nextEffect].value) }
                nextEffect += 1
                result.effectChanges += 1
            }
            var end = n
            if next < points.count && points[next].frame < position + end { end = points[next].frame - position }
            if nextSwitch < switches.count && switches[nextSwitch].frame < position + end {
                end = switches[nextSwitch].frame - position
            }
            if nextEffect < effects.count && effects[nextEffect].frame < position + end {
                end = effects[nextEffect].frame - position
            }
            for c in 0..<channels { chains[c].process(planar + c * block + offset, count: end - offset) }
            offset = end
        }
        for c in 0..<channels {
            let src = planar + c * block
            for i in 0..<n { interleaved[i * channels + c] = src[i] }
        }
        if inTail {
            // frames since the last one above -90 dBFS; the tail is cut after the last loud one
            var lastLoud = -1
            for i in 0..<(n * channels) where abs(interleaved[i]) > 3.2e-5 { lastLoud = i / channels }
            quiet = lastLoud < 0 ? quiet + n : n - 1 - lastLoud
            tail += n
            result.tailFrames += n
        }
        try output.write(interleaved, frames: n)
        position += n
    }
    result.frames = position
    result.elapsedSeconds = monotonicSeconds() - start
    return result
}
