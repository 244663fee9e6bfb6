import AssetPackFormat

/// Reads an Apple Archive entry by entry, streaming: `nextEntry()` gives each header in order,
/// `readData(_:)` hands the current entry's file data (`DAT`) to a closure in pieces, and
/// whatever the caller does not read is skipped. Memory stays at a few container chunks plus the
/// set of paths seen (duplicates are refused), whatever the archive's size.
///
/// ```swift
/// let reader = try AppleArchiveReader(path: "Pack.aar")
/// while let entry = try reader.nextEntry() {
///     if entry.type == .file { try reader.readData { bytes in ... } }
/// }
/// ```
public final class AppleArchiveReader {
    /// The container the archive uses (`.none`: a bare AA01 stream).
    public let container: AppleArchiveContainer
    private var cursor: StreamCursor
    private var count = 0
    private var current: AppleArchiveHeader?
    /// The blobs of the current entry not yet read or skipped.
    private var pendingBlobs: ArraySlice<AppleArchiveHeader.Blob> = []
    private var paths = Set<String>()

    /// Opens the archive file at `path`; chunks are decoded on `threads` cores.
    public convenience init(path: String, threads: Int = SettingBounds.cores) throws(AppleArchiveError) {
        try self.init(source: try ArchiveFileSource(path: path), threads: threads)
    }

    /// Reads the archive `source` holds.
    public init(source: any ArchiveByteSource, threads: Int = SettingBounds.cores) throws(AppleArchiveError) {
        let stream = try DecodedStream(source: source, threads: threads)
        container = stream.container
        cursor = StreamCursor(stream)
    }

    /// The compression the archive's container uses.
    public var compression: AppleArchiveCompression { container.compression }

    /// The next entry, or nil after the last. The data of the entry before it, where not read,
    /// is skipped.
    public func nextEntry() throws(AppleArchiveError) -> AppleArchiveEntry? {
        try skipPendingBlobs()
        current = nil
        guard !(try cursor.atEnd()) else { return nil }
        let index = count
        let start = cursor.offset
        let region = AppleArchiveEntry.region(index, nil)
        let fixed = try cursor.read(AppleArchiveHeader.fixedSize, region: region)
        guard AppleArchiveHeader.magics.contains(Array(fixed[0..<4])) else {
            let shown = fixed[0..<4].map { (0x20...0x7e).contains($0) ? String(Character(Unicode.Scalar($0))) : "." }.joined()
            throw .malformed(region, at: start, "'\(shown)' where an entry header (AA01) starts")
        }
        let size = Int(fixed[4]) | Int(fixed[5]) << 8
        guard size >= AppleArchiveHeader.fixedSize else {
            throw .malformed(region, at: start + 4, "header size \(size) is smaller than the header's own magic and size (6)")
        }
        let fields = try cursor.read(size - AppleArchiveHeader.fixedSize, region: region)
        let header = try AppleArchiveHeader.decode(fixed + fields, index: index, offset: start)
        guard paths.insert(header.entry.path).inserted else {
            throw .malformed(header.entry.region, at: start, "the path appears twice in the archive (duplicate entry)")
        }
        count += 1
        current = header
        pendingBlobs = header.blobs[...]
        return header.entry
    }

    /// Hands the current entry's file data to `body`, in pieces, in order; the whole data is
    /// checked against the entry's SHA-256 (`SH2`) when it has one, after the last piece. An
    /// entry without data gives no call. Each entry's data can be read once.
    public func readData(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let header = current else { return }
        while let blob = pendingBlobs.first, blob.key != "DAT" {
            try skip(blob, of: header.entry)
            pendingBlobs.removeFirst()
        }
        guard let blob = pendingBlobs.first else { return }
        pendingBlobs.removeFirst()
        let hasher = header.entry.sha256 == nil ? nil : SHA256Hasher()
        let start = cursor.offset
        var failure: (any Error)?
        do {
            try cursor.forEachSlice(blob.size, region: "\(header.entry.region) data", startedAt: start) { (slice: UnsafeRawBufferPointer) throws(AppleArchiveError) in
                hasher?.update(slice)
                do { try body(slice) } catch {
                    failure = error
                    throw AppleArchiveError(.io, header.entry.region, at: nil, "stopped by the reader")
                }
            }
        } catch {
            throw failure ?? error
        }
        if let hasher, let expected = header.entry.sha256 {
            let actual = hasher.finalize()
            guard actual.bytes == expected else {
                throw AppleArchiveError.malformed(header.entry.region, at: start,
                                                  "the data's SHA-256 is \(actual.hex), the header (SH2) says \(SHA256Digest(bytes: expected).hex)")
            }
        }
    }

    private func skipPendingBlobs() throws(AppleArchiveError) {
        guard let header = current else { return }
        while let blob = pendingBlobs.first {
            try skip(blob, of: header.entry)
            pendingBlobs.removeFirst()
        }
    }

    private func skip(_ blob: AppleArchiveHeader.Blob, of entry: AppleArchiveEntry) throws(AppleArchiveError) {
        try cursor.skip(blob.size, region: "\(entry.region) \(blob.key) blob")
    }
}
