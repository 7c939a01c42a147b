// RealtimeCycle.swift — everything the JACK process thread touches, and nothing else.
//
// Rules for this file (checked by `sensorwah rt-audit`, see tools/jack-rtaudit): no class
// references, no generics that are not specialised here, no String, no Array, no logging, no
// allocation, no locks, no system calls. All state is one `RTState` struct behind an
// `UnsafeMutablePointer`; values shared with other threads are `UnsafeAtomic`s with relaxed
// (or acquire/release) ordering.

import Atomics
import CJack
import SensorWahCore
#if canImport(Glibc)
    import Glibc
#endif

/// Optional instrumentation called at the very start and end of the audited part of every
/// process callback (see `sensorwah rt-audit`). Plain C function pointers: no retain/release.
public struct RTHooks: Sendable {
    public var enter: @convention(c) () -> Void
    public var exit: @convention(c) () -> Void
    public init(enter: @convention(c) () -> Void, exit: @convention(c) () -> Void) {
        self.enter = enter
        self.exit = exit
    }
}

/// Callback durations: a fixed histogram (0.5 µs buckets up to 40 ms), preallocated and
/// pre-faulted; recording is a few plain loads and stores. The process thread is the only
/// writer; the live view and `stats` read while it runs, so every word is an atomic with
/// relaxed ordering (on x86-64 and arm64 the same instructions as plain loads and stores, but
/// no data race: a reader sees each value whole, possibly one callback old).
public struct CallbackTimer: @unchecked Sendable {
    public static let bucketNanos: UInt64 = 500
    public static let bucketCount = 80_000
    typealias Word32 = UnsafeAtomic<UInt32>.Storage
    typealias Word = UnsafeAtomic<Int>.Storage
    typealias Word64 = UnsafeAtomic<UInt64>.Storage
    let buckets: UnsafeMutablePointer<Word32>
    /// count, maxAt; maxNanos, totalNanos
    let counters: UnsafeMutablePointer<Word>
    let nanos: UnsafeMutablePointer<Word64>

    init() {
        buckets = .allocate(capacity: Self.bucketCount)
        buckets.initialize(repeating: Word32(0 as UInt32), count: Self.bucketCount)
        counters = .allocate(capacity: 2)
        counters.initialize(repeating: Word(0 as Int), count: 2)
        nanos = .allocate(capacity: 2)
        nanos.initialize(repeating: Word64(0 as UInt64), count: 2)
    }

    func destroy() {
        buckets.deallocate()
        counters.deallocate()
        nanos.deallocate()
    }

    public var count: Int { UnsafeAtomic<Int>(at: counters).load(ordering: .relaxed) }
    /// Which callback (1 = the first timed) took `maxNanos`: the first few are first touches.
    public var maxAt: Int { UnsafeAtomic<Int>(at: counters + 1).load(ordering: .relaxed) }
    public var maxNanos: UInt64 { UnsafeAtomic<UInt64>(at: nanos).load(ordering: .relaxed) }
    public var totalNanos: UInt64 { UnsafeAtomic<UInt64>(at: nanos + 1).load(ordering: .relaxed) }

