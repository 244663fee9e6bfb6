import AssetPackFormat
import CPOSIX
import AssetPackTransport
import Foundation

/// Assembles one pack version in a staging folder: fetches and checks the index, plans where
/// each chunk comes from (earlier in the pack, the installed previous version, or the network),
/// downloads the network part in parallel segments, and writes the content stream into files,
/// verifying every chunk (SHA-256) before its bytes are written. Memory stays at a few chunks.
///
/// Everything lives in `staging` and survives the process being killed: the index file, the
/// segment files (their lengths are the download progress) and the files assembled so far.
/// A new run verifies the assembled files chunk by chunk to find where to go on, and fetches
/// only the bytes that are not on disk yet.
final class PackInstaller: @unchecked Sendable {
    struct Previous {
        var index: PackIndex
        var directory: String
    }

    let pack: CatalogPack
    let staging: String
    let client: RepositoryClient
    let previous: Previous?
    let cancellation: CancellationFlag
    let progress: @Sendable (_ completed: UInt64, _ total: UInt64) -> Void
    /// Parallel Range requests for packs of at least `parallelThreshold` bytes to download.
    var parallelism = 4
    var parallelThreshold: UInt64 = 32 << 20
    /// Attempts at a chunk that keeps arriving corrupt before the install fails.
    var chunkAttempts = 3
    /// Network bytes this run fetched (the figure the kill test checks).
    private(set) var fetchedBytes: UInt64 = 0

    var filesDirectory: String { staging + "/files" }

    init(pack: CatalogPack, staging: String, client: RepositoryClient, previous: Previous?,
         cancellation: CancellationFlag, progress: @escaping @Sendable (UInt64, UInt64) -> Void) {
        self.pack = pack
        self.staging = staging
        self.client = client
        self.previous = previous
        self.cancellation = cancellation
        self.progress = progress
    }

