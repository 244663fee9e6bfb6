import AssetPackFormat
import Foundation

extension PackWriter {
    /// Resolves the manifest at `path` and writes its pack to `destination`, packing while the
    /// selection still walks the source tree (`SelectedFileFeed`): the walk runs on a thread of
    /// its own and hands its files on in pack order, the writer reads and compresses them as
    /// they come, holding a window of the files rather than their list (`SelectedFileFeed`). The
    /// result is the same pack as `write(metadata:files:to:)` of the resolved files gives: when
    /// the files do not come in pack order (several selectors, or a link that sorts otherwise than
    /// what it leads to) the tree is selected again, whole, and the sorted list is packed.
    ///
    /// - Returns: the resolved manifest with every diagnostic, and the summary — nil when the
    ///   manifest is not valid (nothing is written then; the diagnostics say why).
    public func write(manifestAt path: String, baseDirectory: String = FileManager.default.currentDirectoryPath,
                      to destination: String) throws -> (resolved: ResolvedManifest, summary: PackSummary?) {
        let decoded = ManifestDecoder.load(contentsOf: URL(fileURLWithPath: path), displayName: path)
        guard let manifest = decoded.manifest, !decoded.diagnostics.hasErrors else {
            return (ResolvedManifest(path: path, decoded: decoded, baseDirectory: baseDirectory), nil)
        }
        let feed = SelectedFileFeed()
        // Folders nest as deep as a source tree does; the walk recurses once a level.
        let selection = WorkerThread(stackSize: 16 << 20) { ResolvedManifest(path: path, decoded: decoded, baseDirectory: baseDirectory, feed: feed) }
        let written = Result { try write(metadata: PackMetadata(manifest), feed: feed, to: destination) }
        let resolved = selection.result()
        guard resolved.isValid else { return (resolved, nil) }
        switch written {
        case .success(let summary): return (resolved, summary)
        case .failure(SelectedFileFeed.Stop.outOfOrder):
            // A streaming selection kept no list: the tree is selected again, whole, and sorted.
            let whole = resolved.files.isEmpty ? ResolvedManifest(path: path, decoded: decoded, baseDirectory: baseDirectory) : resolved
            guard whole.isValid else { return (whole, nil) }
            return (whole, try write(metadata: PackMetadata(manifest), files: whole.files, to: destination))
        case .failure(let error): throw error
        }
    }
}
