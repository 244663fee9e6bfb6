import AssetPackFormat
import Foundation

/// Where things live under the storage root (docs/FORMAT.md, "Client storage"). The one place
/// that spells a storage path: everyone else asks it.
///
///     lock                             flock'd by the manager using the root; holds its pid
///     state.sqlite                     the client store (WAL)
///     packs/<id>/<version>-<digest16>/ an installed pack's files, made visible by one rename
///     staging/<id>-<digest16>/         a download in progress: index, part-<k>, files/; files read
///                                      progressively: progressive/ (complete verified files),
///                                      incoming/ (files being fetched, never read)
///     agent.sock                       the agent's local API (AssetPackAgent), mode 0600
///     agent.sqlite                     the agent's queue of accepted requests
///
/// Paths the store records (`installDirectory`, `stagingDirectory`) are relative to the root;
/// `absolute(_:)` makes them whole. `lock`, `database`, `packs`, `staging` and
/// `versionsFolder(of:)` are absolute. The `staged…` and `partSpool` paths are inside a staging
/// folder given either way.
///
/// Nothing below the root is opened by path: `openRoot()` gives the root as a
/// `ConfinedDirectory`, through which every open, rename and removal resolves relative paths
/// without following a symbolic link at any component (another process of the user could plant
/// one between two runs). A path read back from the store is used only once
/// `checkedInstallDirectory`/`checkedStagingDirectory` found it in the form this layout gives it.
package struct StorageLayout: Sendable {
    package let root: String

    package init(root: String) { self.root = root }

    private static let lockName = "lock"
    private static let databaseName = "state.sqlite"
    private static let packsName = "packs"
    private static let stagingName = "staging"
    private static let retiredName = "retired"
    private static let stagedIndexName = "index"
    private static let stagedFilesName = "files"
    private static let stagedPatchTableName = "patch-table"
    private static let partSpoolPrefix = "part-"
    private static let progressiveName = "progressive"
    private static let incomingName = "incoming"
    private static let stagedSeedsName = "seeded-chunks"
    private static let stagedPartsName = "parts"
    /// Downloads of earlier client versions kept their frames in `segment-<n>` files.
    private static let obsoleteSegmentPrefix = "segment-"
    private static let agentSocketName = "agent.sock"
    private static let entitlementName = "entitlement"
    private static let agentDatabaseName = "agent.sqlite"

    /// The storage lock (`StorageLock`).
    var lock: String { absolute(Self.lockName) }
    /// The command-line client's entitlement token for paid packs (mode 0600), relative to the root.
    var entitlementFile: String { Self.entitlementName }
    /// The storage lock, relative to the root.
    var lockFile: String { Self.lockName }
    /// The folder of installed packs, relative to the root.
    var packsFolder: String { Self.packsName }
    /// The folder of downloads in progress, relative to the root.
    var stagingFolder: String { Self.stagingName }
    /// The folder of folders the store no longer references, being deleted
    /// (`RetiredFolders`), relative to the root.
    var retiredFolder: String { Self.retiredName }
    /// The folder holding the version folders of installed pack `id`, relative to the root.
    func versionsFolder(relativeOf id: String) -> String { Self.packsName + "/" + id }
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

    /// The patch table a download plans with (empty: the download uses no patches), saved once
    /// it hashed to the catalog's figure, so that a resumed run makes the same plan.
    static func stagedPatchTable(_ staging: String) -> String { staging + "/" + stagedPatchTableName }

    /// The folder of files read progressively from that pack version (`AssetReadAccess`): each
    /// one complete and verified, placed by one rename; a later download of the version links
    /// them into `files/` instead of fetching them again.
    static func progressiveFiles(_ staging: String) -> String { staging + "/" + progressiveName }

    /// Where a progressive read writes its file before renaming it into `progressiveFiles`;
    /// what a killed process left there is removed at the next start.
    static func progressiveIncoming(_ staging: String) -> String { staging + "/" + incomingName }

    /// Whether `name`, an entry of `staging/`, is a staging folder of a version of pack `id`
    /// (`<id>-` and 16 lowercase hex digits).
    static func isStagingFolder(_ name: String, of id: String) -> Bool {
        guard name.hasPrefix(id + "-") else { return false }
        let digest = name.utf8.dropFirst(id.utf8.count + 1)
        return digest.count == 16 && digest.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The chunks a download takes from seed folders (chunk numbers, 4 bytes little-endian
    /// each): the part spools' download offsets were planned without them.
    static func stagedSeededChunks(_ staging: String) -> String { staging + "/" + stagedSeedsName }

    /// The parts of a download as they stood at its last split (`InstallPart.encode`), so that a
    /// resumed run takes up the same parts and their spools.
    static func stagedParts(_ staging: String) -> String { staging + "/" + stagedPartsName }

    /// Whether `name`, an entry of a staging folder, is a part's spool.
    static func isPartSpool(_ name: String) -> Bool { name.hasPrefix(partSpoolPrefix) }

    /// Part `k`'s spool: bytes received and not yet placed.
    static func partSpool(_ staging: String, part k: Int) -> String { staging + "/" + partSpoolPrefix + "\(k)" }

    /// Whether `name`, an entry of a staging folder, was left by an earlier client version and
    /// is of no use.
    static func isObsoleteStagedEntry(_ name: String) -> Bool { name.hasPrefix(obsoleteSegmentPrefix) }

    /// The file at `path` (pack-relative) in the installed pack folder `directory`, both and the
    /// result relative to the root.
    func installedFile(_ path: String, in directory: String) -> String { directory + "/" + path }

    /// `relative` (a path the store records) under the root.
    func absolute(_ relative: String) -> String { root + "/" + relative }

    // MARK: Confinement

    /// The root (created if needed), through which every path below it is opened.
    func openRoot() throws -> ConfinedDirectory {
        try Self.confined { () throws(ConfinementError) in try ConfinedDirectory(root: root, create: true) }
    }

    /// Runs `body`, reporting a path refused or failed below the root as a storage error.
    static func confined<T>(_ body: () throws(ConfinementError) -> T) throws -> T {
        do { return try body() } catch { throw AssetPackManagerError.storage(error.description) }
    }

    /// `recorded`, the install folder the store gives pack `id`, when it has the form
    /// `packs/<id>/<folder>` this layout gives it; a storage error naming it otherwise (a
    /// tampered store may point anywhere, `..` or an absolute path included).
    func checkedInstallDirectory(_ recorded: String, id: String) throws -> String {
        let parts = recorded.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.packsName, parts[1] == id, Self.isPlainName(parts[2]), Self.isPlainName(parts[1]) else {
            throw AssetPackManagerError.storage("the store records \(recorded) as the folder of \(id), not a folder \(Self.packsName)/\(id)/<version> inside \(root) (refused: the store was tampered with)")
        }
        return recorded
    }

    /// `recorded`, the staging folder the store gives a download of pack `id`, when it has the
    /// form `staging/<id>-<digest16>`; a storage error naming it otherwise.
    func checkedStagingDirectory(_ recorded: String, id: String) throws -> String {
        let parts = recorded.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == Self.stagingName, Self.isPlainName(parts[1]), parts[1].hasPrefix(id + "-") else {
            throw AssetPackManagerError.storage("the store records \(recorded) as the staging folder of \(id), not a folder \(Self.stagingName)/\(id)-<digest> inside \(root) (refused: the store was tampered with)")
        }
        return recorded
    }

    /// Refuses a link in place of the store's files (a symbolic link, or a hard link: a second
    /// name of a file elsewhere). SQLite opens `state.sqlite` without following a link, but not
    /// its `-wal`, `-shm` and `-journal` files, which it would write through.
    func checkStoreFiles(in root: ConfinedDirectory) throws {
        try checkDatabaseFiles(named: Self.databaseName, in: root)
    }

    /// The same for the agent's queue (`agent.sqlite` and its companions).
    package func checkAgentDatabaseFiles() throws {
        try checkDatabaseFiles(named: Self.agentDatabaseName, in: try openRoot())
    }

    private func checkDatabaseFiles(named databaseName: String, in root: ConfinedDirectory) throws {
        for name in [databaseName, databaseName + "-wal", databaseName + "-shm", databaseName + "-journal"] {
            let fd: Int32
            do { fd = try root.open(name, flags: O_RDONLY | O_NONBLOCK) } catch {
                if error.isMissing { continue }
                throw AssetPackManagerError.storage(error.description)
            }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 1 else {
                throw AssetPackManagerError.storage("\(absolute(name)): not a regular file of its own (a link to another file?); refusing to open the store through it")
            }
        }
    }

    /// Whether `name` is one plain path component.
    private static func isPlainName(_ name: Substring) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0)
    }
}
