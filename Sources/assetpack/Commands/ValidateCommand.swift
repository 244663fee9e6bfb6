import ArgumentParsing
import AssetPackFormat
import AssetPackPackaging
import AssetPackPublishing

struct ValidateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "validate",
            abstract: "Check manifests and the files they select.",
            discussion: """
            Reports every problem with the file, the key path and the reason. Manifests given together that share an
            assetPackID are checked as a group of device variants as publish checks them (a default, no two variants
            of the same conditions). Exits 1 if any manifest, or any group, has an error.
            """)
    }

    @Argument("MANIFEST", atLeast: 1)
    var manifests: [String]
    @Flag("--json", help: "Print a JSON report instead of text.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        struct Report: Encodable {
            var manifest: String
            var valid: Bool
            var assetPackID: String?
            var fileCount: Int
            var installSize: UInt64
            var diagnostics: [Diagnostic]
        }
        var reports: [Report] = []
        let inputs = manifests.map { ResolvedManifest(path: $0) }
        for (path, input) in zip(manifests, inputs) {
            reports.append(Report(manifest: path, valid: input.isValid, assetPackID: input.manifest?.assetPackID,
                                  fileCount: input.files.count, installSize: input.installSize,
                                  diagnostics: input.diagnostics))
        }
        let decoded = zip(manifests, inputs).compactMap { path, input in input.manifest.map { (path, $0) } }
        let groups = DeviceVariantGroups(decoded).findings.filter { $0.rule != .duplicateID }
        if json {
            print(jsonString(reports))
        } else {
            for r in reports {
                for d in r.diagnostics { printError(d.description) }
                if r.valid { print("\(r.manifest): valid — \(r.assetPackID ?? "?"), \(r.fileCount) files, \(ByteCount.format(r.installSize))") }
                else { print("\(r.manifest): invalid (\(r.diagnostics.filter { $0.severity == .error }.count) errors)") }
            }
        }
        for finding in groups { printError(finding.description) }
        return reports.allSatisfy(\.valid) && !groups.hasErrors ? 0 : 1
    }
}
