import AssetPackFormat

/// Where each chunk of a new pack version comes from, decided before a byte moves: an earlier
/// place in the same pack (dedup), the installed previous version (delta), a seed folder, a
/// patch applied to the installed previous version, or the repository's full frame — the cheapest verified source
/// first. Remote frames are grouped into byte ranges of the pack file, its base (a device
/// variant's shared frames: files of its group) or the patch file, nearby ones of one file merged so that a delta
/// does not turn into thousands of tiny requests.
struct InstallPlan: Equatable {
    enum Source: Equatable {
        /// Nothing to do: the chunk lies wholly in files that are hard links of the installed
        /// previous version's unchanged files, or is already verified in the staged files.
        case present
        /// Copy from the stream position of an earlier use in the pack being assembled.
        case earlier(sequence: Int)
        /// Copy from the previous version's files (its sequence position there).
        case previous(sequence: Int)
        /// Read from a seed folder (where a look through the seed folders found it).
        case seed
        /// Decode the frame found at this offset of the downloaded bytes.
        case remote(downloadOffset: UInt64)
        /// Apply patch `entry` of `patches` (its frame at this offset of the downloaded bytes) to
        /// its base in the previous version's files.
        case patched(downloadOffset: UInt64, entry: Int)
    }

    /// One Range request's worth of the pack file (or of the patch file), and where its bytes
    /// go in the download.
    struct Range: Equatable {
        var packOffset: UInt64
        var length: UInt64
        var downloadOffset: UInt64
        /// The bytes come from the patch file, not the pack file.
        var fromPatch = false
        /// The bytes come from this base of the pack file (a position in its index's `bases`: a
        /// device variant's frames that another file of its group holds), not the pack file.
        var base: Int? = nil
    }

    /// The patch file a plan takes frames from, and its checked table.
    struct Patches: Equatable {
        var path: String
        var table: PatchTable
    }

    var sources: [Source]
    var ranges: [Range]
    var patches: Patches?
    /// Files (numbers in the new index) that are hard links of the previous version's files:
    /// never written.
    var linkedFiles: FileSet = []
    /// Bytes to download (gaps merged into ranges included).
    var downloadBytes: UInt64 { ranges.reduce(0) { $0 + $1.length } }
    /// Bytes that come from the previous version instead of the network.
    var reusedBytes: UInt64
    /// Chunks (numbers in the index) planned to come from seed folders.
    var seeded: Set<Int> = []

    /// The size of the frame position `s` downloads (0 for a local source).
    func frameSize(_ s: Int, in index: PackIndex) -> UInt64 {
        switch sources[s] {
        case .remote: return UInt64(index.chunks[Int(index.sequence[s])].compressedSize)
        case .patched(_, let e): return UInt64(patches!.table.entries[e].frameSize)
        default: return 0
        }
    }

    /// The download offset of position `s`'s frame, if it downloads one.
    func downloadOffset(_ s: Int) -> UInt64? {
        switch sources[s] {
        case .remote(let d), .patched(let d, _): return d
        default: return nil
        }
    }

