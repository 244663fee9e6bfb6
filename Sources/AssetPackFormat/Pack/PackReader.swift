import Foundation

/// Reads a pack file: finds the index with one read of the trailer at the end, checks it against
/// the digest the trailer pins, and gives verified access to chunks and files.
public final class PackReader: @unchecked Sendable {
    public let path: String
    public let index: PackIndex
    public let trailer: PackTrailer
    public let fileSize: UInt64
    private let fd: Int32
    /// The base files of a pack with bases (format versions 4 and 5), by their position in
    /// `index.bases`, once `attachBase` checked them.
    private var baseFiles: [Int: (fd: Int32, path: String)] = [:]

    /// The key ID a sealed pack names (its content key), nil for an unsealed pack.
    public let keyID: SHA256Digest?

    /// Opens the pack at `path`; a sealed pack opens only with its content key among `keys`
    /// (else `PackError.contentKeyRequired`).
    public convenience init(path: String, keys: [ContentKey] = []) throws(PackError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        try self.init(adopting: fd, path: path, keys: keys)
    }

    /// Reads the pack open at `fd` (opened by the caller, e.g. confined beneath a folder with no
    /// link followed); the reader owns the descriptor from here on, and closes it on failure too.
    /// `path` only names the file in errors.
    public init(adopting fd: Int32, path: String, keys: [ContentKey] = []) throws(PackError) {
        self.path = path
        self.fd = fd
        do {
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw PackError.notAPack("\(path) is not a regular file") }
            fileSize = UInt64(st.st_size)
            guard fileSize >= UInt64(PackLayout.headerSize + PackLayout.trailerSize) else {
                throw PackError.notAPack("\(path) has \(fileSize) bytes, fewer than a pack's header and trailer")
            }
            let header = try Self.pread(fd, path: path, offset: 0, count: PackLayout.headerSize)
            guard Array(header[0..<8]) == PackLayout.headerMagic else {
                throw PackError.notAPack("\(path) does not start with the pack magic bytes")
            }
            var h = ByteReader(header, context: "header", base: 0)
            _ = try h.bytes(8)
            let version = try h.u32()
            guard PackLayout.readableVersions.contains(version) else { throw PackError.unsupportedVersion(version) }
            let tail = try Self.pread(fd, path: path, offset: fileSize - UInt64(PackLayout.trailerSize), count: PackLayout.trailerSize)
            trailer = try PackTrailer.decode(tail, fileSize: fileSize)
            guard trailer.formatVersion == version else {
                throw PackError.malformed("trailer", at: fileSize - 16, "declares format version \(trailer.formatVersion) but the header declares \(version)")
            }
            let indexBytes = try Self.pread(fd, path: path, offset: trailer.indexOffset, count: Int(trailer.indexLength))
            let digest = SHA256Digest.hash(indexBytes)
            guard digest == trailer.indexDigest else { throw PackError.indexDigestMismatch(expected: trailer.indexDigest, actual: digest) }
            if version == SealedIndex.formatVersion {
                let sealed = try SealedIndex.decode(indexBytes, indexOffset: trailer.indexOffset)
                guard let key = keys.first(where: { $0.keyID == sealed.keyID }) else { throw PackError.contentKeyRequired(keyID: sealed.keyID) }
                keyID = sealed.keyID
                index = try sealed.open(with: key, indexOffset: trailer.indexOffset)
            } else {
                keyID = nil
                index = try PackIndex.decode(indexBytes, indexOffset: trailer.indexOffset)
            }
            guard index.formatVersion == version else {
                throw PackError.malformed("index", at: trailer.indexOffset.saturatingAdding(8), "declares format version \(index.formatVersion) but the header declares \(version)")
            }
        } catch {
            close(fd)
            throw error as! PackError
        }
    }

    deinit {
        close(fd)
        for file in baseFiles.values { close(file.fd) }
    }

    /// For a pack file with bases (format versions 4 and 5): opens the file at `basePath` and
    /// checks that it is one of the base files the index pins (its size and the SHA-256 of all
    /// its bytes); that base's frames are read from it from then on. Call it for each base
    /// before reading chunks from several threads. Does nothing for a pack without bases.
    public func attachBase(path basePath: String) throws(PackError) {
        guard !index.bases.isEmpty else { return }
        let bfd = open(basePath, O_RDONLY | O_CLOEXEC)
        guard bfd >= 0 else { throw .io("\(path): cannot open its base file \(basePath): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(bfd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, let digest = FileDigest.of(descriptor: bfd) else {
            close(bfd)
            throw .io("\(path): cannot read its base file \(basePath)")
        }
        guard let b = index.bases.firstIndex(where: { $0.sha256 == digest && $0.size == UInt64(st.st_size) }) else {
            close(bfd)
            let why = index.bases.count == 1 ? index.bases[0].mismatch(sha256: digest, size: UInt64(st.st_size), name: basePath)!
                : "the pack's index names \(index.bases.count) base files (\(Self.describe(index.bases))), but \(basePath) has \(st.st_size) bytes "
                  + "and SHA-256 \(digest.hex): it is none of them (refused)"
            throw .malformed("base record", at: trailer.indexOffset, why)
        }
        if let old = baseFiles[b] { close(old.fd) }
        baseFiles[b] = (bfd, basePath)
    }

    /// The bases (positions in `index.bases`) whose file has not been attached.
    public var missingBases: [Int] { index.bases.indices.filter { baseFiles[$0] == nil } }

    /// The base files `bases` pins, for messages: each one's size and SHA-256.
    public static func describe(_ bases: [PackBase]) -> String {
        bases.map { "\($0.size) bytes, SHA-256 \($0.sha256.hex)" }.joined(separator: "; ")
    }

    /// The pack digest: SHA-256 of the index, as pinned by the trailer.
    public var digest: SHA256Digest { trailer.indexDigest }

    /// The index's bytes as the file stores them, read again and checked against the digest
    /// (the reader keeps only the decoded index).
    public func indexBytes() throws(PackError) -> [UInt8] {
        let bytes = try Self.pread(fd, path: path, offset: trailer.indexOffset, count: Int(trailer.indexLength))
        let actual = SHA256Digest.hash(bytes)
        guard actual == trailer.indexDigest else { throw .indexDigestMismatch(expected: trailer.indexDigest, actual: actual) }
        return bytes
    }

    static func pread(_ fd: Int32, path: String, offset: UInt64, count: Int) throws(PackError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { Foundation.pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read \(path) at byte \(offset + UInt64(done)): \(String(cString: strerror(errno)))")
            }
            if n == 0 { throw .malformed("file", at: offset + UInt64(done), "unexpected end of file") }
            done += n
        }
        return out
    }

    /// The uncompressed, verified bytes of chunk `c`. Uses the given decompressor (one per thread).
    public func chunk(_ c: Int, using decompressor: ZstdDecompressor) throws(PackError) -> [UInt8] {
        let entry = index.chunks[c]
        var (file, name) = (fd, path)
        if let b = index.baseHolding(c) {
            guard let baseFile = baseFiles[b] else {
                throw .io("\(path): chunk \(c)'s frame lies in the pack's base file \(b) (SHA-256 \(index.bases[b].sha256.hex)), which was not given: "
                          + "read a device variant's pack file with the files of its group it takes frames from")
            }
            (file, name) = baseFile
        }
        let frame = try Self.pread(file, path: name, offset: entry.offset, count: Int(entry.compressedSize))
        return try ChunkVerifier.open(frame, entry: entry, chunkIndex: c, index: index, decompressor: decompressor)
    }

    /// The verified bytes of the file at `path` in the pack.
    public func contents(of packPath: String) throws(PackError) -> [UInt8] {
        guard let f = index.fileIndex(of: packPath) else { throw .io("no file \"\(packPath)\" in the pack") }
        let d = ZstdDecompressor()
        var out: [UInt8] = []
        out.reserveCapacity(Int(index.files.size(at: f)))
        for span in index.spans(ofFile: f) {
            let bytes = try chunk(span.chunkIndex, using: d)
            out.append(contentsOf: bytes[span.offsetInChunk..<span.offsetInChunk + span.length])
        }
        return out
    }

    /// Decodes the chunks `ids` on all cores, `window` at a time, and hands them to `body` in
    /// order. Memory stays at `window` chunks. Stops at the first failure, in order.
    public func forEachChunk(_ ids: [Int], threads: Int = ProcessInfo.processInfo.activeProcessorCount, window: Int = 32,
                             _ body: (Int, [UInt8]) throws -> Void) throws {
        if let problem = SettingBounds.problem("threads", threads, in: SettingBounds.threads, reason: SettingBounds.threadsReason) {
            throw PackError.io(problem)
        }
        let workers = threads
        let decompressors = (0..<workers).map { _ in ZstdDecompressor() }
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(ids.count, start + window)])
            let results = ResultSlots(count: batch.count)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var i = w
                while i < batch.count {
                    results.set(i, Result { () throws(PackError) in try self.chunk(batch[i], using: decompressors[w]) })
                    i += workers
                }
            }
            for (i, c) in batch.enumerated() { try body(c, try results.get(i).get()) }
            start += window
        }
    }
}

