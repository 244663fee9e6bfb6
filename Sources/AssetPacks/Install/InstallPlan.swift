import AssetPackFormat

/// Where each chunk of a new pack version comes from, decided before a byte moves: an earlier
/// place in the same pack (dedup), the installed previous version (delta), or the repository.
/// Remote chunks are grouped into byte ranges of the pack file, nearby ones merged so that a
/// delta does not turn into thousands of tiny requests.
struct InstallPlan: Equatable {
    enum Source: Equatable {
        /// Copy from the stream position of an earlier use in the pack being assembled.
        case earlier(sequence: Int)
        /// Copy from the previous version's files (its sequence position there).
        case previous(sequence: Int)
        /// Decode the frame found at this offset of the downloaded bytes.
        case remote(downloadOffset: UInt64)
    }

    /// One Range request's worth of the pack file, and where its bytes go in the download file.
    struct Range: Equatable {
        var packOffset: UInt64
        var length: UInt64
        var downloadOffset: UInt64
    }

    var sources: [Source]
    var ranges: [Range]
    /// Bytes to download (gaps merged into ranges included).
    var downloadBytes: UInt64 { ranges.reduce(0) { $0 + $1.length } }
    /// Bytes that come from the previous version instead of the network.
    var reusedBytes: UInt64

    /// - Parameters:
    ///   - previous: the installed previous version's index, if any.
    ///   - mergeGap: remote frames closer than this are fetched with one request (the gap too).
    ///   - maxRange: no single range is longer than this (so retries and parallelism stay fine-grained).
    init(index: PackIndex, previous: PackIndex?, mergeGap: UInt64 = 64 << 10, maxRange: UInt64 = 32 << 20) {
        var firstUse = [Int](repeating: -1, count: index.chunks.count)
        var previousUse: [SHA256Digest: Int] = [:]
        if let previous {
            for (s, c) in previous.sequence.enumerated() where previousUse[previous.chunks[Int(c)].digest] == nil {
                previousUse[previous.chunks[Int(c)].digest] = s
            }
        }
        var sources: [Source] = []
        sources.reserveCapacity(index.sequence.count)
        var ranges: [Range] = []
        var downloadEnd: UInt64 = 0
        var reused: UInt64 = 0
        for (s, c32) in index.sequence.enumerated() {
            let c = Int(c32)
            if firstUse[c] >= 0 { sources.append(.earlier(sequence: firstUse[c])); continue }
            firstUse[c] = s
            let entry = index.chunks[c]
            if let p = previousUse[entry.digest] {
                sources.append(.previous(sequence: p))
                reused += UInt64(entry.uncompressedSize)
                continue
            }
            let size = UInt64(entry.compressedSize)
            if var last = ranges.last, entry.offset >= last.packOffset + last.length,
               entry.offset - (last.packOffset + last.length) <= mergeGap,
               entry.offset + size - last.packOffset <= maxRange {
                let newLength = entry.offset + size - last.packOffset
                downloadEnd += newLength - last.length
                last.length = newLength
                ranges[ranges.count - 1] = last
                sources.append(.remote(downloadOffset: last.downloadOffset + (entry.offset - last.packOffset)))
            } else {
                ranges.append(Range(packOffset: entry.offset, length: size, downloadOffset: downloadEnd))
                sources.append(.remote(downloadOffset: downloadEnd))
                downloadEnd += size
            }
        }
        self.sources = sources
        self.ranges = ranges
        reusedBytes = reused
    }
}
