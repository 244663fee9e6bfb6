import AppleArchive
import AssetPackFormat
import AssetPackPackaging
import Foundation

/// The Apple side of a publish with `--apple-base-url` (docs/HOSTING.md, "Apple devices"):
/// the channel's `apple/` folder (`AppleHostingLayout`) gets one Apple Archive per pack at
/// `assets/<pack ID>` and the download manifests naming them, inside the publish's transaction:
/// archives and manifests replace the old ones before the catalog is written, the replaced files
/// wait in staging, and a publish that fails puts them back.
///
/// Incremental like the packs: an archive the publish cache recorded for the same pack digest
/// and settings, and still in place as recorded, is kept without reading it; one made again that
/// comes out byte for byte as the file in place keeps that file (and so its ETag). Sealed packs
/// are left out: an Apple Archive is not encrypted, anyone could read it.
struct ApplePublication {
    let baseURL: String
    let channel: String?
    let archiver: ApplePackArchiver
    let transaction: RepositoryTransaction
    /// The records of the last publishes; empty when the cache is not used.
    let records: [String: AppleArchiveRecord]

    var settingsText: String { "apple-archive \(archiver.compression.rawValue) \(archiver.blockSize)" }

    /// Writes the archives and manifests of `packs` (the new catalog's), made from `inputs`
    /// (by pack ID). Returns what it did and the records for the publish cache.
    func publish(_ packs: [CatalogPack], inputs: [String: ResolvedManifest]) throws -> (ApplePublishSummary, [AppleArchiveRecord]) {
        guard let folder = transaction.folder else { throw PublishError.io("the publish into \(transaction.repository) has ended") }
        var summary = ApplePublishSummary(manifestPath: AppleHostingLayout.manifestPath(channel: channel))
        var records: [AppleArchiveRecord] = []
        var manifest = AppleDownloadManifest(entries: [])
        for (i, pack) in packs.sorted(by: { $0.id < $1.id }).enumerated() {
            guard pack.sealed == nil else { summary.leftOut.append(pack.id); continue }
            guard let input = inputs[pack.id] else { throw PublishError.io("no manifest of this publish has the pack \(pack.id)") }
            let path = AppleHostingLayout.archivePath(channel: channel, id: pack.id)
            let (stamp, written, record) = try archive(pack, input: input, path: path, staged: "\(transaction.staging)/apple-\(i)", in: folder)
            if let record { records.append(record) } else if written { summary.changedWhileArchived.append(pack.id) }
            summary.archives.append(AppleArchiveChange(id: pack.id, version: pack.version, size: stamp.size, written: written))
            manifest.entries.append(.init(id: pack.id, url: baseURL + "/" + pack.id, version: pack.version, downloadSize: stamp.size,
                                          downloadPolicy: pack.downloadPolicy, platforms: pack.platforms, userInfo: pack.userInfo))
        }
        let kept = Set(manifest.entries.map(\.id))
        let assets = AppleHostingLayout.assetsFolder(channel: channel)
        for name in try RepositoryTransaction.confined({ () throws(ConfinementError) in try folder.entries(assets) }).sorted() where !kept.contains(name) {
            try transaction.setAside(assets + "/" + name)
            if !name.hasPrefix(".") { summary.removed.append(name) }
        }
        try write(manifest.encoded(), at: AppleHostingLayout.manifestPath(channel: channel), in: folder)
        for platform in Platform.allCases {
            try write(manifest.filtered(for: platform).encoded(), at: AppleHostingLayout.manifestPath(channel: channel, platform: platform), in: folder)
        }
        return (summary, records)
    }

    /// Puts the archive of `pack` at `path`, unless the file there already is it. Returns the
    /// stamp of the file in place, whether it was written, and its record for the cache (nil
    /// when a source file changed while it was archived: the next publish makes it again).
    private func archive(_ pack: CatalogPack, input: ResolvedManifest, path: String, staged: String,
                         in folder: ConfinedDirectory) throws -> (FileStamp, Bool, AppleArchiveRecord?) {
        let existing = Self.stamp(path, in: folder)
        if let existing, let record = records[path], record.packDigest == pack.digest, record.settings == settingsText, record.describes(existing) {
            return (existing, false, record)
        }
        let before = StampRecord.of(input.files)
        do { _ = try archiver.write(input, to: staged) } catch {
            throw PublishError.io("\(input.path): cannot write the Apple Archive of \(pack.id): \(error)")
        }
        let settled = before.map { $0.firstChange(in: input.files) == nil } ?? false
        if existing != nil, let fd = try? folder.open(path, flags: O_RDONLY) {
            let same = FileDigest.of(descriptor: fd) == FileDigest.of(staged)
            let stamp = FileStamp(descriptor: fd)
            close(fd)
            if same, let stamp {
                unlink(staged)
                return (stamp, false, settled ? AppleArchiveRecord(path: path, packDigest: pack.digest, settings: settingsText, stamp: stamp) : nil)
            }
        }
        try transaction.replace(staged, at: path)
        guard let stamp = Self.stamp(path, in: folder) else { throw PublishError.io("cannot read back \(folder.display(path))") }
        return (stamp, true, settled ? AppleArchiveRecord(path: path, packDigest: pack.digest, settings: settingsText, stamp: stamp) : nil)
    }

    /// Writes a manifest file unless the file in place holds these bytes already (its ETag stays).
    private func write(_ bytes: [UInt8], at path: String, in folder: ConfinedDirectory) throws {
        if let current = try? folder.contents(of: path), current == bytes { return }
        let staged = "\(transaction.staging)/apple-manifest-\((path as NSString).lastPathComponent)"
        let file = try AtomicFile(destination: staged)
        try file.write(bytes)
        try file.commit()
        try transaction.replace(staged, at: path)
    }

    /// The stamp of the regular file at `path`, opened beneath the repository with no link
    /// followed; nil when there is none (or something else is there).
    private static func stamp(_ path: String, in folder: ConfinedDirectory) -> FileStamp? {
        guard let fd = try? folder.open(path, flags: O_RDONLY | O_NONBLOCK) else { return nil }
        defer { close(fd) }
        guard let stamp = FileStamp(descriptor: fd), stamp.mode & UInt32(S_IFMT) == UInt32(S_IFREG) else { return nil }
        return stamp
    }
}

/// What a publish did in the channel's `apple/` folder.
public struct ApplePublishSummary: Sendable, Equatable {
    /// The download manifest, relative to the repository.
    public var manifestPath: String
    /// Every pack of the manifest, in ID order.
    public var archives: [AppleArchiveChange] = []
    /// Sealed packs, which get no Apple Archive.
    public var leftOut: [String] = []
    /// Archives deleted: their packs left the catalog (or became sealed).
    public var removed: [String] = []
    /// Packs a source file of which changed while their archive was written.
    public var changedWhileArchived: [String] = []
}

/// One pack's Apple Archive after a publish.
public struct AppleArchiveChange: Sendable, Equatable {
    public var id: String
    /// The manifest's `version`: the catalog's pack version.
    public var version: Int
    /// The archive's size in bytes (the manifest's `downloadSize`).
    public var size: UInt64
    /// False when the archive in place was kept (unchanged).
    public var written: Bool
}