/// Fixed slots written by concurrent workers, one each.
private final class ResultSlots: @unchecked Sendable {
    private var slots: [Result<[UInt8], PackError>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<[UInt8], PackError>) { lock.withLock { slots[i] = r } }
    func get(_ i: Int) -> Result<[UInt8], PackError> { lock.withLock { slots[i]! } }
}

/// Turns a stored frame back into verified chunk bytes.
public enum ChunkVerifier {
    /// How a sealed chunk frame is checked. Both accept only bytes whose SHA-256 is the chunk's
    /// digest in the index; they differ in whether the frame's own GCM tag is checked too.
    public enum SealedCheck: Sendable {
        /// The GCM tag first, then the digest: every byte of the frame as the publisher sealed
        /// it (`verify`, and whatever reads a repository's packs for the publisher).
        case tagAndDigest
        /// The digest alone, the frame deciphered without computing its tag (GHASH is a third
        /// of AES-GCM's cost): for a client, to which a sealed chunk's digest, from the sealed
        /// index whose tag verified, says all its tag would and more (the chunk's place in the
        /// pack as well). A frame that fails is opened again with its tag, so that the error
        /// says "AES-256-GCM authentication failed" when it was changed or the key is wrong.
        case digest
    }

    public static func open(_ frame: [UInt8], entry: ChunkEntry, chunkIndex c: Int, index: PackIndex,
                            decompressor: ZstdDecompressor, sealedCheck: SealedCheck = .tagAndDigest) throws(PackError) -> [UInt8] {
        var result: Result<[UInt8], PackError> = .success([])
        frame.withUnsafeBytes { f in
            result = Result { () throws(PackError) in
                try open(f, entry: entry, chunkIndex: c, index: index, decompressor: decompressor, sealedCheck: sealedCheck)
            }
        }
        return try result.get()
    }

