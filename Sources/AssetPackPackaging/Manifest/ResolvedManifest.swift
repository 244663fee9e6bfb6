import AssetPackFormat
import Foundation

/// A manifest read, checked and resolved to files, with every diagnostic found on the way:
/// what `package`, `validate` and `publish` start from.
public struct ResolvedManifest: Sendable {
    /// The path the manifest was read from, as given.
    public var path: String
    public var manifest: AssetPackManifest?
    public var files: SelectedFileList
    public var diagnostics: [Diagnostic]

    /// Reads `path`, validates it and (when it is valid) selects its files relative to
    /// `baseDirectory` (the current directory by default, as `ba-package` does).
    /// With a `feed`, the selected files are handed to it as they are found (`FileSelection`);
    /// it is abandoned when the manifest does not decode.
    public init(path: String, baseDirectory: String = FileManager.default.currentDirectoryPath, feed: SelectedFileFeed? = nil) {
        self.init(path: path, decoded: ManifestDecoder.load(contentsOf: URL(fileURLWithPath: path), displayName: path),
                  baseDirectory: baseDirectory, feed: feed)
    }

    /// Selects the files of a manifest already decoded from `path` (with its diagnostics).
    init(path: String, decoded: (manifest: AssetPackManifest?, diagnostics: [Diagnostic]), baseDirectory: String,
         feed: SelectedFileFeed? = nil) {
        self.path = path
        manifest = decoded.manifest
        diagnostics = decoded.diagnostics
        files = []
        guard let manifest else {
            feed?.abandon()
            return
        }
        let selection = FileSelection.resolve(manifest, manifestFile: path, baseDirectory: baseDirectory, feed: feed)
        files = selection.files
        diagnostics += selection.diagnostics
    }

    /// Whether the manifest can be packaged: it decoded and nothing is an error.
    public var isValid: Bool { manifest != nil && !diagnostics.hasErrors }

    /// The sum of the selected files' sizes.
    public var installSize: UInt64 {
        // By index: `reduce` would copy each file, retaining its path.
        var total: UInt64 = 0
        for i in files.indices { total += files[i].size }
        return total
    }
}
