/// The files of a pack index, in pack order, held about as compactly as the version-2 file table
/// they are read from (docs/FORMAT.md, "Index"): each path front-coded against the one before
/// it, every `restartInterval`-th path whole, and the modes and the files' end offsets in the
/// content stream as columns.
///
/// A client holds the whole list while it installs, updates or verifies a pack (an update holds
/// two). A list of `FileEntry`s would take each path whole and about 32 bytes more a file, 80
/// bytes a file for 45-byte paths; here a file takes the bytes its path does not share with the
/// previous one (the whole path once in `restartInterval`), two length bytes, 2 for its mode and
/// 8 for its end: about 22 bytes a file on the benchmarks' small-files corpus.
///
/// File `i` is reached by expanding at most `restartInterval` paths from the last whole one:
/// `subscript` gives it as a `FileEntry` (its path a new string); `withPath(at:)`, `size(at:)`,
/// `mode(at:)` and `offset(at:)` read it without allocating; iterating expands each path once.
public struct PackFiles: RandomAccessCollection, Sendable, Equatable {
    /// Paths between two whole ones: expanding one costs at most this many, and the whole paths
    /// add about 1/16 of a path's bytes a file.
    static let restartInterval = 16

    /// Per path: the bytes it shares with the previous path (0 at a restart), the length of the
    /// rest, as varints, then the rest.
    private var paths: [UInt8] = []
    /// Where each whole path begins in `paths`: path `k × restartInterval` for each `k`.
    private var restarts: [UInt32] = []
    private var modes: [UInt16] = []
    /// Where each file ends in the content stream: the sizes added up (wrapping, as an unchecked
    /// list may overflow; a decoded table's sizes add up to its stream's length).
    private var ends: [UInt64] = []
    private var pathCount = 0
    /// The last path appended, to front-code the next one.
    private var last: [UInt8] = []
    /// The longest path held, for the buffer a path is expanded into.
    private var longest = 0

    public init() {}

    /// The list of `entries`, in their order.
    public init(_ entries: some Sequence<FileEntry>) {
        for entry in entries { append(entry) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.count }

    /// File `i` as an entry of its own.
    public subscript(i: Int) -> FileEntry {
        withPath(at: i) { FileEntry(pathBytes: $0, mode: mode(at: i), size: size(at: i)) }
    }

    public func size(at i: Int) -> UInt64 { ends[i] &- offset(at: i) }
    public func mode(at i: Int) -> UInt32 { UInt32(modes[i]) }
    /// Where file `i` starts in the content stream: the sizes of the files before it.
    public func offset(at i: Int) -> UInt64 { i == 0 ? 0 : ends[i - 1] }
    /// Where file `i` ends in the content stream.
    public func end(at i: Int) -> UInt64 { ends[i] }
    /// The sizes of all files added up (the install size).
    public var totalSize: UInt64 { ends.last ?? 0 }
    /// The path of file `i`.
    public func path(at i: Int) -> String { withPath(at: i) { String(decoding: $0, as: UTF8.self) } }

    /// Calls `body` with the UTF-8 bytes of file `i`'s path, expanded into a temporary buffer.
    public func withPath<R, E: Error>(at i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        precondition(i >= 0 && i < pathCount, "file \(i) of \(pathCount)")
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(longest, 1)) { scratch throws(E) in
            let length = expand(i, into: scratch)
            return try body(UnsafeBufferPointer(rebasing: scratch[..<length]))
        }
    }

