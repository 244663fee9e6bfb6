import AssetPackFormat

/// Where things live under the storage root (docs/FORMAT.md, "Client storage"). The one place
/// that spells a storage path: everyone else asks it.
///
///     lock                             flock'd by the manager using the root; holds its pid
///     state.sqlite                     the client store (WAL)
///     packs/<id>/<version>-<digest16>/ an installed pack's files, made visible by one rename
///     staging/<id>-<digest16>/         a download in progress: index, part-<k>, files/
///     agent.sock                       the agent's local API (AssetPackAgent), mode 0600
///     agent.sqlite                     the agent's queue of accepted requests
///
/// Paths the store records (`installDirectory`, `stagingDirectory`) are relative to the root;
/// `absolute(_:)` makes them whole. `lock`, `database`, `packs`, `staging` and
/// `versionsFolder(of:)` are absolute. The `staged…` and `partSpool` paths are inside a staging
/// folder given either way.
package struct StorageLayout: Sendable {
    package let root: String

    package init(root: String) { self.root = root }

    private static let lockName = "lock"
    private static let databaseName = "state.sqlite"
    private static let packsName = "packs"
    private static let stagingName = "staging"
    private static let stagedIndexName = "index"
    private static let stagedFilesName = "files"
    private static let partSpoolPrefix = "part-"
    /// Downloads of earlier client versions kept their frames in `segment-<n>` files.
    private static let obsoleteSegmentPrefix = "segment-"
    private static let agentSocketName = "agent.sock"
    private static let agentDatabaseName = "agent.sqlite"

    /// The storage lock (`StorageLock`).
    var lock: String { absolute(Self.lockName) }
    /// The client store (`ClientStore`).
    var database: String { absolute(Self.databaseName) }
    /// The folder of installed packs.
    var packs: String { absolute(Self.packsName) }
    /// The folder of downloads in progress.
    var staging: String { absolute(Self.stagingName) }
    /// The agent's Unix socket (`AssetPackAgent`), unless it is given another.
    package var agentSocket: String { absolute(Self.agentSocketName) }
    /// The agent's queue of accepted requests.
    package var agentDatabase: String { absolute(Self.agentDatabaseName) }

    /// The folder holding the version folders of installed pack `id`.
    func versionsFolder(of id: String) -> String { packs + "/" + id }

    /// Where a pack version is installed, relative to the root.
    func installDirectory(id: String, version: Int, digest: SHA256Digest) -> String {
        installDirectory(id: id, folder: "\(version)-\(digest.hex.prefix(16))")
    }

    /// The version folder `folder` of pack `id` (as found on disk), relative to the root.
    func installDirectory(id: String, folder: String) -> String {
        "\(Self.packsName)/\(id)/\(folder)"
    }

    /// Where the download of a pack version is assembled, relative to the root.
    func stagingDirectory(id: String, digest: SHA256Digest) -> String {
        stagingDirectory(named: "\(id)-\(digest.hex.prefix(16))")
    }

    /// The staging folder `name` (as found on disk), relative to the root.
    func stagingDirectory(named name: String) -> String {
        "\(Self.stagingName)/\(name)"
    }

    /// The folder a download assembles the pack's files in (`PackInstaller.filesDirectory`),
    /// renamed into `packs/` when it is complete.
    static func stagedFiles(_ staging: String) -> String { staging + "/" + stagedFilesName }

    /// The pack index a download saved once it hashed to the pack digest.
    static func stagedIndex(_ staging: String) -> String { staging + "/" + stagedIndexName }

    /// Part `k`'s spool: bytes received and not yet placed.
    static func partSpool(_ staging: String, part k: Int) -> String { staging + "/" + partSpoolPrefix + "\(k)" }

    /// Whether `name`, an entry of a staging folder, was left by an earlier client version and
    /// is of no use.
    static func isObsoleteStagedEntry(_ name: String) -> Bool { name.hasPrefix(obsoleteSegmentPrefix) }

    /// The file at `path` (pack-relative) in the installed pack folder `directory` (relative).
    func installedFile(_ path: String, in directory: String) -> String { absolute(directory) + "/" + path }

    /// `relative` (a path the store records) under the root.
    func absolute(_ relative: String) -> String { root + "/" + relative }
}
