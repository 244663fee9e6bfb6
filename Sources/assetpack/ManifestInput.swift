import ArgumentParsing
import AssetPackFormat
import AssetPackPackaging
import Foundation

extension ResolvedManifest {
    /// Prints the diagnostics to standard error; throws when there is an error among them.
    func reportOrThrow() throws(CLIError) -> (AssetPackManifest, SelectedFileList) {
        for d in diagnostics { printError(d.description) }
        guard let manifest, isValid else {
            let count = diagnostics.filter { $0.severity == .error }.count
            throw .failure("\(count) error(s) in \(diagnostics.first?.file ?? "the manifest")")
        }
        return (manifest, files)
    }
}
