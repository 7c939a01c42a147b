import Logging
import NIOCore
import SensorWahCore
import SensorWahEngine
import SensorWahRuntime

// Every TCP connection the listener accepts (the web page and its WebSocket, the control API,
// HTTP push, TCP lines, OSC over TCP) starts with a `ConnectionGuard`, and every server port
// keeps its connections in a `ConnectionTable`. Between them a client cannot make the listener
// hold more than a bounded amount for it, nor hold a slot it does not use:
//
// - answers it does not take stop its reading (back-pressure: no read while the channel is
//   over its high water mark), and more than `maxPendingOutput` bytes of them close it;
// - its first complete message (TLS handshake and request head included) must come within
//   `firstMessageDeadline`, and then one at least every `idle` seconds: bytes that never make
//   a message (a slow trickle) do not keep it open;
// - a port holds `total` connections and at most `perAddress` from one address; a newcomer
//   that finds either full closes the connection that has gone longest without a complete
//   message (if that is at least `evictableAfter`, or `evictableUnheardAfter` for one that has
//   sent none yet), and is refused only when every connection is in use.
// The handlers above a guard tell it of each complete message (`ConnectionGuard.progress`).

/// The bounds of one server port's connections.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections at once, in all and from one address.
    public var total: Int
    public var perAddress: Int
    /// Seconds from the connection to its first complete message (0: no deadline).
    public var firstMessageDeadline: Double
    /// Seconds without a complete message that close a connection (0: never).
    public var idle: Double
    /// Bytes of answers a connection may leave untaken; more closes it.
    public var maxPendingOutput = 1 << 20
    /// A connection without a complete message for this many seconds may be closed to make
    /// room for a newcomer; one that has sent none yet, after `evictableUnheardAfter`.
    public var evictableAfter = 2.0
    public var evictableUnheardAfter = 0.5

    public init(total: Int, perAddress: Int, firstMessageDeadline: Double, idle: Double) {
        self.total = total; self.perAddress = perAddress
        self.firstMessageDeadline = firstMessageDeadline; self.idle = idle
    }
}

/// One port's open connections, on the listener's event loop.
final class ConnectionTable: @unchecked Sendable {
    let limits: ConnectionLimits
    /// What a connection here is, for the log ("web connection", "connection").
    let what: String
    let logger: Logger
    private(set) var open: [ObjectIdentifier: ConnectionGuard] = [:]
    /// Connections refused (the port full of busy connections) and closed to make room.
    private(set) var refused = 0
    private(set) var evicted = 0

    init(limits: ConnectionLimits, what: String, logger: Logger) {
        self.limits = limits; self.what = what; self.logger = logger
    }

    var count: Int { open.count }

    /// A guard for `channel`, or nil (with the reason) when the port has no room for it.
    func admit(_ channel: Channel) -> Result<ConnectionGuard, Refusal> {
        let address = channel.remoteAddress?.ipAddress ?? "?"
        let now = monotonicNanos()
        if open.count >= limits.total {
            guard
                let victim = Self.stalest(
                    Array(open.values), now: now, after: limits.evictableAfter, unheard: limits.evictableUnheardAfter)
            else {
                refused += 1
                return .failure(Refusal(text: "already \(plural(open.count)), every one in use"))
            }
            evict(victim, because: "making room for a \(what) from \(address)")
        }
        let same = open.values.filter { $0.address == address }
        if same.count >= limits.perAddress {
            guard
                let victim = Self.stalest(
                    same, now: now, after: limits.evictableAfter, unheard: limits.evictableUnheardAfter)
            else {
                refused += 1
                return .failure(
                    Refusal(
                        text:
                            "already \(plural(same.count)) from \(address), every one in use (at most \(limits.perAddress) from one address)"
                    ))
            }
            evict(victim, because: "making room for another \(what) from \(address)")
        }
        let g = ConnectionGuard(table: self, address: address, limits: limits, opened: now)
        open[ObjectIdentifier(g)] = g
        return .success(g)
    }