    public static func open(_ frame: UnsafeRawBufferPointer, entry: ChunkEntry, chunkIndex c: Int, index: PackIndex,
                            decompressor: ZstdDecompressor, sealedCheck: SealedCheck = .tagAndDigest) throws(PackError) -> [UInt8] {
        guard index.isSealed else { return try decompressed(frame, entry: entry, chunkIndex: c, index: index, decompressor: decompressor) }
        guard let key = index.contentKey else { throw .io("chunk \(c) is sealed and the index was opened without a content key") }
        // Opened into the decompressor's scratch buffer (no allocation, no zero-fill), and
        // decompressed from there.
        let scratch = decompressor.scratch(capacity: max(frame.count, 1))
        func corrupt(_ failure: SealedFrame.Failure) -> PackError {
            .chunkCorrupt(index: c, digest: entry.digest, offset: entry.offset, files: index.files(usingChunk: c), reason: failure.description)
        }
        func opened() throws(PackError) -> Int {
            do { return try SealedFrame.open(frame, purpose: .chunk, key: key, into: scratch) } catch { throw corrupt(error) }
        }
        switch sealedCheck {
        case .tagAndDigest:
            let length = try opened()
            return try decompressed(UnsafeRawBufferPointer(rebasing: scratch[0..<length]), entry: entry, chunkIndex: c, index: index,
                                    decompressor: decompressor)
        case .digest:
            let length: Int
            do { length = try SealedFrame.decipher(frame, purpose: .chunk, key: key, into: scratch) } catch { throw corrupt(error) }
            do throws(PackError) {
                return try decompressed(UnsafeRawBufferPointer(rebasing: scratch[0..<length]), entry: entry, chunkIndex: c, index: index,
                                        decompressor: decompressor)
            } catch {
                // Refused either way; the tag says whether the frame itself was changed.
                _ = try opened()
                throw error
            }
        }
    }

    private static func decompressed(_ frame: UnsafeRawBufferPointer, entry: ChunkEntry, chunkIndex c: Int, index: PackIndex,
                                     decompressor: ZstdDecompressor) throws(PackError) -> [UInt8] {
        let bytes: [UInt8]
        do throws(ZstdError) { bytes = try decompressor.decompress(frame, expectedSize: Int(entry.uncompressedSize)) } catch {
            throw .chunkCorrupt(index: c, digest: entry.digest, offset: entry.offset, files: index.files(usingChunk: c), reason: error.description)
        }
        let actual = SHA256Digest.hash(bytes)
        guard actual == entry.digest else {
            throw .chunkCorrupt(index: c, digest: entry.digest, offset: entry.offset, files: index.files(usingChunk: c),
                                reason: "its bytes hash to \(actual.hex.prefix(16))…")
        }
        return bytes
    }
}
