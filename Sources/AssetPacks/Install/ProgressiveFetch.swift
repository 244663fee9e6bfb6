import AssetPackFormat
import AssetPackTransport
import Foundation

/// Fetches the bytes of one file of a pack version on its own, ahead of (or without) the
/// pack's download: only the frames of the chunks that hold the wanted bytes, nearby frames
/// merged into one Range request (at most `maxRequest` bytes, so memory stays bounded whatever
/// the file's size), each frame decompressed and verified (SHA-256) before any of its bytes is
/// handed on. A frame that does not verify is fetched again on its own, from the healthiest
/// mirror (the one that served it goes behind the others), up to `chunkAttempts` times; then
/// the read fails with a verification error naming the file — the pack's download, if one
/// runs, is not touched.
struct ProgressiveFetch: @unchecked Sendable {
    let packPath: String
    /// The pack file's bases (files of a device variant's group), by position in `index.bases`:
    /// they hold the frames of the chunks `index.baseHolding` names.
    var basePaths: [String] = []
    let index: PackIndex
    let client: RepositoryClient
    let cancellation: CancellationFlag
    var chunkAttempts = 3
    /// Frames closer than this are fetched with one request (the gap too).
    var mergeGap: UInt64 = 64 << 10
    /// No request is longer than this (unless one frame is).
    var maxRequest: UInt64 = 4 << 20

    /// One request's frames: the pack bytes it covers and the spans it serves.
    private struct Batch {
        var first: UInt64
        var end: UInt64
        /// The base file the frames lie in (a position in `index.bases`); nil: the pack file.
        var base: Int?
        var spans: [(span: ChunkSpan, fileOffset: UInt64)] = []
    }

    /// Fetches the bytes `range` (file offsets, end exclusive, cut at the file's end) of file
    /// `f` and hands each verified piece to `sink` with its file offset, in file order. Returns
    /// the network bytes it fetched.
    func read(file f: Int, range: Range<UInt64>, sink: (_ fileOffset: UInt64, _ bytes: UnsafeRawBufferPointer) throws -> Void) throws -> UInt64 {
        let size = index.files.size(at: f)
        let wanted = min(range.lowerBound, size)..<min(range.upperBound, size)
        guard !wanted.isEmpty else { return 0 }
        var batches: [Batch] = []
        var offset: UInt64 = 0
        for span in index.spans(ofFile: f) {
            defer { offset += UInt64(span.length) }
            guard offset < wanted.upperBound, offset + UInt64(span.length) > wanted.lowerBound else { continue }
            let entry = index.chunks[span.chunkIndex]
            let frameEnd = entry.offset + UInt64(entry.compressedSize)
            let base = index.baseHolding(span.chunkIndex)
            if var last = batches.last, last.base == base, entry.offset >= last.first, entry.offset <= last.end + mergeGap,
               max(frameEnd, last.end) - last.first <= maxRequest {
                last.end = max(last.end, frameEnd)
                last.spans.append((span, offset))
                batches[batches.count - 1] = last
            } else {
                batches.append(Batch(first: entry.offset, end: frameEnd, base: base, spans: [(span, offset)]))
            }
        }
        var fetched: UInt64 = 0
        let decompressor = ZstdDecompressor()
        for batch in batches {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            guard let request = ByteRange(offset: batch.first, length: batch.end - batch.first) else { continue }
            let (bytes, mirror) = try client.bytes(of: path(base: batch.base), range: request, cancellation: cancellation, smallFile: true)
            fetched += UInt64(bytes.count)
            var opened: [Int: [UInt8]] = [:]
            for (span, fileOffset) in batch.spans {
                let c = span.chunkIndex, entry = index.chunks[c]
                let chunk: [UInt8]
                if let known = opened[c] { chunk = known } else {
                    let start = Int(entry.offset - batch.first), end = start + Int(entry.compressedSize)
                    if end <= bytes.count,
                       let verified = try? ChunkVerifier.open(Array(bytes[start..<end]), entry: entry, chunkIndex: c, index: index, decompressor: decompressor, sealedCheck: .digest) {
                        chunk = verified
                    } else {
                        client.health.failed(mirror)
                        chunk = try refetch(c, file: f, fetched: &fetched, decompressor: decompressor)
                    }
                    opened[c] = chunk
                }
                // The part of this span inside the wanted bytes.
                let from = max(fileOffset, wanted.lowerBound), to = min(fileOffset + UInt64(span.length), wanted.upperBound)
                let inChunk = span.offsetInChunk + Int(from - fileOffset)
                try chunk.withUnsafeBytes { try sink(from, UnsafeRawBufferPointer(rebasing: $0[inChunk..<inChunk + Int(to - from)])) }
            }
        }
        return fetched
    }

    /// The file a frame lies in: the pack file, or one of its bases.
    private func path(base: Int?) -> String { base.flatMap { $0 < basePaths.count ? basePaths[$0] : nil } ?? packPath }

    /// Chunk `c`'s frame alone, until it verifies or `chunkAttempts` are spent.
    private func refetch(_ c: Int, file f: Int, fetched: inout UInt64, decompressor: ZstdDecompressor) throws -> [UInt8] {
        let entry = index.chunks[c]
        var lastError: (any Error)?
        for _ in 0..<chunkAttempts {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            guard let range = ByteRange(offset: entry.offset, length: UInt64(entry.compressedSize)) else { break }
            let (frame, mirror) = try client.bytes(of: path(base: index.baseHolding(c)), range: range, cancellation: cancellation, smallFile: true)
            fetched += UInt64(frame.count)
            do { return try ChunkVerifier.open(frame, entry: entry, chunkIndex: c, index: index, decompressor: decompressor, sealedCheck: .digest) } catch {
                lastError = error
                client.health.failed(mirror)
            }
        }
        throw AssetPackManagerError.verification(
            "\(index.files.path(at: f)) in \(packPath): \(lastError.map { "\($0)" } ?? "chunk \(c)") (after \(chunkAttempts) attempts; the file was not placed)")
    }
}
