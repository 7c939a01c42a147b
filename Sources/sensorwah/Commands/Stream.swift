import ArgumentParser
import Logging
import NIOCore
import NIOPosix
import SensorWahConsole
import SensorWahCore
import SensorWahEngine
import SensorWahIO
import Foundation

struct Stream: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a recording over the network like a phone would (a phone simulator).",
        discussion: """
            Sends FILE line by line at its original rate, as SensorLog does in client mode (--to), \
            server mode (--serve) or UDP (--udp).

            Examples:
              sensorwah stream Recordings/wrist-wah-phone.csv --to 127.0.0.1:56204
              sensorwah stream Recordings/watch-sweeps.csv --serve 56204 --loop
              sensorwah stream take.csv --udp 127.0.0.1:5555 --no-header
            """
    )

    @Argument(help: "A sensor log to send.")
    var file: String
    @Option(help: ArgumentHelp("Connect to a listener and send (SensorLog client mode).", valueName: "HOST:PORT"))
    var to: String?
    @Option(
        help: ArgumentHelp("Wait for listeners to connect and send to each (SensorLog server mode).", valueName: "PORT")
    )
    var serve: Int?
    @Option(help: ArgumentHelp("Send one datagram per line.", valueName: "HOST:PORT"))
    var udp: String?
    @Flag(help: "Leave out header lines, like a stream that sends none.")
    var noHeader = false
    @OptionGroup(title: "Playback") var playback: PlaybackOptions
    @OptionGroup(title: "General") var global: GlobalOptions

    func validate() throws {
        let n = [to != nil, serve != nil, udp != nil].filter { $0 }.count
        guard n == 1 else { throw ValidationError("choose exactly one of --to, --serve, --udp") }
        if let t = to, Endpoint(parsing: t) == nil { throw ValidationError("--to '\(t)' must be HOST:PORT") }
        if let u = udp, Endpoint(parsing: u) == nil { throw ValidationError("--udp '\(u)' must be HOST:PORT") }
        if let p = serve, !(0...65535).contains(p) { throw ValidationError("--serve must be a port 0-65535") }
    }

    func run() throws {
        global.bootstrapLogging()
        let logger = Logger(label: "sensorwah.stream")
        Shutdown.installHandlers()
        let script: StreamScript
        do { script = try StreamScript(path: file) } catch { throw RuntimeFailure("\(error)") }
        let lines = noHeader ? script.lines.filter { !$0.isHeader } : script.lines
        guard !lines.isEmpty else { throw ValidationError("'\(file)' has no lines to send") }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let player = StreamPlayer(lines: lines, timing: playback.timing)

        if let t = to, let ep = Endpoint(parsing: t) {
            let ch: Channel
            let answer = ListenerAnswer()
            do {
                ch = try ClientBootstrap(group: group).channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .channelInitializer { ch in
                        ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(answer) }
                    }
                    .connect(host: ep.host, port: ep.port).wait()
            } catch {
                throw RuntimeFailure("cannot connect to \(ep): \(error)")
            }
            logger.notice("connected to \(ep); sending \(lines.count) lines")
            let sent = player.play(over: ch)
            // the end of the stream: the listener closes its side once it has read it all, or
            // has already closed it (and may have said why)
            try? ch.close(mode: .output).wait()
            _ = ch.eventLoop.scheduleTask(in: .seconds(2)) { ch.close(promise: nil) }
            try? ch.closeFuture.wait()
            if let refusal = answer.refusal {
                throw RuntimeFailure("\(ep) refused the stream after \(sent) of \(lines.count) lines: \(refusal)")
            }
            if sent < lines.count && !playback.timing.loop && !Shutdown.isRequested {
                throw RuntimeFailure("\(ep) closed the connection after \(sent) of \(lines.count) lines")
            }
            printError("sensorwah stream: sent \(sent) lines to \(ep)")
        } else if let u = udp, let ep = Endpoint(parsing: u) {
            let remote = try SocketAddress.makeAddressResolvingHost(ep.host, port: ep.port)
            let ch = try DatagramBootstrap(group: group).bind(
                host: remote.protocol == .inet6 ? "::" : "0.0.0.0", port: 0
            ).wait()
            logger.notice("sending \(lines.count) lines as UDP datagrams to \(ep)")
            let sent = player.play { bytes, flushNow in
                var buf = ch.allocator.buffer(capacity: bytes.count)
                buf.writeBytes(bytes)
                let f = ch.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: buf))
                // pace datagrams so the receiver's socket buffer is not overrun
                if flushNow { _ = try? f.wait() }
                return true
            }
            try? ch.close().wait()
            printError("sensorwah stream: sent \(sent) datagrams to \(ep)")
        } else if let port = serve {
            let server = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    let peer = channel.remoteAddress?.description ?? "?"
                    logger.notice("listener connected: \(peer)")
                    let th = Thread {
                        let sent = player.play(over: channel)
                        logger.notice("sent \(sent) lines to \(peer)")
                        channel.close(promise: nil)
                    }
                    th.start()
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                .bind(host: "0.0.0.0", port: port).wait()
            logger.notice("serving \(file) on tcp://0.0.0.0:\(server.localAddress?.port ?? port)")
            while !Shutdown.isRequested { usleep(50_000) }
            try? server.close().wait()
        }
    }
}

/// What a listener says back on a line connection: nothing, or `# refused: REASON` before it
/// closes one it has no room for.
final class ListenerAnswer: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private var text = ""
    private(set) var refusal: String? {
        get { lock.withLock { refusalText } }
        set { lock.withLock { refusalText = newValue } }
    }
    private var refusalText: String?
    private let lock = NSLock()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buf = unwrapInboundIn(data)
        guard text.utf8.count < 1024 else { return }
        text += buf.readString(length: min(buf.readableBytes, 1024)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("# refused: ") {
            refusal = TerminalText.escaped(line.dropFirst("# refused: ".count), limit: 300)
        }
    }
}