    struct Refusal: Error { let text: String }

    private func plural(_ n: Int) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }

    func remove(_ g: ConnectionGuard) { open[ObjectIdentifier(g)] = nil }

    private func evict(_ g: ConnectionGuard, because why: String) {
        evicted += 1
        remove(g)
        logger.info(
            "closed a \(what) from \(g.address) with no complete message for \(Self.seconds(monotonicNanos() &- g.lastProgress)) s: \(why)"
        )
        g.close()
    }

    /// The connection longest without a complete message, if that is `after` seconds or more
    /// (`unheard` for one that has sent none yet); one that never sent one goes first.
    static func stalest(_ list: [ConnectionGuard], now: UInt64, after: Double, unheard: Double) -> ConnectionGuard? {
        let limit = UInt64(after * 1e9), unheardLimit = UInt64(unheard * 1e9)
        let idle = list.filter { now &- $0.lastProgress >= ($0.messages == 0 ? unheardLimit : limit) }
        return idle.min { a, b in
            if (a.messages == 0) != (b.messages == 0) { return a.messages == 0 }
            return a.lastProgress < b.lastProgress
        }
    }

    static func seconds(_ nanos: UInt64) -> String { NumberText.rounded(Double(nanos) / 1e9, 1) }
}

/// The first handler of an accepted connection: back-pressure, the bound on pending output,
/// the deadlines (see the top of this file).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    let address: String
    let limits: ConnectionLimits
    let opened: UInt64
    private(set) var lastProgress: UInt64
    private(set) var messages = 0
    private weak var table: ConnectionTable?
    private var channel: Channel?
    private var heldRead = false
    private var timer: RepeatedTask?
    private var closing = false

    init(table: ConnectionTable, address: String, limits: ConnectionLimits, opened: UInt64) {
        self.table = table; self.address = address; self.limits = limits
        self.opened = opened; lastProgress = opened
    }

    /// A complete message came (a request, a WebSocket message, a line that gave a reading).
    func progress(at now: UInt64 = monotonicNanos()) {
        messages += 1
        lastProgress = now
    }

    /// Tells the connection's guard (if it has one) of a complete message.
    static func progress(_ context: ChannelHandlerContext) {
        (try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self))?.progress()
    }

    func close() {
        guard !closing else { return }
        closing = true
        timer?.cancel()
        channel?.close(promise: nil)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        channel = context.channel
        let deadline = limits.firstMessageDeadline, idle = limits.idle
        guard deadline > 0 || idle > 0 else { return }
        nonisolated(unsafe) let ctx = context
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) {
            [weak self] _ in
            guard let self, !self.closing else { return }
            let now = monotonicNanos()
            if self.messages == 0, deadline > 0, now &- self.opened > UInt64(deadline * 1e9) {
                self.table?.logger.info(
                    "\(self.table?.what ?? "connection") from \(self.address): no complete message in \(ConnectionTable.seconds(now &- self.opened)) s; closed"
                )
                self.end(ctx)
            } else if idle > 0, now &- self.lastProgress > UInt64(idle * 1e9) {
                self.table?.logger.info(
                    "\(self.table?.what ?? "connection") from \(self.address): no complete message for \(ConnectionTable.seconds(now &- self.lastProgress)) s (--idle-timeout); closed"
                )
                self.end(ctx)
            }
        }
    }

    private func end(_ context: ChannelHandlerContext) {
        table?.remove(self)
        close()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        table?.remove(self)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        table?.remove(self)
        context.fireChannelInactive()
    }

    // back-pressure: no read while answers wait to be taken
    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable { context.read() } else { heldRead = true }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, heldRead {
            heldRead = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        guard !context.channel.isWritable, !closing,
            let pending = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes),
            pending > limits.maxPendingOutput
        else { return }
        table?.logger.info(
            "\(table?.what ?? "connection") from \(address): \(pending) bytes of answers not taken; closed")
        end(context)
    }
}
