import AssetPackFormat
import AssetPackTransport
import Foundation

/// Assembles one part of an install as its bytes arrive: network bytes are gathered frame by
/// frame, each frame decompressed and verified (SHA-256) the moment it is complete and written
/// straight into its files; chunks copied from earlier in the part or from the previous version
/// are placed between frames. Only the frame being received is held, in a `PartialFrame` file,
/// so a killed process loses only bytes in flight: the next run finds everything before that
/// frame verified on disk, and the frame's first bytes in its file.
///
/// A chunk that fails verification is marked `damaged` and the download stops; the downloader
/// fetches that frame alone and hands it to `repair`, then asks for the rest. One thread at a
/// time uses an assembler.
final class PartAssembler: @unchecked Sendable {
    let index: PackIndex
    let plan: InstallPlan
    let part: InstallPart
    private var writer: ContentRangeWriter
    private let staged: ContentStreamReader
    private let previous: ContentStreamReader?
    private let decompressor = ZstdDecompressor()
    /// The next sequence position to place.
    private(set) var position: Int
    /// The download offset of the next byte to receive.
    private(set) var downloadPosition: UInt64
    /// The sequence position whose bytes must be fetched alone before anything else.
    private(set) var damaged: Int?
    private let frame: PartialFrame?

    /// - Parameters:
    ///   - directory: the folder the files are assembled in.
    ///   - framePath: the file that keeps the frame being received.
    ///   - start: the first position not yet on disk.
    init(index: PackIndex, plan: InstallPlan, part: InstallPart, directory: String, framePath: String,
         previous: ContentStreamReader?, start: Int) throws {
        self.index = index
        self.plan = plan
        self.part = part
        self.previous = previous
        writer = ContentRangeWriter(root: directory, index: index, range: part.content, includesEnd: part.isLast)
        staged = ContentStreamReader(index: index, directory: directory)
        position = start
        var largest = 0
        for s in part.sequences { if case .remote = plan.sources[s] { largest = max(largest, Int(index.chunks[Int(index.sequence[s])].compressedSize)) } }
        frame = largest > 0 ? try PartialFrame(path: framePath, capacity: largest) : nil
        downloadPosition = part.download.upperBound
        if let next = Self.frameOffset(from: start, plan: plan, part: part) {
            downloadPosition = next + UInt64(frame?.adopt(frameAt: next) ?? 0)
        }
    }

    var isComplete: Bool { position == part.sequences.upperBound }

    /// Where the next frame to receive starts in the download, if one is left.
    private var nextFrameOffset: UInt64? { Self.frameOffset(from: position, plan: plan, part: part) }

    private static func frameOffset(from position: Int, plan: InstallPlan, part: InstallPart) -> UInt64? {
        for s in position..<part.sequences.upperBound { if case .remote(let d) = plan.sources[s] { return d } }
        return nil
    }

    /// The next Range request this part needs, as a stretch of the download: from the first byte
    /// not received (the current frame's start, or where a partly received frame stopped) to the
    /// end of the plan range holding it, within the part. The bytes that arrive next are taken
    /// to start there.
    func beginRequest() -> InstallPlan.Range? {
        guard damaged == nil, let frameStart = nextFrameOffset else { return nil }
        let from = (frame?.count ?? 0) == 0 ? frameStart : downloadPosition
        downloadPosition = from
        var lo = 0, hi = plan.ranges.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if plan.ranges[mid].downloadOffset <= from { lo = mid } else { hi = mid - 1 }
        }
        let r = plan.ranges[lo]
        let end = min(r.downloadOffset + r.length, part.download.upperBound)
        return InstallPlan.Range(packOffset: r.packOffset + (from - r.downloadOffset), length: end - from, downloadOffset: from)
    }

    /// Places the chunks that need no network bytes, up to the next frame (or the part's end).
    func placeLocal() throws {
        while position < part.sequences.upperBound, damaged == nil {
            switch plan.sources[position] {
            case .remote: return
            case .earlier(let first):
                if first >= part.sequences.lowerBound {
                    guard let bytes = staged.verifiedChunk(atSequence: first) else { damaged = position; return }
                    try place(bytes)
                } else {
                    position += 1   // filled once every part is done
                }
            case .previous(let p):
                guard let bytes = previous?.verifiedChunk(atSequence: p) else { damaged = position; return }
                try place(bytes)
            }
        }
    }

    /// Takes the next bytes of the download (starting at `downloadPosition`). Returns whether
    /// more are wanted: false once the part is complete or a frame did not verify.
    func receive(_ buffer: UnsafeRawBufferPointer) throws -> Bool {
        var b = buffer[...]
        while !b.isEmpty, damaged == nil, case .remote(let d)? = isComplete ? nil : plan.sources[position] {
            if downloadPosition < d {
                // Bytes between two frames that one request fetched together.
                let n = Int(min(UInt64(b.count), d - downloadPosition))
                b = b.dropFirst(n)
                downloadPosition += UInt64(n)
                continue
            }
            guard let frame else { break }
            let c = Int(index.sequence[position])
            let size = Int(index.chunks[c].compressedSize)
            if frame.count == 0 { frame.begin(at: d) }
            let n = min(size - frame.count, b.count)
            frame.append(UnsafeRawBufferPointer(rebasing: b.prefix(n)))
            b = b.dropFirst(n)
            downloadPosition += UInt64(n)
            guard frame.count == size else { break }
            try placeFrame()
        }
        return !isComplete && damaged == nil
    }

    /// Places what needs no network bytes: local chunks, and a frame that a killed run had
    /// received whole but not written.
    func resume() throws {
        try placeLocal()
        if let frame, damaged == nil, !isComplete, case .remote = plan.sources[position],
           frame.count == Int(index.chunks[Int(index.sequence[position])].compressedSize) {
            try placeFrame()
        }
    }

    /// Verifies and writes the frame of the current position, complete in `frame`, then goes on
    /// with the local chunks after it. The frame file lets go of the frame only once its chunk
    /// is written, so a process killed while writing keeps it.
    private func placeFrame() throws {
        guard let frame, case .remote(let d) = plan.sources[position] else { return }
        let c = Int(index.sequence[position])
        let next = d + UInt64(index.chunks[c].compressedSize)
        guard let bytes = try? ChunkVerifier.open(frame.bytes, entry: index.chunks[c], chunkIndex: c, index: index, decompressor: decompressor) else {
            frame.begin(at: next)
            damaged = position
            return
        }
        try place(bytes)
        frame.begin(at: next)
        try placeLocal()
    }

    /// Places the verified bytes of the damaged chunk, fetched alone, and goes on after it.
    func repair(with bytes: [UInt8]) throws {
        guard let s = damaged else { return }
        damaged = nil
        if case .remote(let d) = plan.sources[s] {
            frame?.begin(at: d + UInt64(index.chunks[Int(index.sequence[s])].compressedSize))
            downloadPosition = d + UInt64(index.chunks[Int(index.sequence[s])].compressedSize)
        }
        try place(bytes)
        try placeLocal()
    }

    /// Creates the part's empty files, closes, and drops the frame file; call once `isComplete`.
    func finish() throws {
        try writer.finish()
        frame?.remove()
    }

    func abandon() { writer.abandon() }

    private func place(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writer.write($0, at: index.sequenceOffsets[position]) }
        position += 1
    }
}
