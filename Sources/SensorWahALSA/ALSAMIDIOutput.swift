import Logging
import SensorWahCore
import SensorWahEngine

/// `--midi alsa`: MIDI out as an ALSA sequencer client (default "SensorWah:out") that DAWs
/// list and subscribe to; `--alsa-connect` also connects it to destinations, now or when they
/// appear. Throws `ALSAError` (one line: what is missing, what to do) without a sequencer; a
/// destination that cannot be parsed or connected is logged as an error and skipped (check
/// the specs up front with `ALSAAddressSpec(parsing:)` to turn that into a usage error).
///
/// With `controlPort` (`listen` with scenes: "control in") it is also a Program Change input.
public final class ALSAMIDIOutput: EventOutput, ProgramChangeInput {
    public let sequencer: ALSASequencerOutput
    private let logger: Logger
    private var lastService = 0.0
    private var sendsSinceCheck = 0

    public init(
        clientName: String = "SensorWah", portName: String = "out", controlPort: String? = nil,
        connect specs: [String] = [], logger: Logger
    ) throws {
        self.logger = logger
        sequencer = try ALSASequencerOutput(
            clientName: clientName, portName: portName, controlPortName: controlPort, logger: logger)
        logger.info("ALSA: sending as \(clientName):\(portName) (\(sequencer.address))")
        for spec in specs {
            do {
                if try sequencer.connect(spec) {
                    let to = sequencer.connections.last?.address.map { " (\($0))" } ?? ""
                    logger.info("ALSA: connected to '\(spec)'\(to)")
                } else {
                    logger.info("ALSA: '\(spec)' is not there yet; will connect when it appears")
                }
            } catch {
                // the port stays up for others to subscribe to; only this destination is lost
                logger.error("\(error)")
            }
        }
        lastService = monotonicSeconds()
    }

    public var name: String { "alsa" }

    public func send(_ e: MIDIEvent) {
        sequencer.send(e)
        // a stream that never pauses (--fast, a busy sender) still hears announcements
        sendsSinceCheck &+= 1
        if sendsSinceCheck >= 32 { sendsSinceCheck = 0; serviceIfDue() }
    }

    /// Also reads sequencer announcements, at most every 100 ms (connects late destinations);
    /// with a control port, every time (Program Change should not wait).
    public func flush() {
        if sequencer.controlPort >= 0 {
            lastService = monotonicSeconds()
            sequencer.serviceAnnouncements()
        } else {
            serviceIfDue()
        }
    }

    public var programChangeInputName: String? {
        guard sequencer.controlPort >= 0, let name = sequencer.controlPortName else { return nil }
        return "ALSA \(sequencer.clientName):\(name) (\(sequencer.address.client):\(sequencer.controlPort))"
    }

    public func takeProgramChanges(_ body: (_ channel: UInt8, _ program: UInt8) -> Void) {
        sequencer.takeProgramChanges(body)
    }

    private func serviceIfDue() {
        let now = monotonicSeconds()
        guard now - lastService >= 0.1 else { return }
        lastService = now
        sequencer.serviceAnnouncements()
    }

    public func close() {
        guard sequencer.isOpen else { return }
        if sequencer.failed > 0 {
            logger.warning(
                "ALSA: \(sequencer.failed) of \(sequencer.sent + sequencer.failed) messages did not reach every subscriber (last error \(sequencer.lastError))"
            )
        }
        if sequencer.controlPort >= 0 {
            let dropped = sequencer.programChangesDropped
            logger.info(
                "ALSA: Program Change received on '\(sequencer.controlPortName ?? "")' \(sequencer.programChangesReceived)\(dropped > 0 ? " (\(dropped) dropped)" : "")"
            )
        }
        if sequencer.flowWaits > 0 {
            logger.debug("ALSA: waited \(sequencer.flowWaits) times for a slow subscriber")
        }
        sequencer.close()
    }
}
