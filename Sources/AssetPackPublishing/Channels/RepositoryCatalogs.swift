import AssetPackFormat
import Foundation

/// The catalogs of a repository folder, one per channel, as the publisher reads them: the
/// default channel's `catalog.json` and each `channels/NAME/catalog.json`, every one verified
/// with the publishing keys and checked to be signed for the channel whose path it lies at.
/// Pack files are shared by every channel (content-addressed), so what one channel may delete
/// depends on what the others still name.
struct RepositoryCatalogs {
    /// The folder that holds one folder per channel.
    static let channelsFolder = "channels"
    /// The folder, beside a channel's catalog, that keeps every catalog version it published
    /// (`history/N.catalog.json`), for `assetpack rollback`.
    static let historyFolder = "history"

    let repository: String
    /// Keys an existing catalog may be signed with (with a root: every catalog key its chain named).
    let keys: [Ed25519PublicKey]

    /// The names of the channels that have a catalog (not the default channel), sorted.
    func channelNames() throws -> [String] {
        guard repositoryExists else { return [] }
        let folder = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        let names = try RepositoryTransaction.confined { () throws(ConfinementError) in try folder.entries(Self.channelsFolder) }
        return names.filter { ChannelName.problem(with: $0) == nil && folder.exists(ChannelName.catalogPath($0)) }.sorted()
    }

    /// The bytes of `channel`'s catalog (nil: the default channel), or nil when it has none.
    func bytes(of channel: String?) throws -> [UInt8]? {
        guard repositoryExists else { return nil }
        let folder = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        let path = ChannelName.catalogPath(channel)
        return try RepositoryTransaction.confined { () throws(ConfinementError) in try folder.contents(of: path) }
    }

    /// Whether the repository folder exists (a first publish creates it).
    private var repositoryExists: Bool { FileManager.default.fileExists(atPath: repository) }

    /// `channel`'s catalog, verified (signature, channel; not its expiry: republishing is how an
    /// expired catalog is replaced); nil when the channel has none.
    func catalog(of channel: String?) throws -> Catalog? {
        try catalog(of: channel, reusing: nil)?.catalog
    }

    /// `channel`'s catalog with its bytes; when they are `previous`'s bytes, `previous`'s
    /// catalog is returned without verifying the same bytes again.
    func catalog(of channel: String?, reusing previous: (bytes: [UInt8], catalog: Catalog)?) throws -> (bytes: [UInt8], catalog: Catalog)? {
        guard let bytes = try bytes(of: channel) else { return nil }
        if let previous, previous.bytes == bytes { return previous }
        return (bytes, try verify(bytes, path: "\(repository)/\(ChannelName.catalogPath(channel))", channel: channel))
    }

    /// Verifies catalog bytes read from `path` for `channel`.
    func verify(_ bytes: [UInt8], path: String, channel: String?) throws -> Catalog {
        do { return try CatalogVerifier(publicKeys: keys).verify(bytes, now: nil, channel: channel) } catch {
            throw PublishError.existingCatalog(path: path, error)
        }
    }

    /// Every catalog but `channel`'s, by channel (nil: the default channel).
    func others(than channel: String?) throws -> [(channel: String?, catalog: Catalog)] {
        var result: [(String?, Catalog)] = []
        for name in [nil] + (try channelNames()) where ChannelName.normalized(name) != ChannelName.normalized(channel) {
            if let catalog = try catalog(of: name) { result.append((name, catalog)) }
        }
        return result
    }

    /// The catalog version `version` that `channel` published, from its history, verified; nil
    /// when the history does not hold it.
    func historical(_ version: Int, of channel: String?) throws -> Catalog? {
        let path = Self.historyPath(version, channel: channel)
        let folder = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        guard let bytes = try RepositoryTransaction.confined({ () throws(ConfinementError) in try folder.contents(of: path) }) else { return nil }
        let catalog = try verify(bytes, path: "\(repository)/\(path)", channel: channel)
        guard catalog.version == version else {
            throw PublishError.io("\(repository)/\(path) holds catalog version \(catalog.version), not \(version); remove it")
        }
        return catalog
    }

