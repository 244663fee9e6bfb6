import AssetPackPackaging
import Dispatch
import Foundation

/// What a publish keeps of the selected files' stamps, taken before packaging, to tell afterwards
/// whether a file changed meanwhile and which: 16 bits of each stamp's `digest` (2 bytes a file;
/// at a million files the whole digests took 8 MB) and one sum over every whole digest, each
/// mixed with its position first. A change moves the sum whatever its 16 bits do; a file whose
/// 16 bits moved is named.
struct StampRecord {
    private var low: [UInt16] = []
    private var sum: UInt64 = 0

    /// What `firstChange` found.
    enum Change: Equatable {
        /// The first file whose stamp is not the one recorded (or that cannot be stat'd).
        case file(Int)
        /// A file changed whose 16 bits did not: the sum tells, but not which file.
        case unnamed
    }

    init(capacity: Int) { low.reserveCapacity(capacity) }

    /// The record of `files`' stamps now; nil when one cannot be stat'd.
    static func of(_ files: SelectedFileList) -> StampRecord? {
        let stamper = SourceStamper()
        var record = StampRecord(capacity: files.count)
        for i in files.indices {
            guard let stamp = stamper.stamp(files[i]) else { return nil }
            record.append(stamp.digest)
        }
        return record
    }

    /// Records the next file's stamp digest.
    mutating func append(_ digest: UInt64) {
        sum &+= Self.term(digest, at: low.count)
        low.append(UInt16(truncatingIfNeeded: digest))
    }

    /// `digest` mixed with its position (the finalizer of splitmix64), so that two files that
    /// swap stamps still move the sum.
    private static func term(_ digest: UInt64, at position: Int) -> UInt64 {
        var z = digest &+ UInt64(position) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Stats `files` again (the ones recorded, in the same order) and says what changed since,
    /// nil when nothing did. The files are stat'd in a few stretches at once: the `stat` calls
    /// are nearly all of the work.
    func firstChange(in files: SelectedFileList) -> Change? {
        precondition(files.count == low.count, "a record of \(low.count) stamps checked against \(files.count) files")
        let stretches = files.count < 4096 ? 1 : 4
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: stretches) { k in
            let stamper = SourceStamper()
            var partial: UInt64 = 0
            for i in (files.count * k / stretches)..<(files.count * (k + 1) / stretches) {
                guard let digest = stamper.stamp(files[i])?.digest, UInt16(truncatingIfNeeded: digest) == low[i] else {
                    results.found(i)
                    return
                }
                partial &+= Self.term(digest, at: i)
            }
            results.add(partial)
        }
        if let first = results.first { return .file(first) }
        return results.sum == sum ? nil : .unnamed
    }

    /// The stretches' findings: the lowest position found changed, and the sum of the others.
    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var found: Int?
        private var total: UInt64 = 0

        func found(_ i: Int) { lock.withLock { found = min(found ?? i, i) } }
        func add(_ partial: UInt64) { lock.withLock { total &+= partial } }

        var first: Int? { lock.withLock { found } }
        var sum: UInt64 { lock.withLock { total } }
    }
}
