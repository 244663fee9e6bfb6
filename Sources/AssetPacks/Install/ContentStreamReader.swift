import AssetPackFormat
import Foundation

/// Reads byte ranges of a pack's content stream from the files of an installed (or partly
/// assembled) copy: a chunk of the stream may span several small files. Files are opened
/// through the confined folder (no link followed); without a folder, nothing is there.
struct ContentStreamReader {
    let index: PackIndex
    let directory: ConfinedDirectory?
    /// For an installed copy: the change time (ns since the epoch) its folder got when the install
    /// was committed (`InstalledPack.committedChangeTime`). A chunk whose bytes all come from
    /// files changed before it was verified when they were written and is not hashed again;
    /// nil (or 0): every chunk is hashed.
    var verifiedBefore: Int64? = nil
    /// Whether a large file leaves the page cache behind each read (`DropBehind.dropRead`): for a
    /// pass that reads a copy through once, in order (an update's previous version, the check of
    /// an install after a restart), not for one that serves the same chunks again and again.
    var dropsBehind = false
    /// The file the last read ended in, held open for the next one (nil: each read opens and
    /// closes its files). A reader that goes through a large file chunk by chunk keeps one open
    /// file, so the kernel sees one sequential stream and reads ahead of it, where a file opened
    /// anew for each chunk starts its read-ahead afresh and reads each chunk as it is asked for.
    /// Not shared between threads: give each its own (`holdingFiles()`).
    var held: HeldFile?

    /// One open file of a `ContentStreamReader`, kept between its reads. Used by one thread at a
    /// time (a reader given it by `holdingFiles()` stays with one part), hence `@unchecked`.
    final class HeldFile: @unchecked Sendable {
        fileprivate var file = -1
        fileprivate var fd: Int32 = -1
        init() {}
        deinit { if fd >= 0 { close(fd) } }

        /// Holds `fd` (open for file `f`), closing the one held before.
        fileprivate func hold(_ fd: Int32, file f: Int) {
            if self.fd >= 0 { close(self.fd) }
            self.fd = fd
            file = f
        }
    }

    /// This reader with an open file of its own kept between reads (`held`).
    func holdingFiles() -> ContentStreamReader {
        var reader = self
        reader.held = HeldFile()
        return reader
    }

