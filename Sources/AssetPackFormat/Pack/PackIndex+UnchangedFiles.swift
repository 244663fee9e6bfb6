extension PackIndex {
    /// The files of this version whose bytes and mode are those of the file at the same path in
    /// `old`, known from the two indexes alone: same size, same mode, and the same pieces of the
    /// same chunks (digest, offset in the chunk, length). Maps each such file's number here to
    /// its number in `old`. A file whose bytes are equal but whose chunks were cut differently
    /// (a small file that shares a chunk with a changed neighbour) counts as changed: the rule
    /// never calls a changed file unchanged.
    public func unchangedFiles(since old: PackIndex) -> [Int: Int] {
        var out: [Int: Int] = [:]
        for (f, file) in files.enumerated() {
            guard let o = old.fileIndex(of: file.path), old.files[o].size == file.size, old.files[o].mode == file.mode else { continue }
            if file.size == 0 { out[f] = o; continue }
            let mine = spans(ofFile: f), theirs = old.spans(ofFile: o)
            guard mine.count == theirs.count else { continue }
            let same = zip(mine, theirs).allSatisfy { a, b in
                a.offsetInChunk == b.offsetInChunk && a.length == b.length && chunks[a.chunkIndex].digest == old.chunks[b.chunkIndex].digest
            }
            if same { out[f] = o }
        }
        return out
    }
}
