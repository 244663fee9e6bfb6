import ArgumentParsing
import AssetPackFormat
import AssetPackPackaging

struct ValidateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "validate",
            abstract: "Check manifests and the files they select.",
            discussion: "Reports every problem with the file, the key path and the reason. Exits 1 if any manifest has an error.")
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
        for path in manifests {
            let input = ResolvedManifest(path: path)
            reports.append(Report(manifest: path, valid: input.isValid, assetPackID: input.manifest?.assetPackID,
                                  fileCount: input.files.count, installSize: input.installSize,
                                  diagnostics: input.diagnostics))
        }
        if json {
            print(jsonString(reports))
        } else {
            for r in reports {
                for d in r.diagnostics { printError(d.description) }
                if r.valid { print("\(r.manifest): valid — \(r.assetPackID ?? "?"), \(r.fileCount) files, \(ByteCount.format(r.installSize))") }
                else { print("\(r.manifest): invalid (\(r.diagnostics.filter { $0.severity == .error }.count) errors)") }
            }
        }
        return reports.allSatisfy(\.valid) ? 0 : 1
    }
}
