/// "Did you mean --output?": the closest known name to a mistyped one.
enum Suggestion {
    /// The candidate nearest `name` (ignoring leading dashes and case), when it is close enough
    /// to be a typo: an edit distance (transpositions count once) of at most a third of its
    /// length, or a prefix of at least two letters; nil otherwise.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let typed = Array(strip(name))
        guard !typed.isEmpty else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates.sorted() {
            let known = Array(strip(candidate))
            var distance = editDistance(typed, known)
            if typed.count >= 2, known.starts(with: typed) { distance = min(distance, 1) }
            guard distance <= max(1, typed.count / 3), typed.count >= 2 || distance == 0 else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.candidate
    }

    private static func strip(_ name: String) -> Substring {
        name.lowercased().drop { $0 == "-" }
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours, each 1.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
