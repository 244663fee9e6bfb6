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

    /// Where the chunks `wanted` (chunk numbers) lie in the seed folders. Files are read and
    /// hashed by up to `workers` threads side by side.
    func run(wanted: Set<Int>, cancellation: CancellationFlag, workers: Int = min(4, ProcessInfo.processInfo.activeProcessorCount)) -> SeedMatches {
        var report = SeedScanReport()
        report.unreadable = missingFolders
        let files = wanted.isEmpty ? [] : SeedFolderWalk(folders: folders, entryLimit: limits.entries).files(report: &report, cancellation: cancellation)
        report.files = files.count
        let state = ScanState(report: report, remaining: wanted, byteLimit: limits.byteLimit(installSize: index.installSize))
        let reader = SeedMatches(paths: paths, folders: folders, files: files, locations: [:], report: report)
        let workers = max(1, workers)

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
        // Each wanted chunk once, with the pieces of the seed files that stand in for it.
        var candidates: [(chunk: Int, pieces: [SeedPiece])] = []
        var listed = Set<Int>()
        for (s, c32) in index.sequence.enumerated() {
            let c = Int(c32)
            guard wanted.contains(c), !listed.contains(c), let pieces = pieces(atSequence: s, standIn: standIn) else { continue }
            listed.insert(c)
            candidates.append((c, pieces))
        }
        let work = candidates
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let k = state.next(below: work.count), !cancellation.isCancelled {
                let (c, pieces) = work[k]
                guard state.reserve(UInt64(index.chunks[c].uncompressedSize)) else { return }
                let bytes = reader.read(pieces)
                state.record(chunk: c, pieces: pieces, matched: bytes.map { SHA256Digest.hash($0) == index.chunks[c].digest } ?? false)
            }
        }
        if cancellation.isCancelled { return state.matches(paths: paths, folders: folders, files: files) }

        // Every other file, chunked as the packager chunks: files named as a file of the pack
        // first (an edited copy), then the others in walk order.
        var wantedDigests: [SHA256Digest: Int] = [:]
        for c in state.remainingNow { wantedDigests[index.chunks[c].digest] = c }
        let packNames = Set(index.files.map { Self.name($0.path) })
        let (matchedWhole, mismatched) = state.wholeFiles
        let order = files.indices.filter { files[$0].size > 0 && (!matchedWhole.contains($0) || mismatched.contains($0)) }
            .sorted { (packNames.contains(Self.name(files[$0].path)) ? 0 : 1, $0) < (packNames.contains(Self.name(files[$1].path)) ? 0 : 1, $1) }
        state.resetNext()
        let cdc = FastCDC(index.chunking), digests = wantedDigests
        let maximum = index.chunking.maximumSize
        DispatchQueue.concurrentPerform(iterations: min(workers, max(1, order.count))) { _ in
            var buffer = [UInt8](repeating: 0, count: max(4 << 20, 2 * maximum))
            while let i = state.next(below: order.count), state.isWanting, !cancellation.isCancelled {
                let k = order[i]
                let file = files[k]
                guard let fd = SeedFileAccess.open(file.path, in: folders[file.folder]) else { state.unreadable(); continue }
                defer { close(fd) }
                var start = 0, end = 0, atEnd = false
                var readOffset: UInt64 = 0, chunkOffset: UInt64 = 0
                let more = buffer.withUnsafeMutableBytes { b -> Bool in
                    while state.isWanting {
                        while !atEnd && end - start < maximum {
                            if end == b.count {
                                b.baseAddress!.copyMemory(from: b.baseAddress! + start, byteCount: end - start)
                                end -= start
                                start = 0
                            }
                            // Read up to the size the walk saw (a file that grew since is read that
                            // far; one that shrank ends early), counting only the bytes read.
                            guard readOffset < file.size else { atEnd = true; break }
                            let want = state.reserve(upTo: Int(min(UInt64(b.count - end), file.size - readOffset)))
                            guard want > 0 else { return false }
                            guard let got = SeedFileAccess.read(fd, into: b.baseAddress! + end, count: want, at: readOffset) else { state.unreadable(); return true }
                            state.giveBack(want - got)
                            if got == 0 { atEnd = true }
                            end += got
                            readOffset += UInt64(got)
                        }
                        if start == end || cancellation.isCancelled { return true }
                        let chunk = UnsafeRawBufferPointer(rebasing: b[start..<end])
                        let n = cdc.cut(chunk)
                        let digest = SHA256Digest.hash(UnsafeRawBufferPointer(rebasing: chunk[..<n]))
                        if let c = digests[digest], Int(index.chunks[c].uncompressedSize) == n {
                            state.found(chunk: c, at: SeedPiece(file: k, offset: chunkOffset, length: n))
                        }
                        start += n
                        chunkOffset += UInt64(n)
                    }
                    return true
                }
                if !more { break }
            }
        }
        return state.matches(paths: paths, folders: folders, files: files)
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

