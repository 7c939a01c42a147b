/// Text from the network (a sender's name, a refused line, a mapping typed on the control page)
/// made safe for a terminal or a log line: control characters, line and paragraph separators
/// and DEL are written as escapes (`\n`, `\t`, `\r`, `\e`, `\x07`, `\u{2028}`), so nothing the
/// text carries can move the cursor, colour or clear the screen, retitle the window or begin a
/// forged log line. Printable text, including any script, passes unchanged.
public enum TerminalText {
    /// Whether `text` passes `escaped` unchanged.
    public static func isPlain(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.allSatisfy { !needsEscape($0) }
    }

    /// `text` with every control character escaped; at most `limit` characters of it, the rest
    /// replaced by `...` and the count left out.
    public static func escaped(_ text: some StringProtocol, limit: Int = 4096) -> String {
        if isPlain(text) && text.count <= limit { return String(text) }
        var out = ""
        var kept = 0
        for u in text.unicodeScalars {
            if kept >= limit {
                out += "...(\(text.unicodeScalars.count - kept) more)"
                break
            }
            kept += 1
            guard needsEscape(u) else { out.unicodeScalars.append(u); continue }
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{1B}": out += "\\e"
            default:
                let hex = String(u.value, radix: 16)
                out += u.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{" + hex + "}"
            }
        }
        return out
    }

    static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
            // the bidirectional overrides and isolates reorder what follows them on screen
            || (0x202A...0x202E).contains(u.value) || (0x2066...0x2069).contains(u.value)
    }
}
