import AssetPackFormat
import Foundation

/// Extracts an Apple Archive into a folder that does not exist yet (or is empty): every entry
/// is written into a staging folder beside it through a `ConfinedDirectory`, so nothing is
/// reached through a symlink (one the archive made included) or outside the staging folder, and
/// the staging folder is renamed into place only when every entry was read, checked and written.
/// On any failure the staging folder is removed and the destination is left as it was.
///
/// What is created: files (data streamed from the archive, never held whole), folders, symlinks
/// (their targets are stored as given and never followed here). Permission bits come from `MOD`
/// without setuid, setgid and sticky bits; modification times from `MTM`. Owners, BSD flags and
/// extended attributes are not applied. Metadata entries are skipped and reported; devices,
/// fifos, sockets and unknown types are refused.
public struct AppleArchiveExtractor {
    public let threads: Int

    public init(threads: Int = SettingBounds.cores) { self.threads = threads }

    /// Extracts the archive file at `archive` to `destination`.
    @discardableResult
    public func extract(archiveAt archive: String, to destination: String) throws(AppleArchiveError) -> AppleArchiveExtractionSummary {
        try extract(try AppleArchiveReader(path: archive, threads: threads), to: destination)
    }

    /// Extracts what `reader` reads (from its first entry) to `destination`.
    @discardableResult
    public func extract(_ reader: AppleArchiveReader, to destination: String) throws(AppleArchiveError) -> AppleArchiveExtractionSummary {
        let staged: StagedDestination
        do { staged = try StagedDestination(destination) } catch { throw AppleArchiveError(.io, error.path, at: nil, error.reason) }
        do throws(AppleArchiveError) {
            let root: ConfinedDirectory
            do { root = try ConfinedDirectory(root: staged.staging) } catch { throw AppleArchiveError(.io, staged.staging, at: nil, error.description) }
            var tree = ExtractedTree(root: root)
            while let entry = try reader.nextEntry() { try tree.create(entry, reading: reader) }
            try tree.finish()
            do { try staged.commit() } catch { throw AppleArchiveError(.io, error.path, at: nil, error.reason) }
            return tree.summary
        } catch {
            staged.discard()
            throw error
        }
    }
}
