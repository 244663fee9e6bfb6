import AssetPackFormat

/// One of the stretches of the content stream that an install assembles side by side, each
/// with its own connection: a run of sequence positions, the stream bytes they fill, and the
/// stretch of the download that holds their frames. Parts are cut by work (content bytes and
/// files), so a fresh install and a delta both spread their work; the cut depends only on the
/// index and the plan, so a resumed run finds the same parts.
struct InstallPart: Equatable {
    var sequences: Range<Int>
    /// Stream offsets of the bytes this part writes.
    var content: Range<UInt64>
    /// Download offsets of this part's frames (empty when every chunk is local).
    var download: Range<UInt64>
    /// The part at the end of the stream, which also creates empty files placed at its end.
    var isLast: Bool

    /// What starting a file costs a part, in content bytes: creating, opening and closing it
    /// took about as long as writing 20-30 KiB in an install of the 1 GiB benchmark corpus,
    /// whose last quarter holds 11,600 of its 11,648 files (docs/BENCHMARKS.md, "Parts of equal
    /// work").
    static let fileWeight: UInt64 = 32 << 10

    /// The work of the stream up to each position: element `s` is the work of positions
    /// `0..<s` (content bytes, and `fileWeight` for each file that starts at a position).
    static func work(index: PackIndex) -> [UInt64] {
        let n = index.sequence.count
        var work = index.sequence.map { UInt64(index.chunks[Int($0)].uncompressedSize) }
        // Each file's weight goes to the position it starts in (files are in stream order).
        var s = 0
        for f in index.files.indices where index.files.size(at: f) > 0 {
            while s + 1 < n && index.sequenceOffsets[s + 1] <= index.fileOffsets[f] { s += 1 }
            if s < n { work[s] += fileWeight }
        }
        var prefix = [UInt64](repeating: 0, count: n + 1)
        for s in 0..<n { prefix[s + 1] = prefix[s] + work[s] }
        return prefix
    }

    /// Splits the stream into at most `count` parts of about equal work (`work(index:)`).
    static func split(index: PackIndex, plan: InstallPlan, count: Int) -> [InstallPart] {
        let n = index.sequence.count
        let parts = max(1, min(count, n))
        let work = work(index: index)
        var cuts = [0]
        for s in 0..<n where cuts.count < parts && work[s] >= work[n] / UInt64(parts) * UInt64(cuts.count) && s > cuts.last! {
            cuts.append(s)
        }
        cuts.append(n)
        return (0..<cuts.count - 1).map { k in
            InstallPart(cuts[k]..<cuts[k + 1], index: index, plan: plan, isLast: k == cuts.count - 2)
        }
    }

    /// This part cut at position `m` (inside it): the positions before `m`, and those from `m`
    /// on (which has the stream's end if this part had it).
    func split(at m: Int, index: PackIndex, plan: InstallPlan) -> (InstallPart, InstallPart) {
        (InstallPart(sequences.lowerBound..<m, index: index, plan: plan, isLast: false),
         InstallPart(m..<sequences.upperBound, index: index, plan: plan, isLast: isLast))
    }

    /// Whether position `s` copies a chunk whose first use lies in an earlier part: that copy
    /// waits until every part is done (the bytes may not be on disk before).
    func defers(_ s: Int, in plan: InstallPlan) -> Bool {
        if case .earlier(let first) = plan.sources[s] { return first < sequences.lowerBound }
        return false
    }
}

extension InstallPart {
    /// The part of positions `sequences`: the stream bytes they fill, and the stretch of the
    /// download from the first of their frames to the end of the last.
    init(_ sequences: Range<Int>, index: PackIndex, plan: InstallPlan, isLast: Bool) {
        let n = index.sequence.count
        let total = n == 0 ? 0 : index.sequenceOffsets[n - 1] + UInt64(index.chunks[Int(index.sequence[n - 1])].uncompressedSize)
        let start = sequences.lowerBound < n ? index.sequenceOffsets[sequences.lowerBound] : total
        let end = sequences.upperBound < n ? index.sequenceOffsets[sequences.upperBound] : total
        var first: UInt64?, last: UInt64 = 0
        for s in sequences {
            guard let d = plan.downloadOffset(s) else { continue }
            if first == nil { first = d }
            last = d + plan.frameSize(s, in: index)
        }
        self.init(sequences: sequences, content: start..<end, download: (first ?? 0)..<(first == nil ? 0 : last), isLast: isLast)
    }
}

extension InstallPart {
    private static let magic = Array("APPARTS1".utf8)
    /// More parts than this in a saved list is not a list a run made.
    private static let savedLimit = 4096

    /// `parts`, in the order of their numbers (part `k` has the spool `part-k`), as the staging
    /// folder's `parts` file: "APPARTS1", then each part's first position and end as
    /// little-endian UInt32.
    static func encode(_ parts: [InstallPart]) -> [UInt8] {
        var bytes = magic
        for part in parts {
            for p in [part.sequences.lowerBound, part.sequences.upperBound] { withUnsafeBytes(of: UInt32(p).littleEndian) { bytes += $0 } }
        }
        return bytes
    }

    /// The parts a `parts` file lists, in the order of their numbers; nil unless the file is one
    /// (its magic, a whole number of parts, at most `savedLimit`) and they tile the stream of
    /// `index` exactly. Another process may have written the file: a wrong one costs only the
    /// parts the index gives.
    static func decode(_ bytes: [UInt8], index: PackIndex, plan: InstallPlan) -> [InstallPart]? {
        guard bytes.count > magic.count, Array(bytes.prefix(magic.count)) == magic, (bytes.count - magic.count) % 8 == 0 else { return nil }
        let count = (bytes.count - magic.count) / 8
        guard count <= savedLimit else { return nil }
        func word(_ at: Int) -> Int {
            Int(UInt32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: magic.count + at * 4, as: UInt32.self) }))
        }
        var ranges: [Range<Int>] = []
        for k in 0..<count {
            guard word(2 * k) < word(2 * k + 1) else { return nil }
            ranges.append(word(2 * k)..<word(2 * k + 1))
        }
        let n = index.sequence.count
        var end = 0
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            guard r.lowerBound == end else { return nil }
            end = r.upperBound
        }
        guard end == n else { return nil }
        return ranges.map { InstallPart($0, index: index, plan: plan, isLast: $0.upperBound == n) }
    }
}
