import ArgumentParser

@main
struct SensorWah: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensorwah",
        abstract: "Turn wrist movement into MIDI control and a wah sweep.",
        discussion: """
        A phone or watch app (SensorLog, HyperIMU, Sensorstream) streams motion readings; \
        SensorWah cleans them, maps them to MIDI Control Change and sends them out.

        Start here:
          sensorwah replay Recordings/wrist-wah-phone.csv        play a recording, print the CC stream
          sensorwah replay FILE --fast --midi stdout             as fast as possible, one JSON line per message
          sensorwah replay FILE --wah                            the wah on JACK audio follows the recording
          sensorwah render --recording FILE in.wav out.wav       the same wah offline, no sound card needed
          sensorwah mappings                                     how to write a mapping (--map)

        With no --map, wrist tilt on the accelerometer's X axis drives CC 11 on channel 1.
        """,
        subcommands: [Replay.self, Listen.self, Stream.self, Render.self, Export.self, Ports.self, MappingsHelp.self],
        defaultSubcommand: nil
    )
}
