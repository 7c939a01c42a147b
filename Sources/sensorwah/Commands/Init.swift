import ArgumentParser
import SensorWahCore
import SensorWahEngine
#if canImport(Glibc)
    import Glibc
#endif

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a commented configuration file holding the built-in defaults.",
        discussion: """
            Edit it, then run any command with --config FILE; options typed on the command line \
            override the file (a list typed there, such as --map or --udp, replaces the file's). \
            `listen` reloads the file when it changes or on SIGHUP.

            Example:
              sensorwah init rig.yaml && sensorwah listen --config rig.yaml
            """
    )

    @Argument(help: ArgumentHelp("Where to write it.", valueName: "FILE"))
    var path: String
    @Flag(help: "Replace the file if it exists.")
    var force = false

    func run() throws {
        if !force && access(path, F_OK) == 0 {
            throw RuntimeFailure("'\(path)' exists; pass --force to replace it")
        }
        let text = try Self.defaultsText()
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw RuntimeFailure("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes = Array(text.utf8)
        guard writeAll(fd, &bytes, bytes.count) else {
            throw RuntimeFailure("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        printError("sensorwah init: wrote \(path) (the built-in defaults; edit it, then --config \(path))")
    }

    /// The file, every value taken from the options' own defaults so the two never drift apart.
    static func defaultsText() throws -> String {
        let input = try InputOptions.parse([])
        let play = try PlaybackOptions.parse([])
        let out = try OutputOptions.parse([])
        let listen = try Listen.parse([])
        let jack = out.jack, tone = out.jack.tone
        func n(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        func list(_ a: [String]) -> String { "[" + a.joined(separator: ", ") + "]" }
        return """
            # SensorWah configuration. Written by `sensorwah init` with the built-in defaults.
            # Use it with any command: sensorwah listen --config THIS_FILE
            # Keys are the long options of the commands (port: 9000 is --port 9000); options typed
            # on the command line override this file. `listen` reloads it when it changes.

            # Mappings: one per line, the syntax of --map (see `sensorwah mappings`).
            mappings:
              - \(Mapping.default.syntax)
              # - tilt.y fx=tremolo.rate to=1..8    # an effect parameter follows the wrist (needs it in the chain)
              # - flick fx=delay.bypass toggle       # a gesture switches an effect on and off

            # The effect chain the engine runs (--fx); without one, the wah alone. One line or a list:
            # chain: fuzz drive=0.8 tone=0.6 level=0.4 > wah > delay time=0.3 feedback=0.4 mix=0.3
            # fx-preset: fuzz-wah               # or a named chain (\(EffectChainSpec.presets.map(\.name).joined(separator: ", ")))
            # fx-cc: { 20: delay.mix, 21: delay.feedback }   # MIDI CC on the JACK port control_in moves a parameter

            input:
              format: \(input.format.rawValue)          # \(SensorFormat.allCases.map(\.rawValue).joined(separator: ", "))
              max-line: \(input.maxLine)         # longest line accepted, bytes
              # columns: loggingTime,accelerometerAccelerationX(G)   # for SensorLog streams without a header
              # sensor: accel                   # the sensor of a one-sensor file whose name does not say
              # sample-rate: 50                 # Hz, for logs without a time column

            playback:                            # replay and stream
              speed: \(n(play.speed))
              max-gap: \(n(play.maxGap))                       # longest pause kept, seconds
              loop: \(play.loop)

            listen:
              port: \(listen.port)                     # TCP port for phones in client mode
              no-tcp: \(listen.noTcp)
              bind: \(listen.bind)
              udp: \(list(listen.udp.map(String.init)))                          # e.g. [5555] for HyperIMU, Sensorstream
              connect: \(list(listen.connect))                      # phones in server mode, HOST:PORT
              osc: \(list(listen.osc.map(String.init)))                          # OSC over UDP ports (GyrOSC, ZIG SIM, Sensors2OSC, TouchOSC)
              osc-tcp: \(list(listen.oscTCP.map(String.init)))                      # OSC over TCP, SLIP-framed
              http: \(list(listen.http.map(String.init)))                         # Sensor Logger HTTP push ports
              http-max-body: \(listen.httpMaxBody)
              phyphox: \(list(listen.phyphox))                      # phones running phyphox with remote access, HOST:PORT
              phyphox-interval: \(listen.phyphoxInterval)
              allow: \(list(listen.allow))                        # who may send: [] is the local networks; e.g. [192.168.1.0/24], [any]
              pair: \(listen.pair)                      # only the first sender plays until restart
              # pair-with: 192.168.1.20           # only this sender plays
              max-connections: \(listen.maxConnections)
              idle-timeout: \(n(listen.idleTimeout))                 # seconds without a whole message before a connection is closed (0: never)
              rest-after: \(n(listen.restAfter))                    # seconds of silence before controllers go to rest (0: never)
              no-anticipate: \(listen.noAnticipate)             # true: the output thread sleeps until each line arrives (a few percent of a core less while a sender is steady; lines leave tens of µs later)
              playout: \(listen.playout)                     # off (play readings as they arrive), auto (each at its sender's own time plus the delay its Wi-Fi needs), or a delay in ms
              # record: Recordings             # record every sender into this folder
              # scene-gesture: shake            # a gesture that moves to the next scene
              # scene-channel: 1                # only Program Change on this channel selects a scene (default: any)

            output:
              midi: \(list(out.midi.map(\.rawValue)))                         # stdout, alsa, jack, rtp (none: stdout, unless the wah runs)
              alsa-client: \(out.alsaClient)
              alsa-port: \(out.alsaPort)
              alsa-connect: \(list(out.alsaConnect))                 # e.g. [Ardour]
              # rtp-name: SensorWah on stage    # midi: [rtp]: the session's name on the network (default: SensorWah on HOSTNAME)
              rtp-port: \(out.network.rtpPort)                    # RTP-MIDI control port (data on the next one)
              rtp-connect: \(list(out.network.rtpConnect))                  # sessions to invite, e.g. [192.168.1.10:5004] (a Mac's, an iPad's)
              osc-out: \(list(out.network.oscOut))                      # every event as OSC, e.g. [192.168.1.30:9000] or [tcp:192.168.1.30:9000]

            jack:
              wah: \(jack.wah)                       # run the wah on JACK audio
              channels: \(jack.channels)
              jack-connect: \(list(jack.jackConnect))                 # e.g. [system]
              wah-map: \(jack.wahMap)                       # which mapping moves the pedal
              # wah-switch: flick                # a gesture engages and bypasses the wah, like a toe switch
              # jack-server: default

            motion:
              tilt-source: fused               # fused (our fusion of accelerometer + gyro) or device (the app's attitude)
              # zero-gesture: shake             # a gesture that captures the rest orientation for `zero` mappings
              # rest-gravity: 0,0,-1           # the rest orientation; listen saves it here when you re-zero
              # gesture-setting: [flickAccelThreshold=2.5]   # gesture thresholds tuned on a take (export --list-gestures)

            wah:
              heel-hz: \(n(tone.heelHz))
              toe-hz: \(n(tone.toeHz))
              heel-q: \(n(tone.heelQ))
              toe-q: \(n(tone.toeQ))
              mix: \(n(tone.mix))
              bypass: \(tone.bypass)

            """
    }
}
