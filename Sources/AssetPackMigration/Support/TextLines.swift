import AssetPackFormat

/// Line lookups in a text read as bytes: the 1-based line and column of an offset, with line
/// breaks and a leading BOM counted as `ByteScanner` counts them.
struct TextLines {
    private var starts: [Int]

    init(_ bytes: [UInt8]) {
        var scanner = ByteScanner(bytes)
        starts = [scanner.offset]
        while !scanner.isAtEnd {
            let line = scanner.line
            scanner.advance()
            if scanner.line != line { starts.append(scanner.offset) }
        }
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
