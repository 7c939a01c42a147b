import CQRencode

/// A QR code drawn with the terminal's block characters (libqrencode makes the code): two
/// module rows per text line, dark modules black on a white ground whatever the terminal's
/// colours, with the quiet zone a scanner needs.
enum QRCode {
    /// The code's modules (true = dark), row by row; nil when the text does not fit a QR code.
    static func modules(_ text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let w = Int(code.pointee.width)
        guard let data = code.pointee.data else { return nil }
        return (0..<w).map { y in (0..<w).map { x in data[y * w + x] & 1 == 1 } }
    }

    /// The code as text lines; `colour` puts it black on white with ANSI escapes (for a terminal).
    static func text(_ text: String, colour: Bool = true, quiet: Int = 2) -> [String]? {
        guard let m = modules(text) else { return nil }
        let w = m.count
        func dark(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < w && y < w && m[y][x] }
        var lines: [String] = []
        var y = -quiet
        while y < w + quiet {
            var line = colour ? "\u{1B}[30;47m" : ""
            for x in -quiet..<(w + quiet) {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            if colour { line += "\u{1B}[0m" }
            lines.append(line)
            y += 2
        }
        return lines
    }
}
