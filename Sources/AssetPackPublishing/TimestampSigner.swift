import AssetPackFormat
import Foundation

/// `assetpack timestamp` (and the last step of a publish into a repository with a root): signs
/// `timestamp.json` naming the repository's current `catalog.json` by version, size and SHA-256,
/// with a short expiry, without touching anything else. Run from cron more often than the expiry,
/// it keeps clients from taking a frozen repository for a live one.
public struct TimestampSigner {
    /// The default lifetime of a timestamp (`--expires`).
    public static let defaultExpiry: TimeInterval = 86_400

    /// A timestamp key of the repository's newest root.
    public var key: SigningKey
    /// How long the new timestamp stays valid.
    public var expiresIn: TimeInterval
    /// The clock the expiry counts from (and the catalog's expiry is checked against).
    public var now: Date

    /// A signer with this key.
    public init(key: SigningKey, expiresIn: TimeInterval = TimestampSigner.defaultExpiry, now: Date = Date()) {
        self.key = key
        self.expiresIn = expiresIn
        self.now = now
    }

    /// Re-signs the timestamp of `repository` under its publish lock: checks that the key is a
    /// timestamp key of the newest root and that `catalog.json` verifies with a catalog key of
    /// that root and has not expired, then writes `timestamp.json` with the next version.
    @discardableResult
    public func sign(repository: String) throws -> TimestampMetadata {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: repository, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PublishError.io("\(repository) is not a repository folder")
        }
        let transaction = try RepositoryTransaction(repository: repository)
        guard let trust = try RepositoryTrust.load(repository: repository) else {
            throw PublishError.trust("\(repository) has no root (roots/1.root.json): run 'assetpack rotate --repo \(repository) --root-key ROOT.key …' first")
        }
        let stamp = try makeTimestamp(trust: trust, repository: repository, catalogBytes: try Self.catalogBytes(repository))
        try transaction.commitFile(TrustRole.timestamp.fileName, try stamp.signed(by: key))
        transaction.finish()
        return stamp
    }

    /// The timestamp for `catalogBytes` (`channel`'s catalog, about to be or already in place) and
    /// the catalogs of every other channel as they are, with the version after the repository's
    /// current one.
    func makeTimestamp(trust: RepositoryTrust, repository: String, catalogBytes: [UInt8], channel: String? = nil) throws -> TimestampMetadata {
        guard expiresIn > 0 else { throw PublishError.invalidOption("the timestamp's expiry must be in the future") }
        guard trust.root.timestampPublicKeys.contains(key.publicKey) else {
            throw PublishError.trust("the timestamp key \(key.publicKey.keyID) is not a timestamp key of root version \(trust.current.version) (it names \(trust.root.timestampPublicKeys.map(\.keyID).joined(separator: ", "))); rotate it in with 'assetpack rotate --timestamp-key'")
        }
        // Every channel's catalog: the one given for `channel`, the others as they lie.
        let catalogs = RepositoryCatalogs(repository: repository, keys: trust.root.catalogPublicKeys)
        var references: [String?: TimestampMetadata.CatalogReference] = [:]
        for name in [nil] + (try catalogs.channelNames()) + [ChannelName.normalized(channel)].compactMap({ $0 }) {
            guard references[ChannelName.normalized(name)] == nil else { continue }
            let given = ChannelName.normalized(name) == ChannelName.normalized(channel)
            guard let bytes = given ? catalogBytes : try catalogs.bytes(of: name) else {
                throw PublishError.io("\(repository)/\(CatalogFormat.fileName) does not exist: publish the default channel first (timestamp.json names its catalog)")
            }
            let catalog: Catalog
            do { catalog = try trust.current.verifyCatalog(bytes, now: now, channel: name) } catch {
                throw PublishError.trust("\(repository)/\(ChannelName.catalogPath(name)) cannot be vouched for: \(error)")
            }
            references[ChannelName.normalized(name)] = .init(version: catalog.version, size: UInt64(bytes.count), sha256: SHA256Digest.hash(bytes))
        }
        let previous = try trust.currentTimestamp(repository: repository)
        // Whole seconds, as the file says it.
        let expires = Date(timeIntervalSince1970: now.addingTimeInterval(expiresIn).timeIntervalSince1970.rounded(.down))
        var channels: [String: TimestampMetadata.CatalogReference] = [:]
        for case let (name?, reference) in references { channels[name] = reference }
        return TimestampMetadata(version: (previous?.version ?? 0) + 1, expires: expires, catalog: references[nil]!, channels: channels)
    }

    static func catalogBytes(_ repository: String) throws -> [UInt8] {
        let directory = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        guard let bytes = try RepositoryTransaction.confined({ () throws(ConfinementError) in try directory.contents(of: CatalogFormat.fileName) }) else {
            throw PublishError.io("\(repository)/\(CatalogFormat.fileName) does not exist: publish first")
        }
        return bytes
    }
}
