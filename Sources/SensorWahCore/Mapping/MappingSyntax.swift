/// A mapping written as one line of words, e.g.
/// `accel.x cc=11 ch=1 range=-1..1 bipolar smooth=40ms curve=exp:2 deadzone=0.05`.
public struct MappingSyntaxError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { message }
}

extension Mapping {
    public static let syntaxHelp = """
        A mapping is a source followed by options, separated by spaces or commas:
          SOURCE   accel.x|y|z  gyro.x|y|z  rate.x|y|z  user.x|y|z  gravity.x|y|z
                   pitch  roll  yaw  quat.x|y|z|w   or a magnitude: accel.mag, gyro.mag, user.mag ...
                   osc:/ADDRESS  or  osc:/ADDRESS[N]   argument N (from 0) of any OSC message (listen --osc)
                   tilt.pitch  tilt.roll (degrees)  tilt.x|y|z (gravity direction): fused attitude
                   flick  shake  tap   gestures (with note=, toggle= or cc=)
                   gesture:NAME  a gesture taught by example (--gestures FILE; sensorwah teach)
                   gesture:NAME.progress  0-1 while it unfolds   pose:NAME  a taught pose's value
          cc=N     7-bit Control Change N (0-127)          cc14=N  14-bit CC, MSB N (0-31), LSB N+32
          bend     pitch bend                              ch=N    MIDI channel 1-16 (default 1)
          note=N   a note per gesture (velocity 40-127 from its strength in range=), length=MS (default 150)
          toggle=N a gesture flips CC N between 127 and 0
          fx=EFFECT.PARAM  a parameter of the effect chain (--fx), e.g. fx=tremolo.rate, fx=delay.bypass
                   to=LO..HI  where the output lands, in the parameter's units (default: its whole range)
                   toggle     with a gesture source: each gesture flips it between HI and LO
          range=MIN..MAX   input range (clamped)           bipolar | unipolar   centre=X
          invert   deadzone=F (0-0.9)   curve=linear|exp:K|log:K
          smooth=MS  smoothing time constant in ms (0 = off)   beta=B  one-euro speed coefficient
          reject=B   drop readings beyond ±B (none = off)      speed=S  plausible units/s (jump rejection)
          rate=HZ    at most HZ messages per second            rest=V   value sent at exit or silence
          glide=MS   a silent sender's controllers glide to rest over MS, and back when it returns
          sender=NAME  only this sender (listen): its name (app@host/device), host, app or device id
          zero     a tilt relative to the captured rest orientation (--zero-gesture, SIGUSR1)
          hold=G   freeze the value while gesture G lasts (flick, shake, tap) or pose G is held (palm-up)
          relative with hold=: move on from the frozen value (movement accumulates)
        Example: "accel.x cc=11 ch=1 range=-1..1 bipolar smooth=40"
        """

    /// The option keys a mapping takes (what a mistyped one is compared with).
    static let optionNames = [
        "cc", "cc14", "bend", "ch", "channel", "note", "toggle", "fx", "to", "length", "range", "bipolar",
        "unipolar", "invert", "centre", "deadzone", "curve", "smooth", "beta", "reject", "speed", "rate",
        "rest", "sender", "glide", "hold", "relative", "zero"
    ]

