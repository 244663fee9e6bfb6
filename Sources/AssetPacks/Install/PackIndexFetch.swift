import AssetPackFormat
import AssetPackTransport
import Foundation

/// A pack's index as an install starts from it: taken from the staging folder when a copy there
/// still hashes to the catalog's digest, otherwise fetched with one Range request (bytes damaged
/// on the way are fetched again, from the next mirror); decoded, and checked against the
/// catalog's figures (`CatalogIndexAgreement`) before anything decides on them.
struct PackIndexFetch {
    let pack: CatalogPack
    let client: RepositoryClient
    /// Attempts at an index that keeps arriving damaged before the install fails.
    var attempts = 3
    /// The content key of a sealed pack (the catalog's `sealed`), which opens its index.
    var contentKey: ContentKey?

    /// The index's bytes and the index: `staged` (the staging folder's copy, read through the
    /// confined root) when it hashes to the catalog's digest, else fetched. `fetched` is how many
    /// bytes came over the network.
    func load(staged: [UInt8]?, cancellation: CancellationFlag?) throws -> (bytes: [UInt8], index: PackIndex, fetched: UInt64) {
        if let bytes = staged, SHA256Digest.hash(bytes) == pack.digest {
            return (bytes, try checked(bytes), 0)
        }
        guard let range = ByteRange(offset: pack.index.offset, length: pack.index.length) else {
            throw AssetPackManagerError.verification("\(pack.path): the catalog gives the index an empty range")
        }
        var fetched: UInt64 = 0
        for attempt in 1...attempts {
            let (bytes, mirror) = try fetch(range, cancellation: cancellation)
            fetched += UInt64(bytes.count)
            let digest = SHA256Digest.hash(bytes)
            if digest == pack.digest, digest == pack.index.sha256 { return (bytes, try checked(bytes), fetched) }
            // The next attempt goes to another mirror first: one that serves a damaged index
            // does not stand in the way of the others.
            client.health.failed(mirror)
            guard attempt < attempts else {
                throw AssetPackManagerError.verification("\(pack.path): the index hashes to \(digest.hex), the catalog pins \(pack.digest.hex) (after \(attempts) attempts)")
            }
        }
        throw AssetPackManagerError.verification("\(pack.path): no index")
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
