/// "Did you mean" for a word typed wrong (a command, a mapping's source or option): the
/// closest of the words allowed, when it is close enough to be what was meant.
public enum Suggestion {
    /// The candidate nearest `word` by edit distance (insertions, deletions, substitutions and
    /// swaps of neighbours, case ignored), if at most a third of the word's letters (1 at
    /// least, 3 at most) are wrong; nil when none is that close or two are equally close.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let w = Array(word.lowercased())
        let allowed = min(3, max(1, w.count / 3))
        var best: (String, Int)?, tie = false
        for c in candidates {
            let d = distance(w, Array(c.lowercased()))
            guard d <= allowed, d > 0 else { continue }
            if best == nil || d < best!.1 {
                best = (c, d); tie = false
            } else if d == best!.1 && c != best!.0 {
                tie = true
            }
        }
        return tie ? nil : best?.0
    }

    /// Damerau-Levenshtein distance (optimal string alignment).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    /// " (did you mean 'X'?)" or "".
    public static func phrase(for word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }
}
