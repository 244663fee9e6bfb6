import AppleArchive
import AssetPackFormat
import AssetPackPackaging
import Foundation

/// How `Publisher` publishes: where, for how long, what to keep and what to check.
public struct PublishOptions {
    /// The repository folder; created (its parent must exist) on the first publish.
    public var repository: String
    /// How long the new catalog stays valid (`--expires`, default 30 days).
    public var expiresIn: TimeInterval = 30 * 86_400
    /// How many versions of each pack keep their files, the current one included (`--keep`).
    public var keep = 2
    /// How patch files are made (zstd level, base sizes); the writer's threads follow `writer`.
    public var patches = PatchWriter()
    /// Lint only (`--check`): nothing is written to the repository.
    public var checkOnly = false
    public var lint = LintOptions()
    /// The clock the catalog's `published` and `expires` come from.
    public var now = Date()
    /// What manifest selector paths resolve against (as `assetpack package`: the current directory).
    public var baseDirectory = FileManager.default.currentDirectoryPath
    public var writer = PackWriter()
    /// Where the publish cache lives (`--cache`); nil puts it beside the repository
    /// (`defaultCachePath`), never inside it: what is in the repository is uploaded and served.
    public var cachePath: String?
    /// What the publish does with the cache (`--no-cache` is `.refresh`).
    public var cacheUse = PublishCacheUse.reuse
    /// Fault injection for tests: runs after each pack is packaged (with its ID), before its
    /// files are stat'd again — a file changed here has changed while it was packaged.
    public var afterPackaging: ((String) throws -> Void)?
    /// Fault injection for tests: runs once the new pack files are in place, just before the
    /// catalog is written; an error thrown here must leave the repository as it was.
    public var beforeCatalogCommit: (() throws -> Void)?
    /// The online timestamp key (`--timestamp-key`): required when the repository has a root
    /// (`roots/`), whose timestamp keys must name it; `timestamp.json` is signed with it right
    /// after the catalog.
    public var timestampKey: SigningKey?
    /// Read-order hints by pack ID (`--read-order ID=FILE`): paths of files or folders of the
    /// pack in the order an app needs them, recorded in the catalog entry's `readOrder`.
    public var readOrder: [String: [String]] = [:]
    /// How long the new timestamp stays valid (default 1 day).
    public var timestampExpiresIn: TimeInterval = TimestampSigner.defaultExpiry

    /// The channel to publish to (`--channel`): nil for the default channel (`DIR/catalog.json`),
    /// else `DIR/channels/NAME/catalog.json`.
    public var channel: String?
    /// A staged rollout (`--rollout P%`): the new versions go to P % of clients (0…100), the
    /// previous catalog's packs to the others; nil publishes to every client.
    public var rolloutPercent: Int?
    /// Packs to publish sealed (`--encrypt`, repeatable; docs/PUBLISHING.md, "Paid packs"). A
    /// pack that already has a key in the key store stays sealed whether named here or not.
    public var encrypt: Set<String> = []
    /// Sealed packs that get a new content key (`--rotate-key`): every chunk is sealed again.
    public var rotateKey: Set<String> = []
    /// The key store (`--key-store`): required to publish or rotate a sealed pack; created 0600
    /// when missing, refused with other permissions, never inside the repository.
    public var keyStorePath: String?

    /// Where Apple devices download the archives (`--apple-base-url`): with it, the publish also
    /// writes the channel's `apple/` folder (`AppleHostingLayout`): an Apple Archive per pack and
    /// the download manifest naming `BASE/<pack ID>`. Checked by `AppleBaseURL`.
    public var appleBaseURL: String?
    /// The codec of those archives (`--apple-compression`; LZFSE, as Apple's tools write).
    public var appleCompression = AppleArchiveCompression.lzfse

    public init(repository: String) { self.repository = repository }

    /// The key store's path, checked to lie outside the repository (links resolved); nil when
    /// no key store was given.
    func resolvedKeyStorePath() throws -> String? {
        guard let path = keyStorePath else {
            if let id = (encrypt.union(rotateKey)).sorted().first {
                throw PublishError.invalidOption("--encrypt and --rotate-key \(id) need --key-store FILE: the content keys are kept there")
            }
            return nil
        }
        func resolved(_ p: String) -> String {
            let url = URL(fileURLWithPath: p).standardizedFileURL
            let parent = url.deletingLastPathComponent().path
            let real = Self.realPath(parent) ?? parent
            return real == "/" ? "/" + url.lastPathComponent : real + "/" + url.lastPathComponent
        }
        let repo = Self.realPath(repository)
            ?? URL(fileURLWithPath: repository).standardizedFileURL.path
        let file = resolved(path)
        guard file != repo, !file.hasPrefix(repo == "/" ? "/" : repo + "/") else {
            throw PublishError.invalidOption("the key store \(path) would lie inside the repository, which is uploaded and served as is: anyone could read the content keys; put it elsewhere")
        }
        return path
    }

