import NIOCore
import SensorWahCore
import SensorWahEngine

/// The phone simulator's clock: sends a recording's lines at their recorded times (or as fast
/// as possible), looping if asked.
public struct StreamPlayer: Sendable {
    public let lines: [StreamScript.Line]
    public let timing: PlaybackTiming

    public init(lines: [StreamScript.Line], timing: PlaybackTiming) {
        self.lines = lines
        self.timing = timing
    }

    /// Sends over a TCP connection; stops when the peer goes away.
    public func play(over channel: Channel) -> Int {
        play { bytes, wait in
            var buf = channel.allocator.buffer(capacity: bytes.count)
            buf.writeBytes(bytes)
            let f = channel.writeAndFlush(buf)
            if wait { do { try f.wait() } catch { return false } }
            return channel.isActive
        }
    }

    /// `send(bytes, waitForIt)` returns false to stop. Returns the number of lines sent.
    /// Writes are waited for on every line in timed mode, every 256th line in fast mode (so
    /// memory stays bounded) and on the last line of each pass (so nothing is left pending).
    public func play(_ send: ([UInt8], Bool) -> Bool) -> Int {
        var count = 0
        repeat {
            var schedule = timing.schedule()
            let start = monotonicSeconds()
            for (i, line) in lines.enumerated() {
                if Shutdown.isRequested { return count }
                if !timing.fast { sleep(until: start + schedule.due(line.time)) }
                guard send(line.bytes, !timing.fast || i % 256 == 255 || i == lines.count - 1) else { return count }
                count += 1
            }
        } while timing.loop && !Shutdown.isRequested
        return count
    }
}