    /// Parses one mapping. Every error is one line naming the word that is wrong and what is
    /// allowed; no input makes this trap.
    public init(parsing text: String) throws {
        func fail(_ m: String) -> MappingSyntaxError { MappingSyntaxError(message: m) }
        let words = text.split { $0 == " " || $0 == "," || $0 == "\t" }.map(String.init)
        guard let first = words.first else { throw fail("empty mapping: give a source, e.g. \"accel.x cc=11\"") }
        guard !first.contains("=") else {
            throw fail(
                "'\(first)': a mapping starts with its source (accel.x, gyro.z, pitch, accel.mag ...), not an option")
        }
        if first.lowercased().hasPrefix("osc:") && Source(parsing: first) == nil {
            throw fail(
                "'\(first)': an OSC source is osc:/address or osc:/address[N] with N from 0 to 15 (no spaces, commas or #)"
            )
        }
        guard let source = Source(parsing: first) else {
            let guess = Suggestion.closest(to: first, among: Source.names)
            throw fail(
                "unknown source '\(first)'"
                    + (guess.map { " (did you mean '\($0)'? see `sensorwah mappings`)" }
                        ?? " (try accel.x, gyro.z, pitch, accel.mag; see `sensorwah mappings`)"))
        }
        /// `key=value` or a bare flag; the key is lower-cased, the value kept as written.
        var options: [(word: String, key: String, value: String?)] = []
        for w in words.dropFirst() {
            if let eq = w.firstIndex(of: "=") {
                let key = w[..<eq].lowercased()
                let value = String(w[w.index(after: eq)...])
                guard !key.isEmpty else { throw fail("'\(w)': an option name is missing before '='") }
                guard !value.isEmpty else { throw fail("'\(w)': \(key) needs a value after '='") }
                options.append((w, key, value))
            } else {
                options.append((w, w.lowercased(), nil))
            }
        }

        var channel: UInt8 = 0
        var chosen: (kind: String, number: UInt8)? = nil
        var noteLength = 0.15
        var fxAddress: String? = nil
        var fxSpan: (Double, Double)? = nil
        var fxToggle = false
        var rest: [(word: String, key: String, value: String?)] = []
        for o in options {
            func int(_ lo: Int, _ hi: Int) throws -> Int {
                guard let v = o.value, let n = Int(v), n >= lo, n <= hi else {
                    throw fail("'\(o.word)': \(o.key) needs a whole number \(lo)-\(hi)")
                }
                return n
            }
            func setTarget(_ kind: String, _ number: UInt8) throws {
                if let t = chosen {
                    throw fail("'\(o.word)': this mapping already sends \(t.kind); one target per mapping")
                }
                chosen = (kind, number)
            }
            switch o.key {
            case "cc": try setTarget("cc", UInt8(try int(0, 127)))
            case "cc14": try setTarget("cc14", UInt8(try int(0, 31)))
            case "bend", "pitchbend":
                guard o.value == nil else { throw fail("'\(o.word)': \(o.key) takes no value") }
                try setTarget("bend", 0)
            case "ch", "channel": channel = UInt8(try int(1, 16) - 1)
            case "note": try setTarget("note", UInt8(try int(0, 127)))
            case "toggle" where o.value == nil:
                fxToggle = true
            case "toggle": try setTarget("toggle", UInt8(try int(0, 127)))
            case "fx":
                guard let v = o.value, EffectTarget.isAddress(v) else {
                    throw fail(
                        "'\(o.word)': fx names a parameter as EFFECT.PARAM, e.g. fx=tremolo.rate or fx=delay.bypass")
                }
                try setTarget("fx", 0)
                fxAddress = v
            case "to":
                let v = o.value ?? ""
                let r = v.componentsSeparatedByDoubleDot
                let bounds = r.count == 2 ? r.compactMap { Double($0) } : []
                guard bounds.count == 2, bounds[0].isFinite, bounds[1].isFinite, bounds[0] != bounds[1] else {
                    throw fail(
                        "'\(o.word)': to needs LO..HI in the parameter's units, e.g. to=1..8 (HI below LO turns it around)"
                    )
                }
                fxSpan = (bounds[0], bounds[1])
            case "length":
                guard let v = o.value, let ms = Double(v.replacingMS), ms.isFinite, ms >= 1, ms <= 60_000 else {
                    throw fail("'\(o.word)': length needs a time from 1 to 60000 ms (how long a gesture's note sounds)")
                }
                noteLength = ms.rounded() / 1000  // whole ms, as it is written out (syntax)
            default: rest.append(o)
            }
        }
        let t: Target
        switch chosen?.kind {
        case "cc14": t = .controlChange14(channel: channel, controller: chosen!.number)
        case "bend": t = .pitchBend(channel: channel)
        case "note": t = .note(channel: channel, note: chosen!.number, length: noteLength)
        case "toggle": t = .toggle(channel: channel, controller: chosen!.number)
        case "fx": t = .effect(EffectTarget(address: fxAddress!, low: fxSpan?.0, high: fxSpan?.1, toggle: fxToggle))
        default: t = .controlChange(channel: channel, controller: chosen?.number ?? 11)
        }
        if chosen?.kind == "fx", let c = options.first(where: { $0.key == "ch" || $0.key == "channel" }) {
            throw fail("'\(c.word)': an effect parameter (fx=) is not sent on a MIDI channel; leave ch= out")
        }
        if chosen?.kind != "fx" {
            if fxToggle {
                throw fail("'toggle': a bare toggle flips an effect parameter (fx=...); a CC toggle is toggle=N")
            }
            if fxSpan != nil {
                throw fail(
                    "'to': only an effect parameter (fx=...) has an output span; a MIDI target's is its 0-127 (or 14-bit) range"
                )
            }
        }
        if t.isTrigger && !source.isTriggerSource {
            throw fail(
                "'\(first)': note=, toggle= and an fx toggle are played by a gesture source (flick, shake, tap, gesture:NAME)"
            )
        }
        if options.contains(where: { $0.key == "length" }), case .note = t {
        } else if options.contains(where: { $0.key == "length" }) {
            throw fail("'length': only a note= mapping has a length")
        }
        self.init(source: source, target: t)

        var centreSet = false
        for o in rest {
            let (word, key, value) = o
            func flag() throws {
                guard value == nil else { throw fail("'\(word)': \(key) takes no value") }
            }
            func text() throws -> String {
                guard let v = value else { throw fail("'\(word)': \(key) needs a value (\(key)=...)") }
                return v
            }
            func num(_ lo: Double, _ hi: Double, unit: String = "") throws -> Double {
                let v = try text()
                guard let d = Double(v.replacingMS), d.isFinite, d >= lo, d <= hi else {
                    throw fail("'\(word)': \(key) needs a number from \(Self.show(lo)) to \(Self.show(hi))\(unit)")
                }
                return d
            }
            switch key {
            case "range":
                let v = try text()
                let parts = v.split(separator: ".", omittingEmptySubsequences: true)
                let bounds: [Double]
                if v.contains("..") {
                    let r = v.componentsSeparatedByDoubleDot
                    bounds = r.count == 2 ? r.compactMap { Double($0) } : []
                } else {
                    bounds = parts.count == 2 ? parts.compactMap { Double($0) } : []
                }
                guard bounds.count == 2, bounds[0].isFinite, bounds[1].isFinite, bounds[0] < bounds[1] else {
                    throw fail("'\(word)': range must be MIN..MAX with finite MIN < MAX, e.g. range=-1..1")
                }
                inputMin = bounds[0]; inputMax = bounds[1]
            case "bipolar": try flag(); bipolar = true
            case "unipolar": try flag(); bipolar = false
            case "invert": try flag(); invert = true
            case "centre", "center": centre = try num(-1e9, 1e9); centreSet = true
            case "deadzone": deadZone = try num(0, 0.9)
            case "curve":
                let v = try text().lowercased()
                let p = v.split(separator: ":", omittingEmptySubsequences: false)
                guard p.count <= 2, let name = p.first, !name.isEmpty else {
                    throw fail("'\(word)': curve is linear, exp:K or log:K (K from 0 to 20, e.g. curve=exp:2)")
                }
                var amount = 3.0
                if p.count == 2 {
                    guard let k = Double(p[1]), k.isFinite, k > 0, k <= 20 else {
                        throw fail("'\(word)': the curve amount K must be a number above 0 and at most 20")
                    }
                    amount = k
                }
                switch name {
                case "linear", "lin":
                    guard p.count == 1 else { throw fail("'\(word)': a linear curve takes no amount") }
                    curve = .linear
                case "exp", "exponential": curve = .exponential(amount)
                case "log", "logarithmic": curve = .logarithmic(amount)
                default: throw fail("'\(word)': curve is linear, exp:K or log:K")
                }
            case "smooth", "smoothing": smoothing = try num(0, 10_000, unit: " ms") / 1000
            case "beta": beta = try num(0, 1000)
            case "reject":
                if value == "none" || value == "off" {
                    rejectAbove = nil
                } else {
                    let b = try num(0, 1e9)
                    guard b > 0 else { throw fail("'\(word)': reject must be above 0 (or none)") }
                    rejectAbove = b
                }
            case "speed":
                if value == "none" || value == "off" {
                    maxSpeed = .infinity
                } else {
                    maxSpeed = try num(0, 1e9, unit: " units per second")
                }
            case "rate": rateLimit = try num(0, 10_000, unit: " messages per second (0 = no limit)")
            case "rest":
                guard let v = value, let r = Int(v), r >= 0, r <= target.maxValue else {
                    throw fail("'\(word)': rest needs a whole number 0-\(target.maxValue)")
                }
                restValue = r
            case "sender": sender = try text()
            case "glide": glide = try num(0, 10_000, unit: " ms") / 1000
            case "hold":
                let v = try text()
                if let g = Gesture(name: v) {
                    hold = g
                } else if let p = Pose(name: v) {
                    holdPose = p
                } else {
                    throw fail("'\(word)': hold is a gesture (flick, shake, tap) or a pose (palm-up)")
                }
            case "relative": try flag(); relative = true
            case "zero", "relative-to-rest":
                try flag()
                guard let z = source.zeroed else {
                    throw fail("'\(word)': zero applies to tilt sources (tilt.pitch, tilt.roll, tilt.x|y|z)")
                }
                self.source = z
            default:
                throw fail(
                    "unknown option '\(key)' in '\(word)'"
                        + (Suggestion.closest(to: key, among: Self.optionNames).map { " (did you mean '\($0)'?)" }
                            ?? " (see `sensorwah mappings` for the options)"))
            }
        }
        if !centreSet { centre = (inputMin + inputMax) / 2 }
        if relative && hold == nil && holdPose == nil {
            throw fail("'relative': a relative mapping needs hold=GESTURE (the clutch that lets the wrist move back)")
        }
        if (hold != nil || holdPose != nil) && target.isTrigger {
            throw fail("'hold': gesture-played targets (note=, toggle=) cannot be held")
        }
        guard centre > inputMin || !bipolar, centre < inputMax || !bipolar else {
            throw fail(
                "centre \(Self.show(centre)) must lie inside the range \(Self.show(inputMin))..\(Self.show(inputMax))")
        }
    }