    /// Single writer (the process thread): load and store, no read-modify-write.
    @inline(__always)
    func record(_ nanos: UInt64) {
        let b = buckets + min(Int(truncatingIfNeeded: nanos / Self.bucketNanos), Self.bucketCount - 1)
        UnsafeAtomic<UInt32>(at: b).store(UnsafeAtomic<UInt32>(at: b).load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        let n = count &+ 1
        UnsafeAtomic<Int>(at: counters).store(n, ordering: .relaxed)
        UnsafeAtomic<UInt64>(at: self.nanos + 1).store(totalNanos &+ nanos, ordering: .relaxed)
        if nanos > maxNanos {
            UnsafeAtomic<UInt64>(at: self.nanos).store(nanos, ordering: .relaxed)
            UnsafeAtomic<Int>(at: counters + 1).store(n, ordering: .relaxed)
        }
    }

    /// Only while no process thread runs.
    func clear() {
        for i in 0..<Self.bucketCount { UnsafeAtomic<UInt32>(at: buckets + i).store(0, ordering: .relaxed) }
        for i in 0..<2 {
            UnsafeAtomic<Int>(at: counters + i).store(0, ordering: .relaxed)
            UnsafeAtomic<UInt64>(at: nanos + i).store(0, ordering: .relaxed)
        }
    }

    /// Upper edge (ns) of the bucket holding quantile `q` (0...1).
    public func quantileNanos(_ q: Double) -> UInt64 {
        let count = self.count, maxNanos = self.maxNanos
        guard count > 0 else { return 0 }
        let want = max(1, Int((Double(count) * q).rounded(.up)))
        var seen = 0
        for i in 0..<Self.bucketCount {
            seen += Int(UnsafeAtomic<UInt32>(at: buckets + i).load(ordering: .relaxed))
            if seen >= want { return min(UInt64(i + 1) * Self.bucketNanos, maxNanos) }
        }
        return maxNanos
    }
}

/// Frame offset, inside the current period, for a MIDI message that arrived at JACK time
/// `arrival` (µs). Messages that arrived during the previous period are placed at the same
/// relative position in this one (a constant one-period delay, no jitter: the a2jmidid
/// approach); older ones go to frame 0. Returns nil for a message that arrived after this
/// period started: it belongs to the next one.
@inlinable @inline(__always)
public func midiFrameOffset(arrival: UInt64, cycleStart: UInt64, periodMicros: Float, frames: Int) -> Int? {
    if arrival >= cycleStart { return nil }
    let period = Double(periodMicros)
    if !(period > 0) || frames <= 0 { return 0 }
    let windowStart = Double(cycleStart) - period
    let position = (Double(arrival) - windowStart) / period
    if !(position > 0) { return 0 }
    let frame = Int(position * Double(frames))
    return min(frame, frames - 1)
}

/// The whole state of the process callback.
struct RTState {
    var client: OpaquePointer? = nil
    var in1: OpaquePointer? = nil
    var in2: OpaquePointer? = nil
    var out1: OpaquePointer? = nil
    var out2: OpaquePointer? = nil
    var midiPort: OpaquePointer? = nil
    /// `control_in`: Program Change for scene switching (nil: not registered).
    var controlPort: OpaquePointer? = nil
    var channels = 0
    /// The effect chains, prepared outside the audio thread (`EffectChainSet`): set 0 is the
    /// chain of `--fx` (the wah alone by default), the others scenes' own chains.
    var fx = EffectChainSet()
    /// Sample rate the chains are prepared for (written by the thread that prepares them,
    /// after they are in place; read each cycle).
    let preparedRate: UnsafeAtomic<UInt32>
    /// A sample rate the callback saw differ from `preparedRate`: from then on it leaves the
    /// chains alone (audio passes dry) until new ones are prepared (`JackEngine.supervise`).
    let rateSeen: UnsafeAtomic<UInt32>

    /// Pedal 0...1 as the bit pattern of a Float (written by any thread, read each cycle).
    let pedalBits: UnsafeAtomic<UInt32>
    /// The wah's engage switch: true = bypassed (written by any thread, read each cycle).
    let bypassed: UnsafeAtomic<Bool>
    /// Sample rate reported by JACK's sample-rate callback (another thread).
    let requestedRate: UnsafeAtomic<UInt32>
    /// Period size in frames (buffer-size callback and each cycle).
    let periodFrames: UnsafeAtomic<UInt32>
    let cycles: UnsafeAtomic<Int>
    let xruns: UnsafeAtomic<Int>
    /// Set by JACK's shutdown callback.
    let serverGone: UnsafeAtomic<Bool>
    /// MIDI messages that did not fit into a period's MIDI buffer (kept for the next period).
    let midiDeferred: UnsafeAtomic<Int>
    let midiWritten: UnsafeAtomic<Int>
    var hasMIDI = false
    let ring: MIDIRing
    /// Program Change received on `control_in` (status and program in the packed bytes),
    /// for the main thread; and how many arrived (dropped ones included).
    var hasControl = false
    /// Program Change selects scenes (else only `--fx-cc` controllers are read).
    var takesProgramChange = false
    let controlRing: MIDIRing
    let programChanges: UnsafeAtomic<Int>
    /// `--fx-cc` Control Changes applied.
    let fxControlChanges: UnsafeAtomic<Int>
    /// Effect parameters from the mappings: slot (bits 0-15), chain set (16-31), the value as
    /// Float bits (32-63); one producer (the output thread), the callback drains it each cycle.
    let fxRing: MIDIRing
    /// The chain set the current scene runs (written by the output thread).
    let wantedSet: UnsafeAtomic<Int>
    /// Read JACK transport's tempo each cycle (the chain has a tempo-synced effect).
    var transport = false

    var hooks: RTHooks? = nil
    var measure = false
    var timer: CallbackTimer

    init(midiCapacity: Int) {
        preparedRate = .create(0)
        rateSeen = .create(0)
        pedalBits = .create(Float(0).bitPattern)
        bypassed = .create(false)
        requestedRate = .create(0)
        periodFrames = .create(0)
        cycles = .create(0)
        xruns = .create(0)
        serverGone = .create(false)
        midiDeferred = .create(0)
        midiWritten = .create(0)
        ring = MIDIRing(capacity: midiCapacity)
        controlRing = MIDIRing(capacity: 64)
        programChanges = .create(0)
        fxControlChanges = .create(0)
        fxRing = MIDIRing(capacity: 1024)
        wantedSet = .create(0)
        timer = CallbackTimer()
    }

