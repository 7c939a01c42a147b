import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahIO

extension Listen {
    /// What `listen` prints at the end: the parser's and mapper's counts, each input kind's,
    /// the senders, the recordings, with `--latency` the latency figures, and the messages
    /// that went nowhere.
    func summary(_ stats: ListenerStats, pump: OutputPump) -> String {
        var s = Summary(source: "listen", format: input.format, parser: stats.parser, mapper: stats.mapper, elapsed: 0)
        s.showElapsed = false
        var text = s.text
        let o = stats.osc
        if o.packets > 0 || o.malformed > 0 || o.tooLong > 0 {
            text += "\n  OSC packets \(o.packets), messages \(o.messages), frames \(o.frames)"
            text += ", refused as malformed \(o.malformed)"
            if o.tooLong > 0 { text += ", over the size limit \(o.tooLong)" }
            if o.unused > 0 { text += ", messages with no built-in meaning or osc: mapping \(o.unused)" }
        }
        let p = stats.push
        if p.batches > 0 || p.refused > 0 || p.tooLarge > 0 {
            text +=
                "\n  HTTP push batches \(p.batches), frames \(p.frames), refused (400) \(p.refused), too large (413) \(p.tooLarge)"
            if p.late > 0 { text += ", late samples dropped \(p.late)" }
            if p.otherSensors > 0 { text += ", entries of other sensors \(p.otherSensors)" }
        }
        let w = stats.web
        if web {
            text +=
                "\n  web: pages served \(w.pages), batches \(w.batches) (WebSocket \(w.webSocketBatches), HTTPS POST \(w.postBatches)), frames \(w.frames), refused \(w.refused)"
            if w.rateLimited > 0 { text += ", over the rate limit \(w.rateLimited)" }
            if w.late > 0 { text += ", late samples dropped \(w.late)" }
        }
        let ph = stats.phyphox
        if !phyphox.isEmpty {
            text +=
                "\n  phyphox: experiments read \(ph.connects), polls \(ph.polls), frames \(ph.frames), failed requests \(ph.errors)"
        }
        text += "\n  senders accepted \(stats.accepted), refused \(stats.refused)"
        if stats.pairRefused > 0 { text += " (\(stats.pairRefused) by --pair)" }
        if stats.cutOff > 0 { text += ", cut off for a line over --max-line \(stats.cutOff)" }
        if stats.partialLinesLost > 0 { text += ", lines lost to a closed connection \(stats.partialLinesLost)" }
        if stats.queueDrops > 0 { text += "\n  messages dropped because the outputs fell behind: \(stats.queueDrops)" }
        if !stats.senderNames.isEmpty { text += "\n  senders: " + stats.senderNames.joined(separator: ", ") }
        for r in stats.recordings { text += "\n  recorded \(r)" }
        for t in stats.timing { text += "\n  playout of \(t.text)" }
        if pump.releasedEarly > 0 {
            text +=
                "\n  messages handed on before they were due, the held ones filling their room: \(pump.releasedEarly)"
        }
        if latency {
            let q = stats.handoff
            text +=
                "\n  latency socket->queued (network thread): p50 \(q.percentile(0.5)) us, p99 \(q.percentile(0.99)) us, max \(q.maxNanos / 1000) us over \(q.total) lines with messages"
            let w = pump.wakeLatency
            text +=
                "\n  latency queued->taken by the output thread: p50 \(w.percentile(0.5)) us, p99 \(w.percentile(0.99)) us, max \(w.maxNanos / 1000) us"
            if pump.spins > 0 {
                text +=
                    "\n  output thread busy waits for an expected message: \(pump.spins), \(pump.spinNanos / 1000) us in all"
            }
            if pump.watches > 0 {
                text +=
                    "\n  output thread awake before a due line: \(pump.watches) times, \(pump.watchNanos / 1000) us in all"
            }
            let h = pump.latency
            text +=
                "\n  latency socket->output: p50 \(h.percentile(0.5)) us, p99 \(h.percentile(0.99)) us, max \(h.maxNanos / 1000) us over \(h.total) messages"
            // each sender's own, so one performer's figure is not hidden among a crowd's
            for (i, name) in stats.latencySlots.enumerated() where i < pump.senderLatency.count {
                guard let l = pump.senderLatency[i], l.total > 0 else { continue }
                text +=
                    "\n  latency socket->output from \(name): p50 \(l.percentile(0.5)) us, p99 \(l.percentile(0.99)) us, max \(l.maxNanos / 1000) us over \(l.total) messages"
            }
            let busy = Double(stats.lastDataNanos &- stats.firstDataNanos) / 1e9
            if busy > 0 {
                text +=
                    "\n  received \(stats.parser.lines) lines, \(stats.bytes / 1_000_000) MB in \(NumberText.rounded(busy, 3)) s of traffic: \(Int(Double(stats.parser.lines) / busy)) lines/s"
            }
        }
        if pump.undelivered > 0 {
            text +=
                "\n  messages delivered nowhere, every output having failed: \(pump.undelivered) (\(pump.failures.text))"
        }
        return text
    }
}