    /// The pack versions every catalog the channels' histories hold has used (their signatures
    /// were checked when they were written; they only feed `PackVersions`, so that a version
    /// number a rollback left behind is never given to other content). Only the keys that
    /// matter are read from each payload (`PackVersions.note(payload:)`): a history grows by a
    /// catalog a publish, and every publish reads it.
    func historyVersions(into versions: inout PackVersions) throws {
        guard repositoryExists else { return }
        let folder = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        for name in [nil] + (try channelNames()) {
            let dir = (Self.historyPath(1, channel: name) as NSString).deletingLastPathComponent
            for file in (try? folder.entries(dir)) ?? [] where file.hasSuffix(".catalog.json") {
                guard let bytes = try? folder.contents(of: "\(dir)/\(file)"), let envelope = try? SignedCatalog.parse(bytes),
                      let payload = try? envelope.content() else { continue }
                versions.note(payload: payload)
            }
        }
    }

    /// Where a channel keeps catalog version `version`: `history/N.catalog.json`, or
    /// `channels/NAME/history/N.catalog.json`.
    static func historyPath(_ version: Int, channel: String?) -> String {
        let file = "\(historyFolder)/\(version).catalog.json"
        guard let channel = ChannelName.normalized(channel) else { return file }
        return "\(channelsFolder)/\(channel)/\(file)"
    }

    /// Every repository path a catalog names: current pack (and variant) and patch files, retired files, and
    /// the packs (and patches) of a rollout's earlier versions.
    static func referencedPaths(_ catalog: Catalog) -> Set<String> {
        var paths = Set<String>()
        for p in catalog.packs + (catalog.rollout?.packs ?? []) {
            paths.formUnion(p.variantPaths)
            for patch in p.patches ?? [] { paths.insert(patch.path) }
        }
        for r in catalog.retired {
            paths.insert(r.path)
            // A base (a file of the variant's group) stays while a variant's file that takes
            // frames from it does.
            paths.formUnion(r.basePaths)
        }
        return paths
    }
}

/// The pack versions every channel of a repository has used, so that a version number is
/// allocated once across channels: a changed pack gets one more than the highest version it has
/// anywhere, and content promoted from another channel keeps that channel's number.
struct PackVersions {
    /// The highest version each pack ID has in any catalog (current, rollout, retired, removed).
    var highest: [String: Int] = [:]
    /// The version each (ID, pack digest) has in another channel's current packs.
    var byDigest: [String: [SHA256Digest: Int]] = [:]

    init(_ catalogs: [Catalog] = []) {
        for c in catalogs {
            for p in c.packs + (c.rollout?.packs ?? []) {
                note(p.id, p.version)
                byDigest[p.id, default: [:]][p.digest] = p.version
            }
            for r in c.retired { note(r.id, r.version) }
            for r in c.removed { note(r.id, r.version) }
        }
    }

    private mutating func note(_ id: String, _ version: Int) { highest[id] = max(highest[id] ?? 0, version) }

    /// Notes the versions a catalog payload (its JSON) names, as `init` does for a decoded
    /// catalog, reading only `packs`, `rollout.packs`, `retired` and `removed` (their `id`,
    /// `version` and `digest`); a payload that is not JSON, or an entry without them, adds nothing.
    mutating func note(payload: [UInt8]) {
        guard let root = try? JSONParser.parse(payload), case .object(let top) = root.value else { return }
        func member(_ members: [(key: String, value: JSONNode)], _ key: String) -> JSONValue? { members.first { $0.key == key }?.value.value }
        func entries(_ value: JSONValue?) -> [(id: String, version: Int, digest: SHA256Digest?)] {
            guard case .array(let list)? = value else { return [] }
            return list.compactMap { node in
                guard case .object(let m) = node.value, case .string(let id)? = member(m, "id"), case .number(let v)? = member(m, "version"),
                      let version = Int(exactly: v) else { return nil }
                var digest: SHA256Digest?
                if case .string(let hex)? = member(m, "digest") { digest = SHA256Digest(hex: hex) }
                return (id, version, digest)
            }
        }
        var current = entries(member(top, "packs"))
        if case .object(let rollout)? = member(top, "rollout") { current += entries(member(rollout, "packs")) }
        for p in current {
            note(p.id, p.version)
            if let digest = p.digest { byDigest[p.id, default: [:]][digest] = p.version }
        }
        for r in entries(member(top, "retired")) + entries(member(top, "removed")) { note(r.id, r.version) }
    }
}
