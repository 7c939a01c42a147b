import CALSA
#if canImport(Glibc)
    import Glibc
#endif

extension ALSASequencerOutput {
    /// The sequencer's clients and ports, formatted like `aconnect -l`, with each port's
    /// capabilities and type added at the end of its line:
    ///
    ///     client 14: 'Midi Through' [type=kernel]
    ///         0 'Midi Through Port-0' caps=read,write,subs-read,subs-write,duplex type=midi-generic,software,port
    ///     	Connecting To: 128:0
    ///     client 128: 'SensorWah' [type=user,pid=412]
    ///         0 'out             ' caps=read,subs-read type=midi-generic,application
    ///     	Connecting To: 129:0
    ///
    /// Clients without visible ports (and NO_EXPORT ports) are left out, as aconnect does.
    /// Throws `ALSAError` when there is no sequencer.
    public static func listPorts() throws(ALSAError) -> String {
        let seq = try Sequencer.open()
        defer { snd_seq_close(seq) }
        var out = ""
        for c in Sequencer.clients(seq) {
            let ports = Sequencer.ports(seq, client: c.number).filter(\.exported)
            guard !ports.isEmpty else { continue }
            out += "client \(c.number): '\(c.name)' [type=\(c.isKernel ? "kernel" : "user")"
            if c.card >= 0 { out += ",card=\(c.card)" }
            if c.pid >= 0 { out += ",pid=\(c.pid)" }
            out += "]\n"
            for p in ports {
                out += "  " + leftPad(String(p.address.port), 3) + " '" + rightPad(p.name, 16) + "'"
                out += " caps=" + capabilityWords(p.capability) + " type=" + typeWords(p.type) + "\n"
                out += subscriptionLine("Connecting To", Sequencer.subscribers(seq, of: p.address, read: true))
                out += subscriptionLine("Connected From", Sequencer.subscribers(seq, of: p.address, read: false))
            }
        }
        return out
    }

    private static func subscriptionLine(_ label: String, _ addrs: [ALSAAddress]) -> String {
        guard !addrs.isEmpty else { return "" }
        return "\t\(label): " + addrs.map(\.description).joined(separator: ", ") + "\n"
    }

    static func capabilityWords(_ caps: UInt32) -> String {
        let names: [(Int32, String)] = [
            (SND_SEQ_PORT_CAP_READ, "read"), (SND_SEQ_PORT_CAP_WRITE, "write"),
            (SND_SEQ_PORT_CAP_SUBS_READ, "subs-read"), (SND_SEQ_PORT_CAP_SUBS_WRITE, "subs-write"),
            (SND_SEQ_PORT_CAP_DUPLEX, "duplex"),
            (SND_SEQ_PORT_CAP_SYNC_READ, "sync-read"), (SND_SEQ_PORT_CAP_SYNC_WRITE, "sync-write")
        ]
        let words = names.filter { caps & UInt32($0.0) != 0 }.map(\.1)
        return words.isEmpty ? "none" : words.joined(separator: ",")
    }

    static func typeWords(_ type: UInt32) -> String {
        let names: [(Int32, String)] = [
            (SND_SEQ_PORT_TYPE_SPECIFIC, "specific"), (SND_SEQ_PORT_TYPE_MIDI_GENERIC, "midi-generic"),
            (SND_SEQ_PORT_TYPE_MIDI_GM, "midi-gm"), (SND_SEQ_PORT_TYPE_MIDI_GS, "midi-gs"),
            (SND_SEQ_PORT_TYPE_MIDI_XG, "midi-xg"), (SND_SEQ_PORT_TYPE_MIDI_MT32, "midi-mt32"),
            (SND_SEQ_PORT_TYPE_MIDI_GM2, "midi-gm2"), (SND_SEQ_PORT_TYPE_SYNTH, "synth"),
            (SND_SEQ_PORT_TYPE_DIRECT_SAMPLE, "direct-sample"), (SND_SEQ_PORT_TYPE_SAMPLE, "sample"),
            (SND_SEQ_PORT_TYPE_HARDWARE, "hardware"), (SND_SEQ_PORT_TYPE_SOFTWARE, "software"),
            (SND_SEQ_PORT_TYPE_SYNTHESIZER, "synthesizer"), (SND_SEQ_PORT_TYPE_PORT, "port"),
            (SND_SEQ_PORT_TYPE_APPLICATION, "application")
        ]
        let words = names.filter { type & UInt32($0.0) != 0 }.map(\.1)
        return words.isEmpty ? "none" : words.joined(separator: ",")
    }

    private static func leftPad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }

    private static func rightPad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