/// What the threads of one look share: the chunks still wanted and those found, the byte
/// budget, the next piece of work and the report.
private final class ScanState: @unchecked Sendable {
    private let lock = NSLock()
    private var report: SeedScanReport
    private var remaining: Set<Int>
    private var locations: [Int: [SeedPiece]] = [:]
    private let byteLimit: UInt64
    private var nextItem = 0
    private var matchedWhole = Set<Int>(), mismatched = Set<Int>()

    init(report: SeedScanReport, remaining: Set<Int>, byteLimit: UInt64) {
        self.report = report
        self.remaining = remaining
        self.byteLimit = byteLimit
    }

    /// The next item of work below `count`, or nil when none is left.
    func next(below count: Int) -> Int? {
        lock.withLock {
            guard nextItem < count else { return nil }
            nextItem += 1
            return nextItem - 1
        }
    }

    func resetNext() { lock.withLock { nextItem = 0 } }

    /// Counts `bytes` against the budget: false (and the limit noted) when they do not fit.
    func reserve(_ bytes: UInt64) -> Bool {
        lock.withLock {
            guard report.bytesRead + bytes <= byteLimit else { report.byteLimitReached = true; return false }
            report.bytesRead += bytes
            return true
        }
    }

    /// Up to `bytes` of the budget (0 when it is spent, and the limit noted).
    func reserve(upTo bytes: Int) -> Int {
        lock.withLock {
            let left = byteLimit - min(byteLimit, report.bytesRead)
            let n = Int(min(UInt64(bytes), left))
            if n == 0 { report.byteLimitReached = true }
            report.bytesRead += UInt64(n)
            return n
        }
    }

    /// Returns `bytes` reserved and not read.
    func giveBack(_ bytes: Int) { lock.withLock { report.bytesRead -= UInt64(bytes) } }

    /// A whole-file candidate's outcome.
    func record(chunk c: Int, pieces: [SeedPiece], matched: Bool) {
        lock.withLock {
            if matched {
                if remaining.remove(c) != nil { locations[c] = pieces }
                for p in pieces { matchedWhole.insert(p.file) }
            } else {
                for p in pieces { mismatched.insert(p.file) }
            }
        }
    }

    /// A chunk found by chunking a file.
    func found(chunk c: Int, at piece: SeedPiece) {
        lock.withLock { if remaining.remove(c) != nil { locations[c] = [piece] } }
    }

    func unreadable() { lock.withLock { report.unreadable += 1 } }

    var isWanting: Bool { lock.withLock { !remaining.isEmpty && !report.byteLimitReached } }
    var remainingNow: Set<Int> { lock.withLock { remaining } }
    var wholeFiles: (matched: Set<Int>, mismatched: Set<Int>) { lock.withLock { (matchedWhole, mismatched) } }

    func matches(paths: [String], folders: [ConfinedDirectory], files: [SeedFile]) -> SeedMatches {
        lock.withLock {
            report.chunksFound = locations.count
            return SeedMatches(paths: paths, folders: folders, files: files, locations: locations, report: report)
        }
    }
}

