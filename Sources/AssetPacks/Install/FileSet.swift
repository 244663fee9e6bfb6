/// A set of file numbers of one pack, one bit a file, iterated in file order: the files an update
/// links from the previous version can be all of a pack's, and a million of them take 125 KB here
/// where a `Set<Int>` of them takes 25 MB.
struct FileSet: Sequence, Equatable, ExpressibleByArrayLiteral {
    private var words: [UInt64] = []
    /// How many files the set holds.
    private(set) var count = 0

    init() {}

    init(arrayLiteral files: Int...) {
        for f in files { insert(f) }
    }

    var isEmpty: Bool { count == 0 }

    func contains(_ f: Int) -> Bool {
        let w = f >> 6
        return f >= 0 && w < words.count && words[w] & (1 << UInt64(f & 63)) != 0
    }

    /// Adds file `f` (not negative); true when it was not there.
    @discardableResult
    mutating func insert(_ f: Int) -> Bool {
        precondition(f >= 0, "file number \(f)")
        let w = f >> 6, bit: UInt64 = 1 << UInt64(f & 63)
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: w + 1 - words.count)) }
        guard words[w] & bit == 0 else { return false }
        words[w] |= bit
        count += 1
        return true
    }

    mutating func formUnion(_ other: FileSet) {
        for f in other { insert(f) }
    }

    struct Iterator: IteratorProtocol {
        fileprivate let words: [UInt64]
        fileprivate var w = 0
        fileprivate var word: UInt64 = 0

        mutating func next() -> Int? {
            while word == 0 {
                guard w < words.count else { return nil }
                word = words[w]
                w += 1
            }
            let bit = word.trailingZeroBitCount
            word &= word - 1
            return (w - 1) << 6 | bit
        }
    }

    func makeIterator() -> Iterator { Iterator(words: words) }

    static func == (a: FileSet, b: FileSet) -> Bool { a.count == b.count && a.allSatisfy(b.contains) }
}
