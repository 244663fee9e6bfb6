import AssetPackFormat
import AssetPackTransport
import Foundation

/// What a look through the seed folders saw and where it stopped.
struct SeedScanReport: Equatable, Sendable {
    /// Regular files found.
    var files = 0
    /// Entries skipped: symbolic links (never followed), FIFOs, sockets and devices, and
    /// entries or folders that could not be read.
    var links = 0
    var special = 0
    var unreadable = 0
    /// Bytes read from seed files to match chunks.
    var bytesRead: UInt64 = 0
    /// Chunks found.
    var chunksFound = 0
    /// The look stopped at `SeedScanLimits.entries` or at its byte limit.
    var entryLimitReached = false
    var byteLimitReached = false
}

/// Finds chunks a pack needs in seed folders, within `SeedScanLimits`. Whole files first: a
/// file of the pack whose path (or, failing that, name) and size a seed file shares is taken as
/// that file, and each wanted chunk lying in such files is read at its place and hashed — no
/// chunking needed, and chunks that span several small files are found too. Then every other
/// seed file (those named as a file of the pack first) is cut with the pack's own chunking parameters (FastCDC, as the packager cut it:
/// a large file's chunks do not depend on its neighbours) and each chunk hashed. A chunk counts
/// as found only when its SHA-256 is the index's; the bytes are read and checked again when the
/// chunk is placed (`SeedMatches.verifiedChunk`).
struct SeedScan {
    let paths: [String]
    let folders: [ConfinedDirectory]
    let index: PackIndex
    let limits: AssetPackManager.SeedScanLimits

    /// Opens the seed folders at `paths` (a folder that cannot be opened is left out and counted
    /// as unreadable).
    init(paths: [String], index: PackIndex, limits: AssetPackManager.SeedScanLimits) {
        var opened: [(String, ConfinedDirectory)] = []
        for path in paths { if let folder = try? ConfinedDirectory(root: path) { opened.append((path, folder)) } }
        self.paths = opened.map(\.0)
        folders = opened.map(\.1)
        self.index = index
        self.limits = limits
        missingFolders = paths.count - opened.count
    }

    private let missingFolders: Int

