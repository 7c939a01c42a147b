/// A MIDI input that takes Program Change for scene switching: the ALSA port `control in`
/// (`ALSAMIDIOutput`) and the JACK port `control_in` (`JackMIDIOutput`). Only Program Change
/// messages are kept (clock, notes, controllers a DAW sends there are dropped on arrival) and
/// nothing received is ever sent on.
///
/// `listen`'s main thread drains it and submits the scene switch to the network thread, as
/// SIGUSR2 and the live view's key do.
public protocol ProgramChangeInput: AnyObject {
    /// Where Program Change is received, for logs ("ALSA SensorWah:control in (128:1)").
    var programChangeInputName: String? { get }
    /// Hands every Program Change received since the last call to `body` (channel 0-15,
    /// program 0-127), oldest first. One consumer thread.
    func takeProgramChanges(_ body: (_ channel: UInt8, _ program: UInt8) -> Void)
}
