extension PackIndex {
    /// The files of this version whose bytes and mode are those of the file at the same path in
    /// `old`, known from the two indexes alone: same size, same mode, and the same pieces of the
    /// same chunks (digest, offset in the chunk, length). Maps each such file's number here to
    /// its number in `old`. A file whose bytes are equal but whose chunks were cut differently
    /// (a small file that shares a chunk with a changed neighbour) counts as changed: the rule
    /// never calls a changed file unchanged.
    public func unchangedFiles(since old: PackIndex) -> [Int: Int] {
        var out: [Int: Int] = [:]
        forEachUnchangedFile(since: old) { f, o in out[f] = o }
        return out
    }

    /// Calls `body` with each unchanged file's number here and in `old` (`unchangedFiles`), in
    /// file order, without a table of them: an update of a hundred thousand files goes through
    /// them one by one.
    public func forEachUnchangedFile(since old: PackIndex, _ body: (_ file: Int, _ oldFile: Int) throws -> Void) rethrows {
        // Both tables are in pack order: the old file of the same path is found by walking it
        // alongside, not by a search a file.
        var mine = PackFiles.Cursor(files), theirs = PackFiles.Cursor(old.files)
        while !mine.isAtEnd {
            defer { mine.advance() }
            let f = mine.index
            mine.withPath { path in while !theirs.isAtEnd && theirs.comparePath(to: path) < 0 { theirs.advance() } }
            guard !theirs.isAtEnd, mine.withPath({ theirs.comparePath(to: $0) }) == 0 else { continue }
            let o = theirs.index
            guard old.files.size(at: o) == files.size(at: f), old.files.mode(at: o) == files.mode(at: f) else { continue }
            if files.size(at: f) == 0 { try body(f, o); continue }
            let mine = spans(ofFile: f), theirs = old.spans(ofFile: o)
            guard mine.count == theirs.count else { continue }
            let same = zip(mine, theirs).allSatisfy { a, b in
                a.offsetInChunk == b.offsetInChunk && a.length == b.length && chunks[a.chunkIndex].digest == old.chunks[b.chunkIndex].digest
            }
            if same { try body(f, o) }
        }
    }
}