    /// - Parameters:
    ///   - previous: the installed previous version's index, if any.
    ///   - patches: a patch file from the previous version to this one, its table checked
    ///     against the catalog; its entries are used only where they fit the index (the chunk's
    ///     digest and size) and the previous version (the base lies in its stream).
    ///   - linkedFiles: files of the new version already in place as hard links of the previous
    ///     version's (verified); chunks wholly inside them need no source.
    ///   - seeded: chunks found in seed folders; those the previous version lacks are read from there.
    ///   - local: positions whose chunk is already verified in the staged files (placed by LAN
    ///     peers, `PeerChunkFetch`): they need no source.
    ///   - mergeGap: remote frames closer than this are fetched with one request (the gap too).
    ///   - maxRange: no single range is longer than this (so retries and parallelism stay fine-grained).
    init(index: PackIndex, previous: PackIndex?, patches: Patches? = nil, linkedFiles: FileSet = [],
         seeded: Set<Int> = [], local: Set<Int> = [], mergeGap: UInt64 = 64 << 10, maxRange: UInt64 = 32 << 20) {
        // Positions whose every byte lies in linked files.
        var linkedBytes: [Int: Int] = [:]
        for f in linkedFiles { for span in index.spans(ofFile: f) { linkedBytes[span.sequenceIndex, default: 0] += span.length } }
        var firstUse = [Int](repeating: -1, count: index.chunks.count)
        var previousUse: [SHA256Digest: Int] = [:]
        if let previous {
            for (s, c) in previous.sequence.enumerated() where previousUse[previous.chunks[Int(c)].digest] == nil {
                previousUse[previous.chunks[Int(c)].digest] = s
            }
        }
        var patchFor: [SHA256Digest: Int] = [:]
        if let patches, let previous {
            let oldTotal = previous.installSize
            for (e, entry) in patches.table.entries.enumerated()
            where entry.baseOffset + UInt64(entry.baseLength) <= oldTotal {
                patchFor[entry.chunkDigest] = e
            }
        }
        var sources: [Source] = []
        sources.reserveCapacity(index.sequence.count)
        var ranges: [Range] = []
        var downloadEnd: UInt64 = 0
        var reused: UInt64 = 0
        var usedSeeds = Set<Int>()
        for (s, c32) in index.sequence.enumerated() {
            let c = Int(c32)
            let entry = index.chunks[c]
            if linkedBytes[s] == Int(entry.uncompressedSize) || local.contains(s) {
                sources.append(.present)
                if firstUse[c] < 0 { firstUse[c] = s }
                continue
            }
            if firstUse[c] >= 0 { sources.append(.earlier(sequence: firstUse[c])); continue }
            firstUse[c] = s
            if let p = previousUse[entry.digest] {
                sources.append(.previous(sequence: p))
                reused += UInt64(entry.uncompressedSize)
                continue
            }
            if seeded.contains(c) {
                sources.append(.seed)
                usedSeeds.insert(c)
                continue
            }
            let offset: UInt64, size: UInt64, fromPatch: Bool
            var patchEntry: Int?
            if let e = patchFor[entry.digest], let table = patches?.table, table.entries[e].chunkSize == entry.uncompressedSize,
               table.entries[e].frameSize < entry.compressedSize {
                (offset, size, fromPatch) = (table.entries[e].frameOffset, UInt64(table.entries[e].frameSize), true)
                patchEntry = e
            } else {
                (offset, size, fromPatch) = (entry.offset, UInt64(entry.compressedSize), false)
            }
            let base = fromPatch ? nil : index.baseHolding(c)
            let downloadOffset: UInt64
            if var last = ranges.last, last.fromPatch == fromPatch, last.base == base, offset >= last.packOffset + last.length,
               offset - (last.packOffset + last.length) <= mergeGap,
               offset + size - last.packOffset <= maxRange {
                let newLength = offset + size - last.packOffset
                downloadEnd += newLength - last.length
                last.length = newLength
                ranges[ranges.count - 1] = last
                downloadOffset = last.downloadOffset + (offset - last.packOffset)
            } else {
                ranges.append(Range(packOffset: offset, length: size, downloadOffset: downloadEnd, fromPatch: fromPatch, base: base))
                downloadOffset = downloadEnd
                downloadEnd += size
            }
            if let patchEntry {
                sources.append(.patched(downloadOffset: downloadOffset, entry: patchEntry))
            } else {
                sources.append(.remote(downloadOffset: downloadOffset))
            }
        }
        self.sources = sources
        self.ranges = ranges
        self.patches = patchFor.isEmpty ? nil : patches
        self.linkedFiles = linkedFiles
        reusedBytes = reused
        self.seeded = usedSeeds
    }

    /// The chunks that come from the network (a full frame or a patch) at their first use:
    /// what a look through seed folders looks for.
    func networkChunks(in index: PackIndex) -> Set<Int> {
        var out = Set<Int>()
        for (s, source) in sources.enumerated() {
            switch source {
            case .remote, .patched: out.insert(Int(index.sequence[s]))
            default: break
            }
        }
        return out
    }
}
