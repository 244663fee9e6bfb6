import AssetPackFormat
import AssetPackTransport
import Foundation

/// A pack's index as an install starts from it: taken from the staging folder when a copy there
/// still hashes to the catalog's digest; else, for an update, made from the installed version's
/// index by the index patch of the catalog's patch file from that version (`IndexPatch`); else
/// fetched with one Range request (bytes damaged on the way are fetched again, from the next
/// mirror). Decoded, and checked against the catalog's figures (`CatalogIndexAgreement`) before
/// anything decides on them.
struct PackIndexFetch {
    let pack: CatalogPack
    let client: RepositoryClient
    /// Attempts at an index that keeps arriving damaged before the install fails.
    var attempts = 3
    /// The content key of a sealed pack (the catalog's `sealed`), which opens its index.
    var contentKey: ContentKey?
    /// The installed version's index, from which an index patch makes the new one.
    var previous: PreviousIndex?

    /// An installed version's index: its pack digest, and its bytes as the store keeps them with
    /// their offset in that version's pack file (for messages).
    struct PreviousIndex {
        var digest: SHA256Digest
        var bytes: [UInt8]
        var offset: UInt64
    }

    /// What `load` gives: the index's bytes and the index, how many bytes came over the network,
    /// and the patch table it fetched on the way (checked against the catalog's SHA-256), which
    /// the install plans with rather than fetching it again.
    struct Loaded {
        var bytes: [UInt8]
        var index: PackIndex
        var fetched: UInt64
        var patchTable: [UInt8]?
    }

    /// The index's bytes and the index: `staged` (the staging folder's copy, read through the
    /// confined root) when it hashes to the catalog's digest, else patched from `previous`, else
    /// fetched.
    func load(staged: [UInt8]?, cancellation: CancellationFlag?) throws -> Loaded {
        if let bytes = staged, SHA256Digest.hash(bytes) == pack.digest {
            return Loaded(bytes: bytes, index: try checked(bytes), fetched: 0)
        }
        guard let range = ByteRange(offset: pack.index.offset, length: pack.index.length) else {
            throw AssetPackManagerError.verification("\(pack.path): the catalog gives the index an empty range")
        }
        var fetched: UInt64 = 0
        let table = patchTable(cancellation: cancellation, fetched: &fetched)
        if let table, let bytes = patched(by: table.decoded) {
            return Loaded(bytes: bytes, index: try checked(bytes), fetched: fetched, patchTable: table.bytes)
        }
        if cancellation?.isCancelled == true { throw AssetPackManagerError.cancelled }
        for attempt in 1...attempts {
            let (bytes, mirror) = try fetch(range, cancellation: cancellation)
            fetched += UInt64(bytes.count)
            let digest = SHA256Digest.hash(bytes)
            if digest == pack.digest, digest == pack.index.sha256 {
                return Loaded(bytes: bytes, index: try checked(bytes), fetched: fetched, patchTable: table?.bytes)
            }
            // The next attempt goes to another mirror first: one that serves a damaged index
            // does not stand in the way of the others.
            client.health.failed(mirror)
            guard attempt < attempts else {
                throw AssetPackManagerError.verification("\(pack.path): the index hashes to \(digest.hex), the catalog pins \(pack.digest.hex) (after \(attempts) attempts)")
            }
        }
        throw AssetPackManagerError.verification("\(pack.path): no index")
    }

    /// The patch table of the catalog's patch file from `previous` (unsealed packs only; the
    /// install plans with it too): fetched with one Range request, and kept only when it hashes
    /// to the catalog's SHA-256, decodes, and leads from `previous` to this version. Nil
    /// otherwise: an unreachable or damaged table only means the index is fetched whole.
    private func patchTable(cancellation: CancellationFlag?, fetched: inout UInt64) -> (bytes: [UInt8], decoded: PatchTable)? {
        guard let previous, pack.sealed == nil, let patch = pack.patch(from: previous.digest),
              let range = ByteRange(offset: patch.table.offset, length: patch.table.length),
              let (bytes, _) = try? client.bytes(of: patch.path, range: range, cancellation: cancellation, smallFile: true) else { return nil }
        fetched += UInt64(bytes.count)
        return patch.checkedTable(bytes, to: pack.digest, contentKey: nil).map { (bytes, $0) }
    }

    /// The index `table`'s index patch makes from `previous`, when it hashes to the pack digest.
    private func patched(by table: PatchTable) -> [UInt8]? {
        guard let previous, let indexPatch = table.indexPatch else { return nil }
        return try? indexPatch.apply(to: previous.bytes, previousOffset: previous.offset, digest: pack.digest)
    }

    /// The index's range from the first mirror that serves it. The range lies inside the size
    /// the signed catalog gives the file, so a server that cannot satisfy it (416) holds a
    /// shorter file than was published: that is said, not just the status.
    private func fetch(_ range: ByteRange, cancellation: CancellationFlag?) throws -> (bytes: [UInt8], mirror: Int) {
        do {
            return try client.bytes(of: pack.path, range: range, cancellation: cancellation, smallFile: true)
        } catch {
            guard case .transport(let cause) = error, cause.httpStatus == 416 else { throw error }
            let end = pack.index.offset + pack.index.length
            throw AssetPackManagerError.verification(
                "\(pack.path): the server's file ends before the index, which the signed catalog places at bytes \(pack.index.offset)..<\(end) of \(pack.size): the file is truncated or is not the one published (\(cause))")
        }
    }

    /// `bytes` decoded as the pack's index and checked against the catalog's figures.
    func checked(_ bytes: [UInt8]) throws -> PackIndex {
        let index: PackIndex
        let sealed = SealedIndex.isSealed(bytes)
        if let sealing = pack.sealed {
            guard sealed else {
                throw AssetPackManagerError.verification("\(pack.path): the catalog says the pack is sealed but its index is plaintext: a sealed pack's index is never stored in plaintext; refused")
            }
            guard let contentKey, contentKey.keyID == sealing.keyID else { throw AssetPackManagerError.entitlementRequired(AssetPack(pack)) }
            do {
                let region = try SealedIndex.decode(bytes, indexOffset: pack.index.offset)
                guard region.keyID == sealing.keyID else {
                    throw PackError.malformed("sealed index", at: pack.index.offset + 16, "names key \(region.keyID.hex.prefix(16))…, the catalog \(sealing.keyID.hex.prefix(16))…")
                }
                index = try region.open(with: contentKey, indexOffset: pack.index.offset)
            } catch {
                throw AssetPackManagerError.verification("\(pack.path): \(error)")
            }
        } else {
            guard !sealed else {
                throw AssetPackManagerError.verification("\(pack.path): the index is sealed but the catalog does not say the pack is; refused")
            }
            do { index = try PackIndex.decode(bytes, indexOffset: pack.index.offset) } catch {
                throw AssetPackManagerError.verification("\(pack.path): \(error)")
            }
        }
        try CatalogIndexAgreement.check(pack, index: index)
        return index
    }
}
