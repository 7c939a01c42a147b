/// A failure of the world rather than of the command line (a file that cannot be read, a
/// port that cannot be bound, a peer that refuses): printed as "Error: ..." with exit status 1
/// and no usage line. A wrong command line throws `ValidationError` instead (status 64, usage).
struct RuntimeFailure: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
