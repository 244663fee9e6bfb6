import AssetPackCLI
import AssetPackFormat
import AssetPackPackaging

let validateCommand = CommandSpec(
    name: "validate",
    abstract: "Check manifests and the files they select.",
    arguments: "MANIFEST...",
    discussion: "Reports every problem with the file, the key path and the reason. Exits 1 if any manifest has an error.",
    options: [.flag("--json", help: "Print a JSON report instead of text.")],
    positionalCount: 1...Int.max
) { args in
    struct Report: Encodable {
        var manifest: String
        var valid: Bool
        var assetPackID: String?
        var fileCount: Int
        var installSize: UInt64
        var diagnostics: [Diagnostic]
    }
    var reports: [Report] = []
    for path in args.positionals {
        let input = ResolvedManifest(path: path)
        reports.append(Report(manifest: path, valid: input.isValid, assetPackID: input.manifest?.assetPackID,
                              fileCount: input.files.count, installSize: input.installSize,
                              diagnostics: input.diagnostics))
    }
    if args.flag("--json") {
        print(jsonString(reports))
    } else {
        for r in reports {
            for d in r.diagnostics { printError(d.description) }
            if r.valid { print("\(r.manifest): valid — \(r.assetPackID ?? "?"), \(r.fileCount) files, \(byteCount(r.installSize))") }
            else { print("\(r.manifest): invalid (\(r.diagnostics.filter { $0.severity == .error }.count) errors)") }
        }
    }
    return reports.allSatisfy(\.valid) ? 0 : 1
}