    static func show(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
}

extension String {
    var replacingMS: String {
        var s = self.lowercased()
        if s.hasSuffix("ms") { s.removeLast(2) }
        return s
    }
    /// "-1..1" -> ["-1", "1"], "-2.5..-0.5" -> ["-2.5", "-0.5"]
    var componentsSeparatedByDoubleDot: [String] {
        var out: [String] = []
        var cur = ""
        var i = startIndex
        while i < endIndex {
            if self[i] == ".", index(after: i) < endIndex, self[index(after: i)] == "." {
                out.append(cur); cur = ""; i = index(i, offsetBy: 2); continue
            }
            cur.append(self[i]); i = index(after: i)
        }
        out.append(cur)
        return out
    }
}

extension Mapping {
    /// This mapping in the `--map` syntax, every setting written out: parsing it gives this
    /// mapping back (configuration files and `init` write mappings this way).
    public var syntax: String {
        func n(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        var w: [String] = [source.description]
        switch target {
        case .controlChange(let ch, let cc): w += ["cc=\(cc)", "ch=\(Int(ch) + 1)"]
        case .controlChange14(let ch, let cc): w += ["cc14=\(cc)", "ch=\(Int(ch) + 1)"]
        case .pitchBend(let ch): w += ["bend", "ch=\(Int(ch) + 1)"]
        case .note(let ch, let note, let length):
            w += ["note=\(note)", "ch=\(Int(ch) + 1)", "length=\(n((length * 1000).rounded()))"]
        case .toggle(let ch, let cc): w += ["toggle=\(cc)", "ch=\(Int(ch) + 1)"]
        case .wahSwitch: w.append("# the wah switch (--wah-switch), not a --map target")
        case .effect(let t):
            w.append("fx=\(t.address)")
            if let lo = t.low, let hi = t.high { w.append("to=\(n(lo))..\(n(hi))") }
            if t.toggle { w.append("toggle") }
        }
        w.append("range=\(n(inputMin))..\(n(inputMax))")
        w.append(bipolar ? "bipolar" : "unipolar")
        if centre != (inputMin + inputMax) / 2 { w.append("centre=\(n(centre))") }
        if invert { w.append("invert") }
        if deadZone > 0 { w.append("deadzone=\(n(deadZone))") }
        switch curve {
        case .linear: break
        case .exponential(let k): w.append("curve=exp:\(n(k))")
        case .logarithmic(let k): w.append("curve=log:\(n(k))")
        }
        let ms = smoothing * 1000
        w.append("smooth=\((ms.rounded() / 1000 == smoothing) ? n(ms.rounded()) : n(ms))")
        w.append("beta=\(n(beta))")
        w.append("reject=\(rejectAbove.map(n) ?? "none")")
        w.append("speed=\(maxSpeed.isFinite ? n(maxSpeed) : "none")")
        if rateLimit > 0 { w.append("rate=\(n(rateLimit))") }
        if let r = restValue { w.append("rest=\(r)") }
        if let s = sender { w.append("sender=\(s)") }
        if let h = hold { w.append("hold=\(h)") } else if let p = holdPose { w.append("hold=\(p)") }
        if glide > 0 {
            let ms = glide * 1000
            w.append("glide=\((ms.rounded() / 1000 == glide) ? n(ms.rounded()) : n(ms))")
        }
        if relative { w.append("relative") }
        return w.joined(separator: " ")
    }
}
