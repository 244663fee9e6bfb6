import AssetPackFormat
import Foundation

/// A stretch of a seed file: part (or all) of a chunk's bytes.
struct SeedPiece: Equatable {
    /// The file's number in `SeedMatches.files`.
    var file: Int
    var offset: UInt64
    var length: Int
}

/// Where a look through the seed folders found chunks of a pack, and the reads that take them:
/// a chunk is read again when it is placed, and handed out only when the bytes read — the very
/// bytes that will be written — hash to the chunk's digest. A file that changed since the look
/// (or while being read) gives a chunk that does not verify, and the chunk comes from the
/// network instead.
final class SeedMatches: @unchecked Sendable {
    /// The seed folders as configured (for the sources' figures) and open.
    let paths: [String]
    let folders: [ConfinedDirectory]
    let files: [SeedFile]
    /// The pieces of each chunk found (by chunk number), in stream order.
    let locations: [Int: [SeedPiece]]
    let report: SeedScanReport

    init(paths: [String], folders: [ConfinedDirectory], files: [SeedFile], locations: [Int: [SeedPiece]], report: SeedScanReport) {
        self.paths = paths
        self.folders = folders
        self.files = files
        self.locations = locations
        self.report = report
    }

    /// The bytes of `pieces` as they are on disk now, or nil when a file cannot be opened or is short.
    func read(_ pieces: [SeedPiece]) -> [UInt8]? {
        let total = pieces.reduce(0) { $0 + $1.length }
        var out = [UInt8](repeating: 0, count: total)
        var done = 0
        for piece in pieces {
            let file = files[piece.file]
            guard let fd = SeedFileAccess.open(file.path, in: folders[file.folder]) else { return nil }
            defer { close(fd) }
            let got = out.withUnsafeMutableBytes { SeedFileAccess.read(fd, into: $0.baseAddress! + done, count: piece.length, at: piece.offset) }
            guard got == piece.length else { return nil }
            done += piece.length
        }
        return out
    }

    /// Chunk `c`'s bytes from the seed files, if they hash to `entry`'s digest now, and the
    /// folder they came from (the first piece's).
    func verifiedChunk(_ c: Int, entry: ChunkEntry) -> (bytes: [UInt8], folder: String)? {
        guard let pieces = locations[c], let first = pieces.first, let bytes = read(pieces),
              bytes.count == Int(entry.uncompressedSize), SHA256Digest.hash(bytes) == entry.digest else { return nil }
        return (bytes, paths[files[first.file].folder])
    }
}
