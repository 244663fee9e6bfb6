import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestSupport

/// Root mode for a test repository: the keys of a root chain and publishes that sign the
/// timestamp too.
public struct TestRootKeys: Sendable {
    public var root: SigningKey
    public var catalog: SigningKey
    public var timestamp: SigningKey

    /// Three new keys.
    public init() throws {
        root = try SigningKey.generate()
        catalog = try SigningKey.generate()
        timestamp = try SigningKey.generate()
    }
}

extension TestRepository {
    /// Starts the repository's root chain (`roots/1.root.json`) naming `keys`' catalog and
    /// timestamp keys.
    @discardableResult
    public func startRoot(_ keys: TestRootKeys, expiresIn: TimeInterval = 365 * 86_400, now: Date = Date()) throws -> RootMetadata {
        var rotation = RootRotation(rootKey: keys.root)
        rotation.catalogKeys = [keys.catalog.publicKey]
        rotation.timestampKeys = [keys.timestamp.publicKey]
        rotation.expiresIn = expiresIn
        rotation.now = now
        return try rotation.rotate(repository: path)
    }

    /// Publishes every pack put so far with `keys`' catalog and timestamp keys.
    @discardableResult
    public func publish(_ keys: TestRootKeys, expiresIn: TimeInterval = 86_400, timestampExpiresIn: TimeInterval = 3600,
                        now: Date = Date()) throws -> Catalog {
        let options = publishOptions(now: now) {
            $0.expiresIn = expiresIn
            $0.timestampKey = keys.timestamp
            $0.timestampExpiresIn = timestampExpiresIn
        }
        let report = try Publisher(key: keys.catalog, options: options).publish(manifests: manifestPaths)
        guard let catalog = report.catalog else { throw TestSupportError("publish wrote no catalog: \(report.diagnostics)") }
        return catalog
    }
}
