import AppleArchive
import AssetPackFormat

/// What an asset pack looks like as an Apple Archive made by `xcrun ba-package`, beyond its
/// files: the one place to correct once a real ba-package archive can be examined.
///
/// Known (a third-party observation of ba-package 1.2, not Apple documentation): the archive
/// holds the manifest's selected files under `Contents/<path relative to the source root>`.
///
/// Known from Apple's own archiver (`aa`, the Sparkle sample in the tests): each folder is an
/// entry of its own that comes before what it holds, there is no entry for the archive's root,
/// and every header carries `TYP PAT [LNK] UID GID MOD FLG CTM MTM [DAT]`
/// (`AppleArchiveEntryHeader`).
///
/// Assumed, because ba-package's output is not public:
/// - the codec is LZFSE in 4 MiB blocks (what Apple's tools default to);
/// - there are no hash fields (`CKS`, `SH2`…) and no extended attributes;
/// - no manifest or other metadata entry is embedded: the download manifest travels beside
///   the archive (`ba-package download-manifest create`), not inside it;
/// - the `Contents` folder and every folder on the way to a file are entries (mode 0755), and
///   files keep their permission bits (mode & 0777, as our packs do).
/// An importer tolerates entries outside `Contents/` and reports them (`unexpectedEntries`).
public enum ApplePackLayout {
    /// The folder every pack file lies under.
    public static let contentsFolder = "Contents"
    /// The codec ba-package is assumed to write.
    public static let compression: AppleArchiveCompression = .lzfse
    /// The mode of the folder entries.
    public static let folderMode: UInt16 = 0o755

    /// The archive path of a pack file.
    public static func entryPath(of packPath: String) -> String { "\(contentsFolder)/\(packPath)" }

    /// The pack path of an archive entry under `Contents/`, or nil for an entry elsewhere
    /// (`Contents` itself included).
    public static func packPath(ofEntry path: String) -> String? {
        let prefix = "\(contentsFolder)/"
        guard path.hasPrefix(prefix), path.utf8.count > prefix.utf8.count else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    /// The permission bits a file entry carries.
    public static func fileMode(_ mode: UInt32) -> UInt16 { UInt16(mode & 0o777) }

    /// The folder entries to write before the file at `entryPath`, given the last file's
    /// entry path (folders already written are the ancestors of the file before): the ancestors
    /// of `entryPath` that are not ancestors of `previous`, outermost first.
    static func newFolders(before entryPath: String, after previous: String?) -> [String] {
        let components = entryPath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let previousComponents = previous.map { $0.split(separator: "/", omittingEmptySubsequences: false).dropLast() } ?? []
        var shared = 0
        while shared < min(components.count, previousComponents.count),
              components[components.startIndex + shared] == previousComponents[previousComponents.startIndex + shared] {
            shared += 1
        }
        return (shared..<components.count).map { components.prefix($0 + 1).joined(separator: "/") }
    }
}
