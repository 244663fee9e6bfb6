import AppleArchive
import AssetPackFormat
import Foundation

/// What `ApplePackImporter` made of an archive.
public struct ApplePackImportSummary: Sendable {
    /// An archive entry the pack does not take, and why.
    public struct Unexpected: Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The pack written.
    public let pack: PackSummary
    /// The archive's entries the layout does not expect (`ApplePackLayout`): outside
    /// `Contents/`, symbolic links, metadata entries. The pack does not hold them.
    public let unexpectedEntries: [Unexpected]
}

/// Turns an asset pack made by `xcrun ba-package` (an Apple Archive in `ApplePackLayout`) into
/// one of our packs with the same tree: the files under `Contents/`, at the same paths, with
/// their permission bits; the manifest gives the pack's metadata (its selectors are not read:
/// the files come from the archive).
///
/// The archive is extracted first to a staging folder beside the pack (`AppleArchiveExtractor`:
/// streamed, confined, refusing hostile archives with their entry and offset), then packed
/// from there by `PackWriter` in pack order; the staging folder is removed in every case. The
/// detour costs one more write of the content to disk, and buys the one hardened extraction and
/// the one pack writer as they are, each with memory bounded whatever the archive's size.
public struct ApplePackImporter {
    /// The writer of the pack (threads, level, chunking).
    public var writer: PackWriter
    /// Cores the archive's chunks are decoded on.
    public var threads: Int

    public init(writer: PackWriter = PackWriter(), threads: Int = SettingBounds.cores) {
        self.writer = writer
        self.threads = threads
    }

    /// Imports the archive at `archive` with the metadata of the manifest at `manifestPath` and
    /// writes the pack to `destination` (atomically). Throws `ApplePackError` for an invalid
    /// manifest or an archive without files under `Contents/`, `AppleArchiveError` for an
    /// archive that cannot be read; nothing is written then.
    public func importArchive(at archive: String, manifestAt manifestPath: String, to destination: String) throws -> ApplePackImportSummary {
        let decoded = ManifestDecoder.load(contentsOf: URL(fileURLWithPath: manifestPath), displayName: manifestPath)
        guard let manifest = decoded.manifest, !decoded.diagnostics.hasErrors else {
            throw ApplePackError.invalidManifest(path: manifestPath, diagnostics: decoded.diagnostics)
        }
        let target = URL(fileURLWithPath: destination)
        let stagingName = ".\(target.lastPathComponent).importing-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let staging = target.deletingLastPathComponent().path + "/" + stagingName
        // Removed through the folder it lies in, never following a link the archive made.
        defer { try? ConfinedDirectory(root: target.deletingLastPathComponent().path).removeTree(stagingName) }
        let extracted = try AppleArchiveExtractor(threads: threads).extract(archiveAt: archive, to: staging)

        var unexpected = extracted.skipped.map { ApplePackImportSummary.Unexpected(path: $0.path, reason: "a \($0.type) entry, not a file of the pack") }
        var files: [SelectedFile] = []
        let top = (try? FileManager.default.contentsOfDirectory(atPath: staging).sorted()) ?? []
        for name in top where name != ApplePackLayout.contentsFolder {
            unexpected.append(ApplePackImportSummary.Unexpected(path: name, reason: "outside \(ApplePackLayout.contentsFolder)/"))
        }
        if top.contains(ApplePackLayout.contentsFolder) {
            try collect(under: "\(staging)/\(ApplePackLayout.contentsFolder)", relative: "", into: &files, unexpected: &unexpected)
        }
        guard !files.isEmpty else { throw ApplePackError.notInLayout(archive: archive, topLevel: top) }
        files.sort { PackPath.precedes($0.packPath, $1.packPath) }
        let pack = try writer.write(metadata: PackMetadata(manifest), files: files, to: destination)
        return ApplePackImportSummary(pack: pack, unexpectedEntries: unexpected)
    }

    /// The regular files under `folder` (never following a link), as pack files.
    private func collect(under folder: String, relative: String, into files: inout [SelectedFile],
                         unexpected: inout [ApplePackImportSummary.Unexpected]) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let path = "\(folder)/\(name)", packPath = relative.isEmpty ? name : "\(relative)/\(name)"
            var status = stat()
            guard lstat(path, &status) == 0 else { throw PackWriteError.read(path, String(cString: strerror(errno))) }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: try collect(under: path, relative: packPath, into: &files, unexpected: &unexpected)
            case S_IFREG: files.append(SelectedFile(packPath: packPath, sourcePath: path, size: UInt64(status.st_size), mode: UInt32(status.st_mode & 0o7777)))
            default:
                unexpected.append(.init(path: ApplePackLayout.entryPath(of: packPath), reason: "a symbolic link; packs hold files and their folders"))
            }
        }
    }
}
