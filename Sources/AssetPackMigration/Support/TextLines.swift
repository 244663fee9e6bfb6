/// Line lookups in a text read as bytes: the 1-based line of an offset.
struct TextLines {
    private var starts: [Int] = [0]

    init(_ bytes: [UInt8]) {
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
    }

    /// The 1-based line and column (in bytes) of byte `offset`.
    func position(of offset: Int) -> (line: Int, column: Int) {
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return (lo + 1, offset - starts[lo] + 1)
    }
}