    /// The position of the file at `path` (paths are in byte-wise order): a binary search over the
    /// whole paths, read in place, then a walk of at most `restartInterval` paths from the last
    /// one not after it.
    public func index(of path: String) -> Int? {
        guard !isEmpty else { return nil }
        var path = path
        return path.withUTF8 { target in
            paths.withUnsafeBufferPointer { bytes in
                // The last restart whose path is not after the target.
                var lo = 0, hi = restarts.count
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2
                    var at = Int(restarts[mid])
                    _ = Self.varint(bytes, &at)
                    let length = Self.varint(bytes, &at)
                    if PackPath.compare(UnsafeBufferPointer(rebasing: bytes[at..<at + length]), target) <= 0 { lo = mid } else { hi = mid }
                }
                var found: Int?
                let first = lo * Self.restartInterval
                forEachPath(from: first) { i, candidate in
                    let order = PackPath.compare(candidate, target)
                    if order == 0 { found = i }
                    return order < 0 && i + 1 < Swift.min(first + Self.restartInterval, count)
                }
                return found
            }
        }
    }

    /// The start of each file in the content stream, as a collection.
    public var offsets: Offsets { Offsets(ends: ends) }

    /// The start of each file in the content stream: 0, then each file's end but the last.
    public struct Offsets: RandomAccessCollection, Sendable {
        fileprivate let ends: [UInt64]
        public var startIndex: Int { 0 }
        public var endIndex: Int { ends.count }
        public subscript(i: Int) -> UInt64 { i == 0 ? 0 : ends[i - 1] }
    }

    /// The bytes the list holds (its arrays' contents), for the tests that keep it compact.
    package var heldBytes: Int { paths.count + restarts.count * 4 + modes.count * 2 + ends.count * 8 + last.count }

    // MARK: Building

    /// Appends a file after the others; its path must be at most `UInt32.max` bytes in all.
    package mutating func append(path: UnsafeBufferPointer<UInt8>, mode: UInt32, size: UInt64) {
        appendPath(path)
        appendColumns(mode: mode, size: size)
    }

    package mutating func append(_ entry: FileEntry) {
        entry.withPathBytes { append(path: $0, mode: entry.mode, size: entry.size) }
    }

    /// Appends only a path: a table read column by column gives the paths first, and then its
    /// modes and sizes in the same order (`appendColumns`).
    mutating func appendPath(_ path: UnsafeBufferPointer<UInt8>) {
        var shared = 0
        if pathCount % Self.restartInterval == 0 {
            precondition(paths.count <= Int(UInt32.max), "a file list of more than 4 GiB of paths")
            restarts.append(UInt32(paths.count))
        } else {
            let limit = Swift.min(path.count, last.count)
            while shared < limit && path[shared] == last[shared] { shared += 1 }
        }
        PackFileTableEncoder.appendVarint(UInt64(shared), to: &paths)
        PackFileTableEncoder.appendVarint(UInt64(path.count - shared), to: &paths)
        paths.append(contentsOf: path[shared...])
        last.replaceSubrange(shared..., with: path[shared...])
        longest = Swift.max(longest, path.count)
        pathCount += 1
    }

    /// Gives the next file whose path `appendPath` added its mode (at most `UInt16.max`) and size.
    mutating func appendColumns(mode: UInt32, size: UInt64) {
        precondition(ends.count < pathCount, "a mode and size for a path not yet added")
        precondition(mode <= UInt32(UInt16.max), "file mode \(String(mode, radix: 8)) is more than permission and type bits")
        modes.append(UInt16(mode))
        ends.append(totalSize &+ size)
    }

    mutating func reserveCapacity(files: Int, pathBytes: Int) {
        paths.reserveCapacity(pathBytes)
        restarts.reserveCapacity(files / Self.restartInterval + 1)
        modes.reserveCapacity(files)
        ends.reserveCapacity(files)
    }

    // MARK: Expanding

    /// Expands path `i` into `scratch` (at least `longest` bytes), returning its length.
    private func expand(_ i: Int, into scratch: UnsafeMutableBufferPointer<UInt8>) -> Int {
        paths.withUnsafeBufferPointer { bytes in
            let first = i - i % Self.restartInterval
            var at = Int(restarts[i / Self.restartInterval]), length = 0
            for _ in first...i {
                let shared = Self.varint(bytes, &at), rest = Self.varint(bytes, &at)
                UnsafeMutableRawPointer(scratch.baseAddress! + shared).copyMemory(from: bytes.baseAddress! + at, byteCount: rest)
                at += rest
                length = shared + rest
            }
            return length
        }
    }

    /// A varint this type wrote (so well formed).
    private static func varint(_ bytes: UnsafeBufferPointer<UInt8>, _ at: inout Int) -> Int {
        var v = 0, shift = 0
        while true {
            let b = bytes[at]
            at += 1
            v |= Int(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
    }

    // MARK: Iterating

    /// Calls `body` with each file's position and path bytes, in order, expanding each path once
    /// and allocating nothing a file; `body` returns false to stop.
    public func forEachPath<E: Error>(from first: Int = 0, _ body: (Int, UnsafeBufferPointer<UInt8>) throws(E) -> Bool) throws(E) {
        guard first < count else { return }
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(longest, 1)) { scratch throws(E) in
            try paths.withUnsafeBufferPointer { bytes throws(E) in
                var length = expand(first, into: scratch)
                var at = Self.position(after: first, in: bytes, restarts: restarts)
                var i = first
                while true {
                    guard try body(i, UnsafeBufferPointer(rebasing: scratch[..<length])) else { return }
                    i += 1
                    guard i < count else { return }
                    let shared = Self.varint(bytes, &at), rest = Self.varint(bytes, &at)
                    UnsafeMutableRawPointer(scratch.baseAddress! + shared).copyMemory(from: bytes.baseAddress! + at, byteCount: rest)
                    at += rest
                    length = shared + rest
                }
            }
        }
    }

    /// Where the entry after path `i` begins in `bytes`.
    private static func position(after i: Int, in bytes: UnsafeBufferPointer<UInt8>, restarts: [UInt32]) -> Int {
        var at = Int(restarts[i / restartInterval])
        for _ in (i - i % restartInterval)...i {
            _ = varint(bytes, &at)
            at += varint(bytes, &at)
        }
        return at
    }

    /// A position in the list that moves forward one file at a time, expanding each path once
    /// from the one before it.
    public struct Cursor {
        private let files: PackFiles
        /// The file the cursor is at; `files.count` once past the last.
        public private(set) var index: Int
        private var at: Int
        private var path: [UInt8] = []

        /// A cursor at file `index`.
        public init(_ files: PackFiles, at index: Int = 0) {
            self.files = files
            self.index = index
            at = 0
            guard index < files.count else { return }
            path = [UInt8](repeating: 0, count: files.longest)
            let length = path.withUnsafeMutableBufferPointer { files.expand(index, into: $0) }
            path.removeSubrange(length...)
            at = files.paths.withUnsafeBufferPointer { PackFiles.position(after: index, in: $0, restarts: files.restarts) }
        }

        public var isAtEnd: Bool { index >= files.count }

        /// Moves to the next file.
        public mutating func advance() {
            precondition(index < files.count, "a cursor past the last file")
            index += 1
            guard index < files.count else { return }
            files.paths.withUnsafeBufferPointer { bytes in
                let shared = PackFiles.varint(bytes, &at), rest = PackFiles.varint(bytes, &at)
                path.replaceSubrange(shared..., with: bytes[at..<at + rest])
                at += rest
            }
        }

        /// Calls `body` with the current file's path bytes.
        public func withPath<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            precondition(index < files.count, "a cursor past the last file")
            return path.withUnsafeBufferPointer(body)
        }

        /// The current file as an entry of its own.
        public var entry: FileEntry {
            withPath { FileEntry(pathBytes: $0, mode: files.mode(at: index), size: files.size(at: index)) }
        }

        /// Byte-wise order of the current path against `other` (`PackPath.compare`).
        public func comparePath(to other: UnsafeBufferPointer<UInt8>) -> Int { withPath { PackPath.compare($0, other) } }
    }

    /// Visits the files in order, expanding each path once from the one before it.
    public struct Iterator: IteratorProtocol {
        private var cursor: Cursor
        private var started = false

        fileprivate init(_ files: PackFiles) { cursor = Cursor(files) }

        public mutating func next() -> FileEntry? {
            if started, !cursor.isAtEnd { cursor.advance() }
            started = true
            guard !cursor.isAtEnd else { return nil }
            return cursor.entry
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    public static func == (a: PackFiles, b: PackFiles) -> Bool {
        // The encoding is canonical: equal lists of files give equal arrays.
        a.ends == b.ends && a.modes == b.modes && a.paths == b.paths
    }
}
