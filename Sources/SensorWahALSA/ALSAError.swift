import CALSA
#if canImport(Glibc)
    import Glibc
#endif

/// Something the ALSA sequencer would not do. `description` is one line, fit for a user:
/// what is missing or wrong, and what to do about it.
public struct ALSAError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// No sequencer on this machine: /dev/snd/seq is missing.
        case noSequencer
        /// /dev/snd/seq exists but may not be opened by this user.
        case permission
        /// snd_seq_open or the client/port set-up failed for another reason.
        case openFailed
        /// A CLIENT[:PORT] spec that cannot be parsed.
        case badAddress
        /// A connection the sequencer refused (e.g. the port does not accept subscriptions).
        case connectFailed
    }

    public let kind: Kind
    /// libasound's negative errno, 0 if there was none.
    public let code: Int32
    public let description: String

    public init(_ kind: Kind, code: Int32 = 0, _ description: String) {
        self.kind = kind
        self.code = code
        self.description = description
    }

    /// What a user can use instead when there is no sequencer.
    public static let alternative = "or use --midi jack"

    /// The error for a failed snd_seq_open, after looking at /dev/snd/seq.
    static func openFailure(_ code: Int32) -> ALSAError {
        let device = "/dev/snd/seq"
        if access(device, F_OK) != 0 {
            return ALSAError(
                .noSequencer, code: code,
                "no ALSA sequencer: \(device) is missing (load the snd-seq kernel module: sudo modprobe snd-seq), \(alternative)"
            )
        }
        if code == -EACCES || code == -EPERM || access(device, R_OK | W_OK) != 0 {
            return ALSAError(
                .permission, code: code,
                "no ALSA sequencer: no permission to open \(device) (add your user to the 'audio' group and log in again), \(alternative)"
            )
        }
        return ALSAError(
            .openFailed, code: code,
            "no ALSA sequencer: cannot open \(device) (\(alsaMessage(code))), \(alternative)")
    }
}

/// libasound's text for a negative error code.
func alsaMessage(_ code: Int32) -> String {
    guard let s = snd_strerror(code) else { return "error \(code)" }
    return String(cString: s)
}
