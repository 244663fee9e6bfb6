import AssetPackFormat
import AssetPackPackaging
import Testing

/// The manifest's `variant` extension: read into conditions, and every mistake reported with its
/// key path, line and column like the rest of the manifest.
@Suite struct ManifestVariantTests {
    func decode(_ variant: String) -> (AssetPackManifest?, [Diagnostic]) {
        let json = """
            {"assetPackID": "Tex", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"file": "a"}], "platforms": ["iOS"],
             "variant": \(variant)}
            """
        return ManifestDecoder.decode(Array(json.utf8), file: "M.json")
    }

    @Test func conditionsAreRead() throws {
        let (m, d) = decode(#"{"textureFormat": "astc", "minimumMemory": "4GiB", "architectures": ["aarch64", "x86_64"]}"#)
        #expect(d.isEmpty, "\(d)")
        let v = try #require(m?.variant)
        #expect(v == VariantConditions(textureFormat: "astc", minimumMemory: 4 << 30, architectures: ["arm64", "x86_64"]))
        #expect(v.name == "astc-4GiB-arm64+x86_64")
        // A manifest without the key is a default.
        let (plain, _) = ManifestDecoder.decode(Array(#"{"assetPackID": "Tex", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"file": "a"}], "platforms": ["iOS"]}"#.utf8), file: "M.json")
        #expect(plain != nil && plain?.variant == nil)
    }

    @Test(arguments: [
        (#"{"textureFormat": "astx"}"#, "variant.textureFormat", 2, 31, "unknown texture format \"astx\"; valid texture formats: astc, bc7, bc6h, etc2, pvrtc, dxt, s3tc"),
        (#"{"textureFormat": 7}"#, "variant.textureFormat", 2, 31, "expected a string, found a number"),
        (#"{"minimumMemory": "lots"}"#, "variant.minimumMemory", 2, 31, "\"lots\" is not a size above 0"),
        (#"{"minimumMemory": 4096}"#, "variant.minimumMemory", 2, 31, "expected a size as a string"),
        (#"{"architectures": []}"#, "variant.architectures", 2, 31, "must name at least one architecture"),
        (#"{"architectures": ["arm 64"]}"#, "variant.architectures[0]", 2, 32, "\"arm 64\" is not an architecture name"),
        (#"{}"#, "variant", 2, 13, "names no condition"),
        (#""astc""#, "variant", 2, 13, "expected an object, found a string"),
    ]) func mistakesNameKeyAndPlace(_ variant: String, _ key: String, _ line: Int, _ column: Int, _ message: String) {
        let (m, d) = decode(variant)
        #expect(m == nil)
        let errors = d.filter { $0.severity == .error }
        #expect(errors.count == 1, "\(d)")
        let e = errors.first
        #expect(e?.keyPath == key, "\(d)")
        #expect(e?.line == line && e?.column == column, "\(d)")
        #expect(e?.message.contains(message) == true, "\(d)")
    }
}