    /// Runs (or resumes) the assembly; on success every file is complete, verified and flushed
    /// to disk in `filesDirectory`, and the index is returned.
    func run() throws -> PackIndex {
        try makeDirectory(staging)
        try makeDirectory(filesDirectory)
        let index = try loadIndex()
        let plan = InstallPlan(index: index, previous: previous?.index)
        let board = DownloadBoard(ranges: plan.ranges, parallelism: plan.downloadBytes >= parallelThreshold ? parallelism : 1,
                                  directory: staging)
        let start = resumePoint(index)
        let workers = DispatchGroup()
        let stop = CancellationFlag()
        // Files already complete (a run killed after assembling) need no download.
        for k in board.segments.indices where start < index.sequence.count {
            let downloader = SegmentDownloader(board: board, segment: k, packPath: pack.path, client: client, cancellation: stop)
            workers.enter()
            let t = Thread { downloader.run(); workers.leave() }
            t.stackSize = 1 << 20
            t.start()
        }
        let total = plan.downloadBytes
        let relay = Thread { [cancellation, progress] in
            // Until the workers are done: forward the caller's cancellation to them, and report
            // progress as bytes arrive (ten times a second).
            var ticks = 0
            while workers.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
                if cancellation.isCancelled { stop.cancel() }
                ticks += 1
                if ticks % 2 == 0 { progress(board.downloadedBytes, total) }
            }
        }
        relay.start()
        defer {
            // On success the workers are done; on failure stop them and wait, so nothing writes
            // into the staging folder after this returns.
            stop.cancel()
            workers.wait()
            fetchedBytes += board.fetchedThisRun
        }
        try assemble(index: index, plan: plan, board: board, from: start)
        // Every chunk is verified in its file: the downloaded frames are not needed any more,
        // and removing them first spares the flush writing their pages to disk.
        for segment in board.segments { unlink(segment.file) }
        try syncFileSystem()
        return index
    }

    // MARK: Index

    private func loadIndex() throws -> PackIndex {
        let path = staging + "/index"
        if let bytes = FileManager.default.contents(atPath: path).map([UInt8].init), SHA256Digest.hash(bytes) == pack.digest {
            return try decodeIndex(bytes)
        }
        guard let range = ByteRange(offset: pack.index.offset, length: pack.index.length) else {
            throw AssetPackManagerError.verification("\(pack.path): the catalog gives the index an empty range")
        }
        // Bytes damaged on the way are fetched again, as chunks are.
        var bytes: [UInt8] = []
        for attempt in 1...chunkAttempts {
            bytes = try client.bytes(of: pack.path, range: range, cancellation: cancellation)
            fetchedBytes += UInt64(bytes.count)
            let digest = SHA256Digest.hash(bytes)
            if digest == pack.digest, digest == pack.index.sha256 { break }
            guard attempt < chunkAttempts else {
                throw AssetPackManagerError.verification("\(pack.path): the index hashes to \(digest.hex), the catalog pins \(pack.digest.hex) (after \(chunkAttempts) attempts)")
            }
        }
        let index = try decodeIndex(bytes)
        do {
            let file = try AtomicFile(destination: path)
            try file.write(bytes)
            try file.commit()
        } catch { throw AssetPackManagerError.storage("cannot save the index in \(staging): \(error)") }
        return index
    }

    private func decodeIndex(_ bytes: [UInt8]) throws -> PackIndex {
        do { return try PackIndex.decode(bytes, indexOffset: pack.index.offset) } catch {
            throw AssetPackManagerError.verification("\(pack.path): \(error)")
        }
    }

    // MARK: Assembly

    /// The first sequence position whose bytes are not yet correct on disk.
    private func resumePoint(_ index: PackIndex) -> Int {
        let reader = ContentStreamReader(index: index, directory: filesDirectory)
        var s = 0
        while s < index.sequence.count, reader.verifiedChunk(atSequence: s) != nil { s += 1 }
        return s
    }

    private func assemble(index: PackIndex, plan: InstallPlan, board: DownloadBoard, from start: Int) throws {
        var writer = try StreamFileWriter(root: filesDirectory, files: index.files,
                                          resumeAt: start < index.sequence.count ? index.sequenceOffsets[start] : index.installSize)
        defer { writer.abandon() }
        let staged = ContentStreamReader(index: index, directory: filesDirectory)
        let old = previous.map { ContentStreamReader(index: $0.index, directory: $0.directory) }
        let decompressor = ZstdDecompressor()
        let segmentFiles = try board.segments.map { s -> Int32 in
            let fd = open(s.file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw AssetPackManagerError.storage("cannot open \(s.file): \(String(cString: strerror(errno)))") }
            return fd
        }
        defer { segmentFiles.forEach { close($0) } }
        let prefetcher = ChunkPrefetcher(index: index, plan: plan, board: board, segmentFiles: segmentFiles, previous: old, start: start)
        prefetcher.run()
        defer { prefetcher.stop() }
        var position = start
        while position < index.sequence.count {
            let window = try prefetcher.next()
            for (i, s) in window.sequences.enumerated() {
                if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
                let c = Int(index.sequence[s])
                let entry = index.chunks[c]
                var bytes = window.chunks[i]
                if bytes == nil {
                    switch plan.sources[s] {
                    case .earlier(let first):
                        bytes = staged.verifiedChunk(atSequence: first)
                    case .previous:
                        break
                    case .remote(let offset):
                        // The frame did not verify: fetch it alone and mend the segment file.
                        let (k, at) = try board.wait(for: offset, length: UInt64(entry.compressedSize))
                        bytes = try refetch(c, index: index, decompressor: decompressor, repair: (segmentFiles[k], at))
                    }
                }
                // Local bytes that no longer verify (a damaged earlier copy) come from the network.
                let verified = try bytes ?? refetch(c, index: index, decompressor: decompressor, repair: nil)
                do { try verified.withUnsafeBytes { try writer.consume($0) } } catch {
                    throw AssetPackManagerError.storage("cannot write \(pack.id) into \(filesDirectory): \(error)")
                }
            }
            position = window.sequences.upperBound
        }
        try writer.finish()
        progress(plan.downloadBytes, plan.downloadBytes)
    }

    /// Fetches chunk `c`'s frame on its own, up to `chunkAttempts` times, until it verifies;
    /// writes the good frame over the bad copy in its segment file so a resumed run sees it.
    private func refetch(_ c: Int, index: PackIndex, decompressor: ZstdDecompressor, repair: (Int32, UInt64)?) throws -> [UInt8] {
        let entry = index.chunks[c]
        var lastError: (any Error)?
        for _ in 0..<chunkAttempts {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            guard let range = ByteRange(offset: entry.offset, length: UInt64(entry.compressedSize)) else { break }
            let frame = try client.bytes(of: pack.path, range: range, cancellation: cancellation)
            fetchedBytes += UInt64(frame.count)
            do {
                let bytes = try ChunkVerifier.open(frame, entry: entry, chunkIndex: c, index: index, decompressor: decompressor)
                if let (fd, at) = repair { _ = frame.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(at)) } }
                return bytes
            } catch { lastError = error }
        }
        throw AssetPackManagerError.verification("\(pack.path): \(lastError.map { "\($0)" } ?? "chunk \(c)") (after \(chunkAttempts) attempts)")
    }

    private func syncFileSystem() throws {
        let fd = open(filesDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw AssetPackManagerError.storage("cannot open \(filesDirectory)") }
        defer { close(fd) }
        guard cposix_syncfs(fd) == 0 else { throw AssetPackManagerError.storage("cannot flush \(filesDirectory) to disk: \(String(cString: strerror(errno)))") }
    }
}

/// Creates `path` (and its parents) unless it exists.
func makeDirectory(_ path: String) throws {
    do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
        throw AssetPackManagerError.storage("cannot create \(path): \(error.localizedDescription)")
    }
}
