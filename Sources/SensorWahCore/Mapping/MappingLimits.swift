/// Bounds every way of giving mappings shares: the configuration file's lists (the top-level
/// `mappings:` and each scene's) and the control API's calls.
public enum MappingLimits {
    /// Mappings in one list at most (a bound on what the mapper holds and a reload parses).
    public static let maxPerList = 256

    /// The first character of `text` that a mapping's text may not hold, described, or nil:
    /// control characters (Unicode Cc: newlines, tabs, escapes) and the line and paragraph
    /// separators U+2028/U+2029. A mapping is one line of a configuration file; a text with one
    /// of these would be written as something other than what runs.
    public static func forbiddenCharacter(in text: String) -> String? {
        for u in text.unicodeScalars
        where u.properties.generalCategory == .control || u.value == 0x2028 || u.value == 0x2029 {
            let hex = String(u.value, radix: 16, uppercase: true)
            let name: String
            switch u.value {
            case 0x0A: name = "a newline"
            case 0x0D: name = "a carriage return"
            case 0x09: name = "a tab"
            case 0x2028: name = "a line separator"
            case 0x2029: name = "a paragraph separator"
            default: name = "a control character"
            }
            return "\(name) (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))"
        }
        return nil
    }
}
