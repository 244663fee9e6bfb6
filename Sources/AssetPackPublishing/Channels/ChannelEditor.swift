import AssetPackFormat
import Foundation

/// Changes a channel's catalog without packaging anything (`assetpack promote`, `rollout`,
/// `rollback`): every change is a new, higher catalog version of the channel, signed with the
/// publishing key, written under the repository's publish lock like a publish, with the same
/// retention rule, history copy and (with a root) timestamp.
public struct ChannelEditor {
    public var repository: String
    /// The catalog key (with a root, one the newest root names).
    public var key: SigningKey
    /// With a root: the timestamp key that signs `timestamp.json` after the catalog.
    public var timestampKey: SigningKey?
    public var timestampExpiresIn: TimeInterval = TimestampSigner.defaultExpiry
    /// How long the new catalog stays valid.
    public var expiresIn: TimeInterval = 30 * 86_400
    /// Versions per pack whose files stay, the current one included (as `publish --keep`).
    public var keep = 2
    /// The clock of `published` and `expires`.
    public var now = Date()

    public init(repository: String, key: SigningKey) {
        self.repository = repository
        self.key = key
    }

    /// What a change wants: the channel's new packs and rollout, worked out from its current
    /// catalog (nil when the channel has none) and the repository's catalogs.
    typealias Change = (_ current: Catalog?, _ catalogs: RepositoryCatalogs, _ folder: ConfinedDirectory) throws -> (packs: [CatalogPack], rollout: CatalogRollout?)

    /// Locks the repository, works out the change and commits it as the next catalog version of `channel`.
    func apply(to channel: String?, _ change: Change) throws -> ChannelChange {
        let channel = ChannelName.normalized(channel)
        if let channel, let why = ChannelName.problem(with: channel) { throw PublishError.invalidOption("channel \"\(channel)\" \(why)") }
        if let problem = SettingBounds.problem("keep", keep, in: SettingBounds.keptVersions, reason: "the current version counts") {
            throw PublishError.invalidOption(problem)
        }
        guard expiresIn > 0 else { throw PublishError.invalidOption("the expiry must be in the future") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: repository, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PublishError.io("\(repository) is not a repository folder")
        }
        let transaction = try RepositoryTransaction(repository: repository)
        defer { transaction.finish() }
        guard let folder = transaction.folder else { throw PublishError.io("the change to \(repository) has ended") }
        let trust = try RepositoryTrust.load(repository: repository)
        try checkKeys(against: trust)
        let catalogs = RepositoryCatalogs(repository: repository, keys: trust.map { $0.everyCatalogKey } ?? [key.publicKey])
        let current = try catalogs.catalog(of: channel)
        let (packs, rollout) = try change(current, catalogs, folder)
        let others = try catalogs.others(than: channel).map(\.catalog)
        let version = (current?.version ?? 0) + 1
        var versions = PackVersions(others)
        try catalogs.historyVersions(into: &versions)
        let plan = RepositoryPlan(old: current, built: packs, catalogVersion: version, keep: keep, versions: versions)
        var catalog = Catalog(version: version, published: now, expires: now.addingTimeInterval(expiresIn), packs: plan.packs,
                              retired: plan.retired, removed: plan.removed, channel: channel)
        // A rollout's packs are the ones the plan just kept or made current before: same entries.
        catalog.rollout = rollout
        let commit = CatalogCommit(key: key, timestampKey: timestampKey, timestampExpiresIn: timestampExpiresIn, now: now)
        let timestamp = try commit.commit(catalog, transaction: transaction, trust: trust).timestamp
        var result = ChannelChange(catalog: catalog, previousVersion: current?.version, changes: plan.changes, timestamp: timestamp)
        for path in CatalogCommit.deletable(plan.deletions, keeping: catalog, others: others) {
            if let problem = transaction.deleteRetired(path) {
                result.warnings.append("could not delete the retired file \(repository)/\(path): \(problem)")
            } else {
                result.deletedFiles.append(path)
            }
        }
        return result
    }

    /// With a root: the catalog key must be one the newest root names, and a timestamp key it
    /// names must be given.
    private func checkKeys(against trust: RepositoryTrust?) throws {
        guard let trust else {
            if timestampKey != nil { throw PublishError.trust("\(repository) has no root (roots/1.root.json), so no timestamp: leave out --timestamp-key") }
            return
        }
        guard trust.root.catalogPublicKeys.contains(key.publicKey) else {
            throw PublishError.trust("the key \(key.publicKey.keyID) is not a catalog key of root version \(trust.current.version); clients would refuse the catalog")
        }
        guard let timestampKey else {
            throw PublishError.trust("\(repository) has a root: pass --timestamp-key (a timestamp key of root version \(trust.current.version)) so that timestamp.json names the new catalog")
        }
        guard trust.root.timestampPublicKeys.contains(timestampKey.publicKey) else {
            throw PublishError.trust("the timestamp key \(timestampKey.publicKey.keyID) is not a timestamp key of root version \(trust.current.version)")
        }
    }

    /// The channel's catalog as it is, or an error naming the channel when it has none.
    static func existing(_ catalog: Catalog?, channel: String?, repository: String) throws -> Catalog {
        guard let catalog else {
            throw PublishError.invalidOption("\(ChannelName.describe(channel)) does not exist: \(repository)/\(ChannelName.catalogPath(channel)) is missing (publish to it first)")
        }
        return catalog
    }
}

/// What a promotion, a rollout change or a rollback did.
public struct ChannelChange: Sendable {
    /// The catalog written.
    public var catalog: Catalog
    /// The catalog version it replaced (nil: the channel had none).
    public var previousVersion: Int?
    /// Per pack: added, updated, unchanged or removed, with versions.
    public var changes: [PackChange]
    /// The timestamp written with it (a repository with a root).
    public var timestamp: TimestampMetadata?
    /// Files the retention rule deleted.
    public var deletedFiles: [String] = []
    /// Files that could not be deleted (the change succeeded).
    public var warnings: [String] = []

    init(catalog: Catalog, previousVersion: Int?, changes: [PackChange], timestamp: TimestampMetadata?) {
        self.catalog = catalog
        self.previousVersion = previousVersion
        self.changes = changes
        self.timestamp = timestamp
    }
}