    /// The bytes at stream offsets [offset, offset + length), or nil when a file is missing or short.
    func read(offset: UInt64, length: Int) -> [UInt8]? {
        var complete = false
        let out = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            complete = read(offset: offset, into: UnsafeMutableRawBufferPointer(buffer))
            // Bytes a failed read left unset are never looked at: the array is dropped.
            count = length
        }
        return complete ? out : nil
    }

    /// Fills `buffer` with the bytes at stream offsets [offset, offset + buffer.count); false
    /// when a file is missing or short (the buffer's contents are then undefined).
    func read(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var unchanged = false
        return read(offset: offset, into: buffer, unchanged: &unchanged)
    }

    /// `read(offset:into:)`, also telling whether every file read was changed before
    /// `verifiedBefore` (false without one).
    private func read(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer, unchanged: inout Bool) -> Bool {
        let length = buffer.count
        var done = 0
        unchanged = (verifiedBefore ?? 0) > 0
        guard var f = index.file(containing: offset) else { return length == 0 }
        while done < length && f < index.files.count {
            let size = index.files.size(at: f)
            let start = offset + UInt64(done)
            let inFile = start - index.fileOffsets[f]
            let n = Int(min(UInt64(length - done), size - inFile))
            if n > 0 {
                guard let fd = open(file: f) else { return false }
                defer { if held == nil { close(fd) } }
                if unchanged {
                    var st = stat()
                    unchanged = fstat(fd, &st) == 0 && isUnchanged(st)
                }
                var got = 0
                while got < n {
                    let r = pread(fd, buffer.baseAddress! + done + got, n - got, off_t(inFile) + off_t(got))
                    if r < 0 && errno == EINTR { continue }
                    guard r > 0 else { return false }
                    got += r
                }
                if dropsBehind { DropBehind.dropRead(fd: fd, offset: Int64(inFile), length: Int64(n), fileSize: size) }
                done += n
            }
            f += 1
        }
        return done == length
    }

    /// Fills `buffer` (exactly the chunk's size) with the chunk at sequence position `s` as it
    /// stands in this copy's files; true only if those bytes hash to the chunk's digest, or
    /// every file they come from is unchanged since its verified install (`verifiedBefore`).
    func readVerifiedChunk(atSequence s: Int, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        let entry = index.chunks[Int(index.sequence[s])]
        var unchanged = false
        guard buffer.count == Int(entry.uncompressedSize), read(offset: index.sequenceOffsets[s], into: buffer, unchanged: &unchanged) else { return false }
        return unchanged || SHA256Digest.hash(UnsafeRawBufferPointer(buffer)) == entry.digest
    }

    /// The chunk at sequence position `s` as an open descriptor (the caller closes it) and the
    /// range of that file it fills, when the chunk lies within one file and that file is
    /// unchanged since the verified install (`verifiedBefore`) and long enough: for sending it
    /// from the file without reading it (`sendfile`). Nil otherwise (read and hash it instead).
    func unchangedChunkFile(atSequence s: Int) -> (fd: Int32, offset: UInt64, length: Int)? {
        guard let (f, inFile, length) = chunkInOneFile(atSequence: s),
              let fd = try? directory?.open(index.files.path(at: f), flags: O_RDONLY | O_NONBLOCK) else { return nil }
        guard holdsUnchanged(fd, from: inFile, length: length) else {
            close(fd)
            return nil
        }
        return (fd, inFile, Int(length))
    }

    /// Calls `body` with an open descriptor of the file that holds the chunk at sequence position
    /// `s` and the range of it the chunk fills, on the same conditions as `unchangedChunkFile`:
    /// for copying the chunk without reading it (`copy_file_range`). The descriptor is the held
    /// file's (left open for the next chunk, which keeps the kernel's read-ahead going) when the
    /// reader holds files, else opened for the call. Nil, without calling `body`, otherwise.
    func withUnchangedChunkFile<R>(atSequence s: Int, _ body: (_ fd: Int32, _ offset: UInt64, _ length: Int) throws -> R) rethrows -> R? {
        guard let (f, inFile, length) = chunkInOneFile(atSequence: s), let fd = open(file: f) else { return nil }
        defer { if held == nil { close(fd) } }
        guard holdsUnchanged(fd, from: inFile, length: length) else { return nil }
        let result = try body(fd, inFile, Int(length))
        if dropsBehind { DropBehind.dropRead(fd: fd, offset: Int64(inFile), length: Int64(length), fileSize: index.files.size(at: f)) }
        return result
    }

    /// File `f`, open for reading: the held file when it is that one, else opened (and held, when
    /// the reader holds files; otherwise the caller closes it); nil when it cannot be opened.
    private func open(file f: Int) -> Int32? {
        if let held, held.file == f, held.fd >= 0 { return held.fd }
        // O_NONBLOCK: a FIFO planted in a file's place neither hangs the open nor reads (ESPIPE).
        guard let opened = try? directory?.open(index.files.path(at: f), flags: O_RDONLY | O_NONBLOCK) else { return nil }
        held?.hold(opened, file: f)
        return opened
    }

    /// The file that holds the chunk at sequence position `s` whole, where in it the chunk begins
    /// and its length; nil for an empty chunk, one that spans files, or without `verifiedBefore`
    /// (a chunk read from a file is then hashed).
    private func chunkInOneFile(atSequence s: Int) -> (file: Int, offset: UInt64, length: UInt64)? {
        guard (verifiedBefore ?? 0) > 0 else { return nil }
        let start = index.sequenceOffsets[s], length = UInt64(index.chunks[Int(index.sequence[s])].uncompressedSize)
        guard length > 0, let f = index.file(containing: start), start + length <= index.files.end(at: f) else { return nil }
        return (f, start - index.fileOffsets[f], length)
    }

    /// Whether the open file `fd` is a regular file unchanged since the verified install that
    /// reaches past [offset, offset + length).
    private func holdsUnchanged(_ fd: Int32, from offset: UInt64, length: UInt64) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && UInt64(st.st_size) >= offset + length && isUnchanged(st)
    }

    private func isUnchanged(_ st: stat) -> Bool { Self.isUnchanged(st, since: verifiedBefore) }

    /// Whether the file `st` describes changed before `verifiedBefore` (an install's
    /// `committedChangeTime`) — strictly: a write in the same clock tick as the commit has the
    /// commit's own time. False without one (nil or 0).
    static func isUnchanged(_ st: stat, since verifiedBefore: Int64?) -> Bool {
        guard let stamp = verifiedBefore, stamp > 0 else { return false }
        return ConfinedDirectory.changeTime(st) < stamp
    }

    /// The bytes of the chunk at sequence position `s` of this copy's own index, as they stand
    /// in its files, if they still hash right or every file they come from is unchanged since
    /// its verified install (`readVerifiedChunk`). (`s` indexes this copy's sequence: for the
    /// previous version, its chunk numbers differ from the new version's.)
    func verifiedChunk(atSequence s: Int) -> [UInt8]? {
        let length = Int(index.chunks[Int(index.sequence[s])].uncompressedSize)
        var verified = false
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            verified = readVerifiedChunk(atSequence: s, into: UnsafeMutableRawBufferPointer(buffer))
            // Bytes a failed read left unset are never looked at: the array is dropped.
            count = length
        }
        return verified ? bytes : nil
    }
}