    func destroy() {
        fx.destroy()
        preparedRate.destroy()
        rateSeen.destroy()
        pedalBits.destroy()
        bypassed.destroy()
        requestedRate.destroy()
        periodFrames.destroy()
        cycles.destroy()
        xruns.destroy()
        serverGone.destroy()
        midiDeferred.destroy()
        midiWritten.destroy()
        ring.destroy()
        controlRing.destroy()
        programChanges.destroy()
        fxControlChanges.destroy()
        fxRing.destroy()
        wantedSet.destroy()
        timer.destroy()
    }
}

@inline(__always)
func rtClockNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)  // vDSO: no system call with the TSC clock source
    return UInt64(truncatingIfNeeded: ts.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: ts.tv_nsec)
}

/// The JACK process callback.
func rtProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let s = arg.assumingMemoryBound(to: RTState.self)
    if s.pointee.measure {
        let t0 = rtClockNanos()
        rtAudited(s, nframes)
        s.pointee.timer.record(rtClockNanos() &- t0)
    } else {
        rtAudited(s, nframes)
    }
    return 0
}

@inline(__always)
func rtAudited(_ s: UnsafeMutablePointer<RTState>, _ nframes: jack_nframes_t) {
    if let h = s.pointee.hooks {
        h.enter()
        rtCycle(s, nframes)
        h.exit()
    } else {
        rtCycle(s, nframes)
    }
}

/// One period: pedal, audio, MIDI.
@inline(__always)
func rtCycle(_ s: UnsafeMutablePointer<RTState>, _ nframes: jack_nframes_t) {
    let n = Int(nframes)
    s.pointee.cycles.wrappingIncrement(ordering: .relaxed)
    s.pointee.periodFrames.store(nframes, ordering: .relaxed)

    // the chains are for this sample rate (else new ones are being prepared: hands off)
    let rate = s.pointee.requestedRate.load(ordering: .relaxed)
    let ready = rate == 0 || rate == s.pointee.preparedRate.load(ordering: .acquiring)
    // control_in first: a controller moved in the last period takes effect in this one
    if s.pointee.hasControl { rtControl(s, nframes, chains: ready) }
    let channels = s.pointee.channels
    if channels > 0 {
        let in1 = jack_port_get_buffer(s.pointee.in1, nframes)?.assumingMemoryBound(to: Float.self)
        let out1 = jack_port_get_buffer(s.pointee.out1, nframes)?.assumingMemoryBound(to: Float.self)
        var in2: UnsafeMutablePointer<Float>? = nil, out2: UnsafeMutablePointer<Float>? = nil
        if channels > 1 {
            in2 = jack_port_get_buffer(s.pointee.in2, nframes)?.assumingMemoryBound(to: Float.self)
            out2 = jack_port_get_buffer(s.pointee.out2, nframes)?.assumingMemoryBound(to: Float.self)
        }
        // a sample-rate change: the chains were prepared for the old rate; pass the audio dry
        // until the supervisor has prepared new ones (allocation is not for this thread)
        if !ready {
            s.pointee.rateSeen.store(rate, ordering: .releasing)
            if let i = in1, let o = out1 { o.update(from: i, count: n) }
            if let i = in2, let o = out2 { o.update(from: i, count: n) }
        } else {
            rtControls(s)
            if s.pointee.transport, let client = s.pointee.client {
                var pos = jack_position_t()
                _ = jack_transport_query(client, &pos)  // documented real-time safe: shared memory
                if pos.valid.rawValue & JackPositionBBT.rawValue != 0 { s.pointee.fx.setTempo(pos.beats_per_minute) }
            }
            s.pointee.fx.process(in1, out1, in2, out2, count: n)
            s.pointee.fx.publish()
        }
    }
    if s.pointee.hasMIDI { rtMIDI(s, nframes) }
}