    /// Where the chunks `wanted` (chunk numbers) lie in the seed folders.
    func run(wanted: Set<Int>, cancellation: CancellationFlag) -> SeedMatches {
        var report = SeedScanReport()
        report.unreadable = missingFolders
        let files = wanted.isEmpty ? [] : SeedFolderWalk(folders: folders, entryLimit: limits.entries).files(report: &report, cancellation: cancellation)
        report.files = files.count
        var locations: [Int: [SeedPiece]] = [:]
        var matches: SeedMatches { SeedMatches(paths: paths, folders: folders, files: files, locations: locations, report: report) }
        let byteLimit = limits.byteLimit(installSize: index.installSize)
        var remaining = wanted
        let reader = SeedMatches(paths: paths, folders: folders, files: files, locations: [:], report: report)

        // Whole files: the pack's files that a seed file stands for, by path and size, or by name and size.
        var byPath: [String: Int] = [:], byName: [String: Int] = [:]
        for (k, file) in files.enumerated() {
            if byPath[file.path] == nil { byPath[file.path] = k }
            let key = "\(file.size)/\(Self.name(file.path))"
            if byName[key] == nil { byName[key] = k }
        }
        var standIn = [Int?](repeating: nil, count: index.files.count)
        for (f, file) in index.files.enumerated() where file.size > 0 {
            if let k = byPath[file.path], files[k].size == file.size { standIn[f] = k } else { standIn[f] = byName["\(file.size)/\(Self.name(file.path))"] }
        }
        // Seed files that stood in for a pack file and had a chunk that did not match: chunked below.
        var mismatched = Set<Int>()
        var matchedWhole = Set<Int>()
        for (s, c32) in index.sequence.enumerated() {
            let c = Int(c32)
            guard remaining.contains(c), let pieces = pieces(atSequence: s, standIn: standIn) else { continue }
            if cancellation.isCancelled { return matches }
            let length = UInt64(index.chunks[c].uncompressedSize)
            guard report.bytesRead + length <= byteLimit else { report.byteLimitReached = true; break }
            report.bytesRead += length
            if let bytes = reader.read(pieces), SHA256Digest.hash(bytes) == index.chunks[c].digest {
                locations[c] = pieces
                remaining.remove(c)
                for p in pieces { matchedWhole.insert(p.file) }
            } else {
                for p in pieces { mismatched.insert(p.file) }
            }
        }

        // Every other file, chunked as the packager chunks.
        var wantedDigests: [SHA256Digest: Int] = [:]
        for c in remaining { wantedDigests[index.chunks[c].digest] = c }
        let cdc = FastCDC(index.chunking)
        let maximum = index.chunking.maximumSize
        var buffer = [UInt8](repeating: 0, count: max(4 << 20, 2 * maximum))
        // Files named as a file of the pack first (an edited copy), then the others in walk order.
        let packNames = Set(index.files.map { Self.name($0.path) })
        let order = files.indices.filter { files[$0].size > 0 && (!matchedWhole.contains($0) || mismatched.contains($0)) }
            .sorted { (packNames.contains(Self.name(files[$0].path)) ? 0 : 1, $0) < (packNames.contains(Self.name(files[$1].path)) ? 0 : 1, $1) }
        for k in order {
            let file = files[k]
            if remaining.isEmpty || report.byteLimitReached || cancellation.isCancelled { break }
            guard let fd = SeedFileAccess.open(file.path, in: folders[file.folder]) else { report.unreadable += 1; continue }
            defer { close(fd) }
            var start = 0, end = 0, atEnd = false
            var readOffset: UInt64 = 0, chunkOffset: UInt64 = 0
            buffer.withUnsafeMutableBytes { b in
                while !remaining.isEmpty {
                    while !atEnd && end - start < maximum {
                        if end == b.count {
                            b.baseAddress!.copyMemory(from: b.baseAddress! + start, byteCount: end - start)
                            end -= start
                            start = 0
                        }
                        guard report.bytesRead < byteLimit else { report.byteLimitReached = true; return }
                        let want = min(b.count - end, Int(min(UInt64(Int.max), byteLimit - report.bytesRead)))
                        guard let got = SeedFileAccess.read(fd, into: b.baseAddress! + end, count: want, at: readOffset) else { report.unreadable += 1; return }
                        if got == 0 { atEnd = true }
                        end += got
                        readOffset += UInt64(got)
                        report.bytesRead += UInt64(got)
                    }
                    if start == end || cancellation.isCancelled { return }
                    let chunk = UnsafeRawBufferPointer(rebasing: b[start..<end])
                    let n = cdc.cut(chunk)
                    let digest = SHA256Digest.hash(UnsafeRawBufferPointer(rebasing: chunk[..<n]))
                    if let c = wantedDigests[digest], remaining.contains(c), Int(index.chunks[c].uncompressedSize) == n {
                        locations[c] = [SeedPiece(file: k, offset: chunkOffset, length: n)]
                        remaining.remove(c)
                    }
                    start += n
                    chunkOffset += UInt64(n)
                }
            }
        }
        report.chunksFound = locations.count
        return matches
    }

    /// The pieces of the seed files that stand in for the chunk at sequence position `s`, when
    /// every pack file it lies in has one.
    private func pieces(atSequence s: Int, standIn: [Int?]) -> [SeedPiece]? {
        var offset = index.sequenceOffsets[s]
        var left = Int(index.chunks[Int(index.sequence[s])].uncompressedSize)
        guard var f = index.file(containing: offset) else { return nil }
        var pieces: [SeedPiece] = []
        while left > 0 && f < index.files.count {
            let file = index.files[f]
            let inFile = offset - index.fileOffsets[f]
            let n = Int(min(UInt64(left), file.size - inFile))
            if n > 0 {
                guard let k = standIn[f] else { return nil }
                pieces.append(SeedPiece(file: k, offset: inFile, length: n))
                left -= n
                offset += UInt64(n)
            }
            f += 1
        }
        return left == 0 ? pieces : nil
    }

    private static func name(_ path: String) -> Substring {
        path.split(separator: "/").last ?? Substring(path)
    }
}
