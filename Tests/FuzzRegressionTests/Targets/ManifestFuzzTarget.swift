import AssetPackFormat
import AssetPackPackaging

/// JSONParser on its own, then ManifestDecoder as `validate` and `package` run it.
enum ManifestFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        if let root = try? JSONParser.parse(bytes) { _ = root.value.typeDescription }
        let (manifest, diagnostics) = ManifestDecoder.decode(bytes, file: "fuzz.json")
        // A refused manifest always says why; an accepted one carries no error.
        precondition(manifest != nil || diagnostics.hasErrors, "manifest refused without an error diagnostic")
        precondition(manifest == nil || !diagnostics.hasErrors, "manifest accepted despite an error diagnostic")
        for d in diagnostics { _ = d.description }
    }
}
