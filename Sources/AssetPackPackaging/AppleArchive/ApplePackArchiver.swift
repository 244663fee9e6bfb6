import AppleArchive
import AssetPackFormat
import Foundation

/// What `ApplePackArchiver` wrote.
public struct ApplePackArchiveSummary: Sendable, Equatable {
    /// Entries in the archive: the files and the folders (`Contents` included).
    public let entryCount: Int
    /// Files among them.
    public let fileCount: Int
    /// The size of the archive file.
    public let archiveSize: Int64
    /// The sum of the files' sizes.
    public let contentSize: Int64
}

/// Writes an asset pack as the Apple Archive `xcrun ba-package` makes of the same manifest
/// (`ApplePackLayout`): the selected files under `Contents/`, in pack order, each folder before
/// what it holds. Written atomically; the same files give the same bytes whatever `threads`.
public struct ApplePackArchiver: Sendable {
    public var compression: AppleArchiveCompression
    /// Bytes of the AA01 stream per container block (`AppleArchiveWriter.blockSizes`).
    public var blockSize: Int
    /// Blocks compressed at once (`SettingBounds.threads`).
    public var threads: Int

    public init(compression: AppleArchiveCompression = ApplePackLayout.compression, blockSize: Int = AppleArchiveWriter.defaultBlockSize,
                threads: Int = SettingBounds.cores) {
        self.compression = compression
        self.blockSize = blockSize
        self.threads = threads
    }

    /// Resolves the manifest at `manifestPath` (selector paths against `baseDirectory`) and
    /// writes its archive to `path`. An invalid manifest writes nothing and throws
    /// `ApplePackError.invalidManifest` with its diagnostics.
    public func write(manifestAt manifestPath: String, baseDirectory: String = FileManager.default.currentDirectoryPath,
                      to path: String) throws -> ApplePackArchiveSummary {
        try write(ResolvedManifest(path: manifestPath, baseDirectory: baseDirectory), to: path)
    }

    /// Writes the archive of a resolved manifest's files to `path`.
    public func write(_ resolved: ResolvedManifest, to path: String) throws -> ApplePackArchiveSummary {
        guard resolved.isValid else { throw ApplePackError.invalidManifest(path: resolved.path, diagnostics: resolved.diagnostics) }
        let writer = try AppleArchiveWriter(path: path, compression: compression, blockSize: blockSize, threads: threads)
        defer { writer.discard() }
        try writer.addDirectory(ApplePackLayout.contentsFolder, mode: ApplePackLayout.folderMode)
        var entries = 1
        var contentSize: Int64 = 0
        var previous: String?
        // By index: iterating would copy each file, retaining its paths.
        for i in resolved.files.indices {
            let entry = ApplePackLayout.entryPath(of: resolved.files[i].packPath)
            for folder in ApplePackLayout.newFolders(before: entry, after: previous) where folder != ApplePackLayout.contentsFolder {
                try writer.addDirectory(folder, mode: ApplePackLayout.folderMode)
                entries += 1
            }
            try writer.addFile(entry, mode: ApplePackLayout.fileMode(resolved.files[i].mode), sourcePath: resolved.files[i].sourcePath,
                               size: resolved.files[i].size)
            entries += 1
            contentSize += Int64(resolved.files[i].size)
            previous = entry
        }
        let size = try writer.finish()
        return ApplePackArchiveSummary(entryCount: entries, fileCount: resolved.files.count, archiveSize: size, contentSize: contentSize)
    }
}