/// What other threads set since the last cycle: the pedal and the wah's switch (applied only
/// when they change, so an `fx=wah.pedal` mapping or a CC is not overridden every period), the
/// chain a scene asked for, and the parameters the mappings sent.
@inline(__always)
func rtControls(_ s: UnsafeMutablePointer<RTState>) {
    let wanted = s.pointee.wantedSet.load(ordering: .acquiring)
    s.pointee.fx.select(wanted)
    let pedalBits = s.pointee.pedalBits.load(ordering: .relaxed)
    let off = s.pointee.bypassed.load(ordering: .relaxed)
    s.pointee.fx.applyPedal(bits: pedalBits, bypassed: off)
    let ring = s.pointee.fxRing
    while let e = ring.pop() {
        let p = e.packed
        s.pointee.fx.setParameter(
            set: Int(truncatingIfNeeded: (p >> 16) & 0xFFFF), slot: Int(truncatingIfNeeded: p & 0xFFFF),
            value: Double(Float(bitPattern: UInt32(truncatingIfNeeded: p >> 32))))
    }
}

/// `control_in`: copies each Program Change (status 0xC0-0xCF and its program) into the
/// control ring (with scenes); a Control Change bound by `--fx-cc` sets its effect parameter
/// at once; everything else (clock, notes, other controllers, SysEx) is left where it is.
/// A full ring drops the message and counts it (`controlRing.dropped`).
@inline(__always)
func rtControl(_ s: UnsafeMutablePointer<RTState>, _ nframes: jack_nframes_t, chains: Bool) {
    guard let port = s.pointee.controlPort, let buffer = jack_port_get_buffer(port, nframes) else { return }
    let count = jack_midi_get_event_count(buffer)
    let ring = s.pointee.controlRing
    var event = jack_midi_event_t()
    var i: UInt32 = 0
    let scenes = s.pointee.takesProgramChange
    while i < count {
        if jack_midi_event_get(&event, buffer, i) == 0, let b = event.buffer {
            if scenes, event.size == 2, b[0] & 0xF0 == 0xC0 {
                ring.push(MIDIRingEntry(arrival: 0, packed: UInt64(b[0]) | UInt64(b[1] & 0x7F) << 8 | 2 << 56))
                s.pointee.programChanges.wrappingIncrement(ordering: .relaxed)
            } else if chains, event.size == 3, b[0] & 0xF0 == 0xB0,
                s.pointee.fx.controlChange(Int(b[1] & 0x7F), value: Int(b[2] & 0x7F))
            {
                s.pointee.fxControlChanges.wrappingIncrement(ordering: .relaxed)
            }
        }
        i &+= 1
    }
}

@inline(__always)
func rtMIDI(_ s: UnsafeMutablePointer<RTState>, _ nframes: jack_nframes_t) {
    guard let port = s.pointee.midiPort, let buffer = jack_port_get_buffer(port, nframes) else { return }
    jack_midi_clear_buffer(buffer)
    let ring = s.pointee.ring
    var cycleFrames: jack_nframes_t = 0
    var cycleStart: jack_time_t = 0
    var nextStart: jack_time_t = 0
    var period: Float = 0
    let timed = jack_get_cycle_times(s.pointee.client, &cycleFrames, &cycleStart, &nextStart, &period) == 0
    let frames = Int(nframes)
    var last = 0
    var written = 0
    while let e = ring.peek() {
        var offset = 0
        if timed {
            guard
                let o = midiFrameOffset(
                    arrival: e.arrival, cycleStart: cycleStart, periodMicros: period, frames: frames)
            else { break }
            offset = o
        }
        if offset < last { offset = last }
        let count = e.count
        // room for the whole message (each 3-byte part is its own JACK MIDI event)?
        if jack_midi_max_event_size(buffer) < count + 16 {
            s.pointee.midiDeferred.wrappingIncrement(ordering: .relaxed)
            break
        }
        var i = 0
        while i < count {
            let len = min(3, count - i)
            guard let dst = jack_midi_event_reserve(buffer, jack_nframes_t(offset), len) else { break }
            var k = 0
            while k < len {
                dst[k] = e.byte(i + k)
                k += 1
            }
            i += len
        }
        ring.removeFirst()
        last = offset
        written += 1
    }
    if written > 0 { s.pointee.midiWritten.wrappingIncrement(by: written, ordering: .relaxed) }
}

// Callbacks JACK calls on its own threads (not the process thread): atomics only.

func rtXRun(_ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    arg.assumingMemoryBound(to: RTState.self).pointee.xruns.wrappingIncrement(ordering: .relaxed)
    return 0
}

func rtSampleRate(_ rate: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    arg.assumingMemoryBound(to: RTState.self).pointee.requestedRate.store(rate, ordering: .relaxed)
    return 0
}

func rtBufferSize(_ frames: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    arg.assumingMemoryBound(to: RTState.self).pointee.periodFrames.store(frames, ordering: .relaxed)
    return 0
}

func rtShutdown(_ code: jack_status_t, _ reason: UnsafePointer<CChar>?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    arg.assumingMemoryBound(to: RTState.self).pointee.serverGone.store(true, ordering: .releasing)
}
