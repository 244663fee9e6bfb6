/// The files a selection chose, in the order it chose them, held as the stretches the walk
/// produced (one a subtree walked on another thread) rather than as one array. Putting the
/// subtrees together then moves their arrays instead of copying them into a larger one: at a
/// million files, one array took 24 MB and putting it together held twice that at once.
///
/// A file is reached by its position, through a binary search of the stretches' ends (about one a
/// folder of the tree's top two levels, where the walk runs side by side: about 400 for the
/// million-file corpus); going through the list in order walks the stretches.
public struct SelectedFileList: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    private var parts: [[SelectedFile]] = []
    /// Where each part ends in the list: `ends[k]` is the count of files in parts 0...k.
    private var ends: [Int] = []

    public init() {}

    public init(_ files: [SelectedFile]) {
        if !files.isEmpty {
            parts = [files]
            ends = [files.count]
        }
    }

    public init(arrayLiteral files: SelectedFile...) { self.init(files) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.last ?? 0 }

    public subscript(i: Int) -> SelectedFile {
        precondition(i >= 0 && i < endIndex, "file \(i) of a list of \(endIndex)")
        let k = part(holding: i)
        return parts[k][i - (k == 0 ? 0 : ends[k - 1])]
    }

    /// The part that holds position `i`: the first whose end is above it.
    private func part(holding i: Int) -> Int {
        var low = 0, high = ends.count - 1
        while low < high {
            let mid = (low + high) / 2
            if ends[mid] > i { high = mid } else { low = mid + 1 }
        }
        return low
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let parts: [[SelectedFile]]
        fileprivate var part = 0
        fileprivate var position = 0

        public mutating func next() -> SelectedFile? {
            while part < parts.count {
                if position < parts[part].count {
                    defer { position += 1 }
                    return parts[part][position]
                }
                part += 1
                position = 0
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(parts: parts) }

    public mutating func append(_ file: SelectedFile) {
        if parts.isEmpty {
            parts.append([file])
            ends.append(1)
        } else {
            parts[parts.count - 1].append(file)
            ends[ends.count - 1] += 1
        }
    }

    /// Appends `other`'s files by taking over its parts, without copying a file (but for a part
    /// with much room to spare, `trimmed`).
    public mutating func append(contentsOf other: consuming SelectedFileList) {
        let base = endIndex
        for (k, part) in other.parts.enumerated() {
            parts.append(Self.trimmed(part))
            ends.append(base + other.ends[k])
        }
    }

    /// Gives back the room the parts have to spare: a part grown a file at a time has up to as
    /// much room again as it has files.
    public mutating func trim() {
        for k in parts.indices { parts[k] = Self.trimmed(parts[k]) }
    }

    /// `part`, or a copy of it without the room it has to spare when that is more than an eighth.
    private static func trimmed(_ part: [SelectedFile]) -> [SelectedFile] {
        guard part.capacity - part.count > Swift.max(16, part.count / 8) else { return part }
        var copy: [SelectedFile] = []
        copy.reserveCapacity(part.count)
        copy.append(contentsOf: part)
        return copy
    }

    /// Appends copies of `files` to the last part.
    public mutating func append(contentsOf files: ArraySlice<SelectedFile>) {
        guard !files.isEmpty else { return }
        if parts.isEmpty {
            parts.append(Array(files))
            ends.append(files.count)
        } else {
            parts[parts.count - 1] += files
            ends[ends.count - 1] += files.count
        }
    }

    /// Removes the first `n` files: the parts they fill whole are let go of, the rest of the
    /// part they end in moves to its front.
    public mutating func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= endIndex, "removing \(n) files of a list of \(endIndex)")
        guard n > 0 else { return }
        let whole = ends.firstIndex { $0 > n } ?? parts.count
        let dropped = whole == 0 ? 0 : ends[whole - 1]
        parts.removeFirst(whole)
        ends = ends.dropFirst(whole).map { $0 - n }
        if !parts.isEmpty, n > dropped { parts[0].removeFirst(n - dropped) }
        if parts.isEmpty { ends = [] }
    }

    /// Calls `body` with each stretch of the files from position `start` on, in order.
    public func forEachStretch(from start: Int, _ body: (ArraySlice<SelectedFile>) throws -> Void) rethrows {
        guard start < endIndex else { return }
        var k = part(holding: start)
        var offset = start - (k == 0 ? 0 : ends[k - 1])
        while k < parts.count {
            try body(parts[k][offset...])
            k += 1
            offset = 0
        }
    }

    /// Empties the list, keeping the first part's storage for the files to come.
    public mutating func removeAll() {
        guard !parts.isEmpty else { return }
        parts.removeSubrange(1...)
        parts[0].removeAll(keepingCapacity: true)
        ends = [0]
    }

    /// Sorts the files by `areInIncreasingOrder`, into one part.
    public mutating func sort(by areInIncreasingOrder: (SelectedFile, SelectedFile) throws -> Bool) rethrows {
        var all = Array(self)
        parts = []
        try all.sort(by: areInIncreasingOrder)
        self = SelectedFileList(all)
    }

    public static func == (a: SelectedFileList, b: SelectedFileList) -> Bool { a.elementsEqual(b) }
}
