@testable import AssetPackFormat
import Foundation

/// A pack file as `verify`, `extract`, `inspect` and the client read one. The index decoder is
/// run twice: on the range the trailer names without the digest check (so that mutations of a
/// real pack's index reach PackIndex.decode, which must hold on its own, as it does for an index
/// fetched by range before any digest is known), and through PackReader on the bytes written to
/// a file, as the product opens packs.
enum PackFuzzTarget {
    /// One scratch file per process, rewritten for every input.
    private static let scratchPath: String = {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        return "\(folder)/assetpack-fuzz-\(getpid()).pack"
    }()

    static func run(_ bytes: [UInt8]) {
        if bytes.count >= PackLayout.trailerSize {
            let tail = Array(bytes[(bytes.count - PackLayout.trailerSize)...])
            if let trailer = try? PackTrailer.decode(tail, fileSize: UInt64(bytes.count)) {
                let start = Int(trailer.indexOffset)
                precondition(start + Int(trailer.indexLength) + PackLayout.trailerSize == bytes.count, "trailer accepted an index range that does not end at the trailer")
                let indexBytes = Array(bytes[start..<start + Int(trailer.indexLength)])
                if let index = try? PackIndex.decode(indexBytes, indexOffset: trailer.indexOffset) {
                    exercise(index, at: trailer.indexOffset)
                    expandAndContract(indexBytes, index: index, at: trailer.indexOffset)
                } else {
                    // A refused index may still expand (only the regions' lengths are read): what
                    // it contracts to must be refused or decode like any index.
                    if let expanded = try? ExpandedIndex.expand(indexBytes, indexOffset: trailer.indexOffset) { _ = try? ExpandedIndex.contract(expanded) }
                }
            }
        }
        // PackReader refuses anything shorter or without the magic before reading further;
        // only candidates are written out (a file per input is most of this target's cost).
        if bytes.count >= PackLayout.headerSize + PackLayout.trailerSize, bytes.starts(with: PackLayout.headerMagic) {
            readThroughFile(bytes)
        }
    }

    /// An accepted index of a version with a compressed file table expands (the form an index
    /// patch works on) and contracts to bytes that decode to the same index; the expanded form
    /// does not depend on the compression (the contracted index expands to the same bytes).
    private static func expandAndContract(_ bytes: [UInt8], index: PackIndex, at indexOffset: UInt64) {
        guard ExpandedIndex.expands(formatVersion: index.formatVersion) else {
            precondition((try? ExpandedIndex.expand(bytes, indexOffset: indexOffset)) == nil, "an index of version \(index.formatVersion) expanded")
            return
        }
        guard let expanded = try? ExpandedIndex.expand(bytes, indexOffset: indexOffset) else { preconditionFailure("an accepted index does not expand") }
        guard let contracted = try? ExpandedIndex.contract(expanded) else { preconditionFailure("an expanded index does not contract") }
        precondition((try? PackIndex.decode(contracted, indexOffset: indexOffset)) == index, "a contracted index decodes to another index")
        precondition((try? ExpandedIndex.expand(contracted, indexOffset: indexOffset)) == expanded, "a contracted index expands to other bytes")
    }

    /// What the product asks of an index it has accepted: every lookup stays in bounds, and the
    /// index encodes back to an index that decodes to the same value.
    private static func exercise(_ index: PackIndex, at indexOffset: UInt64) {
        let encoded = index.encoded()
        precondition((try? PackIndex.decode(encoded, indexOffset: indexOffset)) == index, "an accepted index does not survive encoding")
        _ = index.installSize
        _ = index.compressedSize
        for (i, file) in index.files.enumerated() {
            precondition(index.fileIndex(of: file.path) == i, "fileIndex(of:) does not find \(file.path)")
            // The bytes lent in place are the path's, and they sort after the previous file's.
            precondition(file.withPathBytes { Array($0) } == Array(file.path.utf8), "the path bytes of \(file.path) are not its string's")
            precondition(i == 0 || index.files[i - 1].comparePath(to: file) < 0, "\(file.path) does not sort after the file before it")
            let spans = index.spans(ofFile: i)
            precondition(spans.reduce(0) { $0 + UInt64($1.length) } == file.size, "spans of \(file.path) do not add up to its size")
            if file.size > 0 { precondition(index.file(containing: index.fileOffsets[i]) == i, "file(containing:) misses \(file.path)") }
        }
        for c in index.chunks.indices.prefix(256) { _ = index.files(usingChunk: c) }
        // A pack file with bases: every chunk lies in exactly one place, its bases' counts add
        // up within the table, and its own frames never weigh more than all of them.
        precondition(index.baseChunkCount <= index.chunks.count, "the bases claim more chunks than the table has")
        for c in index.chunks.indices.prefix(256) {
            precondition((index.baseHolding(c) != nil) == index.isInBase(c), "chunk \(c) is in a base by one reading and not by the other")
        }
        precondition(index.ownCompressedSize <= index.compressedSize, "own frames weigh more than all frames")
    }

    /// PackReader on the bytes as a file, then a few chunks and files through ChunkVerifier.
    private static func readThroughFile(_ bytes: [UInt8]) {
        let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "cannot create \(scratchPath)")
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        precondition(written == bytes.count, "short write to \(scratchPath)")
        guard let reader = try? PackReader(path: scratchPath) else { return }
        let decompressor = ZstdDecompressor()
        for c in reader.index.chunks.indices.prefix(16) { _ = try? reader.chunk(c, using: decompressor) }
        for file in reader.index.files.prefix(16) { _ = try? reader.contents(of: file.path) }
    }
}
