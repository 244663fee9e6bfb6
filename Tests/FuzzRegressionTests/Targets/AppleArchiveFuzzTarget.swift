import AppleArchive

/// An Apple Archive read as `aar list` and `aar extract` read it: the container (magic, block
/// size, chunks, each codec's stream) and the AA01 entries with their data, into a listing.
/// Every entry the reader accepts must have a path that stays inside the output, and its data
/// must come out at exactly the size its header declares.
enum AppleArchiveFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard let reader = try? AppleArchiveReader(source: InMemoryArchiveSource(bytes), threads: 1) else { return }
        var paths = Set<String>()
        do {
            while let entry = try reader.nextEntry() {
                let parts = entry.path.split(separator: "/", omittingEmptySubsequences: false)
                precondition(entry.path.isEmpty || !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." },
                             "accepted the path \(entry.path)")
                precondition(paths.insert(entry.path).inserted, "accepted \(entry.path) twice")
                var read: UInt64 = 0
                try reader.readData { read += UInt64($0.count) }
                precondition(read == entry.size, "read \(read) bytes of data, the header declares \(entry.size)")
            }
        } catch {}
    }
}
