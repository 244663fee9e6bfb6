import AssetPackFormat
import Foundation

/// The AA01 bytes an archive carries, handed out piece by piece in order: for a container, one
/// decoded chunk per piece, decoded `window` chunks at a time on all cores; for a bare stream,
/// the file read 1 MiB at a time. Memory stays at `window` chunks (compressed and decoded)
/// whatever the archive's size.
final class DecodedStream {
    let container: AppleArchiveContainer
    private let source: any ArchiveByteSource
    private let threads: Int
    private let window: Int
    /// The file offset of the next chunk header (or, bare, of the next piece).
    private var next: UInt64
    private var nextChunkNumber = 0
    /// Decoded pieces not yet handed out, in order, and the error that follows them.
    private var ready: [Result<[UInt8], AppleArchiveError>] = []
    private var readyAt = 0

    /// Bytes of a bare stream handed out at once.
    static let barePieceSize = 1 << 20
    /// The decoded bytes kept in flight at most (the window shrinks for large blocks).
    static let windowBytes = 64 << 20

    init(source: any ArchiveByteSource, threads: Int = SettingBounds.cores) throws(AppleArchiveError) {
        self.source = source
        self.container = try AppleArchiveContainer.identify(source)
        self.threads = max(1, threads)
        let block = container.blockSize ?? Self.barePieceSize
        self.window = max(1, min(2 * self.threads, Self.windowBytes / block))
        self.next = container.firstChunkOffset
    }

    /// The next piece of the AA01 stream, or nil at its end.
    func nextPiece() throws(AppleArchiveError) -> [UInt8]? {
        if readyAt == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyAt = 0
            try fill()
            if ready.isEmpty { return nil }
        }
        defer { readyAt += 1 }
        return try ready[readyAt].get()
    }

    private func fill() throws(AppleArchiveError) {
        guard next < source.size else { return }
        guard let blockSize = container.blockSize else {
            let n = Int(min(UInt64(Self.barePieceSize), source.size - next))
            ready.append(.success(try source.read(n, at: next)))
            next += UInt64(n)
            return
        }
        var chunks: [ContainerChunk] = []
        var headerFailure: AppleArchiveError?
        while chunks.count < window, next < source.size {
            do throws(AppleArchiveError) {
                let chunk = try ContainerChunk.read(number: nextChunkNumber, at: next, blockSize: blockSize, from: source)
                chunks.append(chunk)
                nextChunkNumber += 1
                next = chunk.offset + UInt64(AppleArchiveContainer.chunkHeaderSize) + UInt64(chunk.compressed.count)
            } catch {
                headerFailure = error
                next = source.size
                break
            }
        }
        let compression = container.compression
        if chunks.count == 1 || threads == 1 {
            for chunk in chunks { ready.append(Result { () throws(AppleArchiveError) in try ChunkDecoder.decode(chunk, compression: compression) }) }
        } else {
            let slots = DecodedSlots(count: chunks.count)
            let workers = min(threads, chunks.count)
            let batch = chunks
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var i = w
                while i < batch.count {
                    slots.set(i, Result { () throws(AppleArchiveError) in try ChunkDecoder.decode(batch[i], compression: compression) })
                    i += workers
                }
            }
            ready.append(contentsOf: slots.all)
        }
        if let headerFailure { ready.append(.failure(headerFailure)) }
    }
}

/// One result slot per chunk of a batch, written by concurrent workers.
private final class DecodedSlots: @unchecked Sendable {
    private var slots: [Result<[UInt8], AppleArchiveError>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<[UInt8], AppleArchiveError>) { lock.withLock { slots[i] = r } }
    var all: [Result<[UInt8], AppleArchiveError>] {
        lock.withLock { slots.map { $0 ?? .failure(AppleArchiveError(.io, "chunk", at: nil, "a decoding worker gave no result")) } }
    }
}
