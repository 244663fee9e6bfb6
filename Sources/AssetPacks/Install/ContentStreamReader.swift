import AssetPackFormat
import Foundation

/// Reads byte ranges of a pack's content stream from the files of an installed (or partly
/// assembled) copy: a chunk of the stream may span several small files. Files are opened
/// through the confined folder (no link followed); without a folder, nothing is there.
struct ContentStreamReader {
    let index: PackIndex
    let directory: ConfinedDirectory?

    /// The bytes at stream offsets [offset, offset + length), or nil when a file is missing or short.
    func read(offset: UInt64, length: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: length)
        var done = 0
        guard var f = index.file(containing: offset) else { return length == 0 ? out : nil }
        while done < length && f < index.files.count {
            let file = index.files[f]
            let start = offset + UInt64(done)
            let inFile = start - index.fileOffsets[f]
            let n = Int(min(UInt64(length - done), file.size - inFile))
            if n > 0 {
                guard let fd = try? directory?.open(file.path, flags: O_RDONLY) else { return nil }
                defer { close(fd) }
                var got = 0
                while got < n {
                    let r = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done + got, n - got, off_t(inFile) + off_t(got)) }
                    if r < 0 && errno == EINTR { continue }
                    guard r > 0 else { return nil }
                    got += r
                }
                done += n
            }
            f += 1
        }
        return done == length ? out : nil
    }

    /// The bytes of the chunk at sequence position `s` of this copy's own index, as they stand
    /// in its files, if they still hash right. (`s` indexes this copy's sequence: for the
    /// previous version, its chunk numbers differ from the new version's.)
    func verifiedChunk(atSequence s: Int) -> [UInt8]? {
        let entry = index.chunks[Int(index.sequence[s])]
        guard let bytes = read(offset: index.sequenceOffsets[s], length: Int(entry.uncompressedSize)),
              SHA256Digest.hash(bytes) == entry.digest else { return nil }
        return bytes
    }
}
