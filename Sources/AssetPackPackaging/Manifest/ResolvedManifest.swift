import AssetPackFormat
import Foundation

/// A manifest read, checked and resolved to files, with every diagnostic found on the way:
/// what `package`, `validate` and `publish` start from.
public struct ResolvedManifest: Sendable {
    /// The path the manifest was read from, as given.
    public var path: String
    public var manifest: AssetPackManifest?
    public var files: [SelectedFile]
    public var diagnostics: [Diagnostic]

    /// Reads `path`, validates it and (when it is valid) selects its files relative to
    /// `baseDirectory` (the current directory by default, as `ba-package` does).
    public init(path: String, baseDirectory: String = FileManager.default.currentDirectoryPath) {
        self.path = path
        let (manifest, diagnostics) = ManifestDecoder.load(contentsOf: URL(fileURLWithPath: path), displayName: path)
        self.manifest = manifest
        self.diagnostics = diagnostics
        files = []
        if let manifest {
            let selection = FileSelection.resolve(manifest, manifestFile: path, baseDirectory: baseDirectory)
            files = selection.files
            self.diagnostics += selection.diagnostics
        }
    }

    /// Whether the manifest can be packaged: it decoded and nothing is an error.
    public var isValid: Bool { manifest != nil && !diagnostics.hasErrors }

    /// The sum of the selected files' sizes.
    public var installSize: UInt64 { files.reduce(0) { $0 + $1.size } }
}