    /// The cache beside a repository folder: `site` → `.site.publish-cache.json` in the folder
    /// that holds `site`.
    public static func defaultCachePath(repository: String) -> String {
        let url = URL(fileURLWithPath: repository).standardizedFileURL
        let name = url.lastPathComponent == "/" ? "root" : url.lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name).publish-cache.json").path
    }

    /// The cache file this publish uses, or nil with `.off`; refuses a path inside the repository.
    public func resolvedCachePath() throws -> String? {
        guard cacheUse != .off else { return nil }
        let path = cachePath ?? Self.defaultCachePath(repository: repository)
        let repo = URL(fileURLWithPath: repository).standardizedFileURL.path
        let file = URL(fileURLWithPath: path).standardizedFileURL.path
        guard !file.hasPrefix(repo == "/" ? "/" : repo + "/") else {
            throw PublishError.invalidOption("the publish cache \(path) would lie inside the repository, which is uploaded and served as is; put it elsewhere")
        }
        return path
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

/// How a publish uses its cache (docs/PUBLISHING.md, "The publish cache").
public enum PublishCacheUse: Sendable {
    /// Reuse the pack files of packs whose inputs are unchanged; record this publish's packs.
    case reuse
    /// Package every pack, then record this publish's packs (`--no-cache`).
    case refresh
    /// Neither read nor write a cache.
    case off
}

/// How one pack of a publish was obtained.
public struct PackBuild: Sendable, Equatable {
    public var id: String
    /// True when the pack file already in the repository was reused (its inputs were unchanged
    /// since the publish that recorded it); false when it was packaged.
    public var reused: Bool
    /// True when the publish cache now records this pack. False with `--check`, with the cache
    /// off or unwritable, and when a file of the pack changed while it was packaged or in the
    /// second or two before the publish started.
    public var cached: Bool
    /// The device variant's name (`VariantConditions.name`) for a variant's pack; nil for a
    /// default or plain pack.
    public var variant: String? = nil
}

/// What happened to one pack in a publish.
public struct PackChange: Sendable, Equatable {
    public enum Kind: String, Sendable { case added, updated, unchanged, removed }
    public var id: String
    public var kind: Kind
    public var previousVersion: Int?
    /// The version now in the catalog (nil for a removed pack).
    public var version: Int?
}

/// The outcome of a publish (or of `--check`).
public struct PublishReport: Sendable {
    /// Warnings from the manifests and the linter (errors end the publish with `PublishError`).
    public var diagnostics: [Diagnostic] = []
    public var findings: [LintFinding] = []
    /// The catalog written; nil with `--check`.
    public var catalog: Catalog?
    public var changes: [PackChange] = []
    /// Old pack files removed by the retention rule, relative to the repository.
    public var deletedFiles: [String] = []
    /// Problems after the catalog was in place (a file that could not be deleted): the publish
    /// succeeded, the repository merely holds more than it needs.
    public var cleanupWarnings: [String] = []
    /// One entry per manifest, in the order given (also with `--check` when it packaged).
    public var builds: [PackBuild] = []
    /// The publish cache file used, if any.
    public var cachePath: String?
    /// Problems with the publish cache (ignored, unusable entries, not written, files that changed
    /// while packaged): never fatal, the publish is complete without the cache.
    public var cacheWarnings: [String] = []
    /// The timestamp written with the catalog (a repository with a root).
    public var timestamp: TimestampMetadata?
    /// Patch files written by this publish, relative to the repository.
    public var patchFiles: [String] = []
    /// Why this publish made no patches where it might have (`--keep 1`), if so.
    public var patchNote: String?
    /// For each pack this publish changed, what a client on each kept earlier version fetches
    /// and writes to reach the new one.
    public var updates: [UpdateSize] = []
    /// What the publish wrote for Apple devices (with `appleBaseURL`).
    public var apple: ApplePublishSummary?
    /// Why the channel's `apple/` folder may be out of date (a publish without `appleBaseURL`
    /// into a channel that has one), or a source file that changed while it was archived.
    public var appleWarnings: [String] = []
}

/// Why a publish stopped. Whatever the case, the repository is as it was before.
public enum PublishError: Error, CustomStringConvertible {
    case invalidManifests([Diagnostic])
    case lintFailed([LintFinding])
    case existingCatalog(path: String, CatalogError)
    case invalidOption(String)
    case io(String)
    /// The repository's root or timestamp files refuse this publish (a catalog key the root does
    /// not name, a missing timestamp key, a broken root chain).
    case trust(String)

    public var description: String {
        switch self {
        case .invalidManifests(let d):
            return "\(d.filter { $0.severity == .error }.count) error(s) in the manifests; nothing was published"
        case .lintFailed(let f):
            return "\(f.filter { $0.severity == .error }.count) lint error(s); nothing was published"
        case .existingCatalog(let path, let error):
            if case .wrongKey = error { return "\(path): \(error); refusing to replace a catalog signed by another key" }
            return "\(path): the existing catalog does not verify with this key: \(error)"
        case .invalidOption(let m), .io(let m), .trust(let m):
            return m
        }
    }
}
