import AssetPackFormat
import Foundation

/// The last steps every change of a channel's catalog shares (`publish`, `promote`, `rollout`,
/// `rollback`): sign the new catalog, write it at the channel's path, keep a copy in the
/// channel's history, re-sign the timestamp when the repository has a root (naming every
/// channel's catalog), and tell which retired files may go — none that another channel, or the
/// new catalog's rollout, still names.
struct CatalogCommit {
    var key: SigningKey
    var timestampKey: SigningKey?
    var timestampExpiresIn: TimeInterval
    var now: Date

    /// Signs `catalog` and writes it (then its history copy and the timestamp) under
    /// `transaction`. Returns the catalog's bytes and the new timestamp, if any.
    func commit(_ catalog: Catalog, transaction: RepositoryTransaction, trust: RepositoryTrust?) throws -> (bytes: [UInt8], timestamp: TimestampMetadata?) {
        let bytes = try key.signedCatalog(catalog)
        var timestamp: (TimestampMetadata, [UInt8])?
        if let trust, let timestampKey {
            let signer = TimestampSigner(key: timestampKey, expiresIn: timestampExpiresIn, now: now)
            let stamp = try signer.makeTimestamp(trust: trust, repository: transaction.repository, catalogBytes: bytes, channel: catalog.channel)
            timestamp = (stamp, try stamp.signed(by: timestampKey))
        }
        try transaction.commitCatalog(bytes, channel: catalog.channel)
        // The history copy is for `rollback`; a failure to write it does not undo the publish.
        try? transaction.writeFile(RepositoryCatalogs.historyPath(catalog.version, channel: catalog.channel), bytes)
        if let (stamp, stampBytes) = timestamp {
            do { try transaction.commitFile(TrustRole.timestamp.fileName, stampBytes) } catch {
                throw PublishError.io("the catalog is published, but timestamp.json could not be written (\(error)): clients refuse the catalog until 'assetpack timestamp --repo \(transaction.repository)' succeeds")
            }
            return (bytes, stamp)
        }
        return (bytes, nil)
    }

    /// The paths of `deletions` that neither `catalog` (its rollout included) nor any of
    /// `others` (the other channels' catalogs) names: pack files are shared between channels.
    static func deletable(_ deletions: [String], keeping catalog: Catalog, others: [Catalog]) -> [String] {
        var named = RepositoryCatalogs.referencedPaths(catalog)
        for other in others { named.formUnion(RepositoryCatalogs.referencedPaths(other)) }
        return deletions.filter { !named.contains($0) }
    }
}
