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
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: destination, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? fm.contentsOfDirectory(atPath: destination))?.isEmpty == true else {
                throw AppleArchiveError(.io, destination, at: nil, "already exists and is not an empty folder")
            }
        }
        let url = URL(fileURLWithPath: destination).standardizedFileURL
        let parent = url.deletingLastPathComponent()
        // Missing parent folders are created, and removed again if the extraction fails.
        var createdParents: [URL] = []
        var p = parent
        while !fm.fileExists(atPath: p.path) { createdParents.append(p); p = p.deletingLastPathComponent() }
        let staging = parent.path + "/.\(url.lastPathComponent).extracting-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        func removeParents() { for d in createdParents { rmdir(d.path) } }
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            removeParents()
            throw AppleArchiveError(.io, parent.path, at: nil, "cannot create the folder: \(error.localizedDescription)")
        }
        guard mkdir(staging, 0o755) == 0 else {
            let e = errno
            removeParents()
            throw AppleArchiveError(.io, staging, at: nil, "cannot create the staging folder: \(String(cString: strerror(e)))")
        }
        do throws(AppleArchiveError) {
            let root: ConfinedDirectory
            do { root = try ConfinedDirectory(root: staging) } catch { throw AppleArchiveError(.io, staging, at: nil, error.description) }
            var tree = ExtractedTree(root: root)
            while let entry = try reader.nextEntry() { try tree.create(entry, reading: reader) }
            try tree.finish()
            if isDirectory.boolValue { rmdir(destination) }
            guard rename(staging, destination) == 0 else {
                throw AppleArchiveError(.io, destination, at: nil, "cannot move the extracted tree into place: \(String(cString: strerror(errno)))")
            }
            return tree.summary
        } catch {
            if let root = try? ConfinedDirectory(root: parent.path) { try? root.removeTree(URL(fileURLWithPath: staging).lastPathComponent) }
            removeParents()
            throw error
        }
    }
}
