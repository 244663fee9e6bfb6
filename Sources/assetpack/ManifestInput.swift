import AssetPackCLI
import AssetPackFormat
import Foundation

/// A manifest read, checked and resolved to files, with every diagnostic found on the way.
struct ManifestInput {
    var manifest: AssetPackManifest?
    var files: [SelectedFile]
    var diagnostics: [Diagnostic]

    /// Reads `path`, validates it and (when it is valid) selects its files relative to the
    /// current directory, as `ba-package` does.
    init(path: String) {
        let (manifest, diagnostics) = ManifestDecoder.load(contentsOf: URL(fileURLWithPath: path), displayName: path)
        self.manifest = manifest
        self.diagnostics = diagnostics
        files = []
        if let manifest {
            let selection = FileSelection.resolve(manifest, manifestFile: path)
            files = selection.files
            self.diagnostics += selection.diagnostics
        }
    }

    /// Prints the diagnostics to standard error; throws when there is an error among them.
    func reportOrThrow() throws(CLIError) -> (AssetPackManifest, [SelectedFile]) {
        for d in diagnostics { printError(d.description) }
        guard let manifest, !diagnostics.hasErrors else {
            let count = diagnostics.filter { $0.severity == .error }.count
            throw .failure("\(count) error(s) in \(diagnostics.first?.file ?? "the manifest")")
        }
        return (manifest, files)
    }
}
