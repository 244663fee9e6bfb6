import AssetPackFormat
import AssetPackPackaging
import TestSupport

/// Resolves `json` (a manifest whose paths are relative to `dir`) and packs it to `dir/output`;
/// returns the pack's path and the writer's summary.
@discardableResult
public func packManifest(_ json: String, in dir: TemporaryDirectory, output: String = "out.pack",
                         configure: (inout PackWriter) -> Void = { _ in }) throws -> (String, PackSummary) {
    let (manifest, diagnostics) = ManifestDecoder.decode(Array(json.utf8), file: "Manifest.json")
    guard let manifest else { throw TestSupportError("manifest invalid: \(diagnostics)") }
    let (files, more) = FileSelection.resolve(manifest, manifestFile: "Manifest.json", baseDirectory: dir.path)
    guard !more.hasErrors else { throw TestSupportError("selection failed: \(more)") }
    var writer = PackWriter()
    configure(&writer)
    let out = dir.file(output)
    return (out, try writer.write(metadata: PackMetadata(manifest), files: files, to: out))
}
