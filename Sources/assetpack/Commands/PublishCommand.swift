import AssetPackCLI
import AssetPackFormat
import AssetPackPublishing
import Foundation

let publishCommand = CommandSpec(
    name: "publish",
    abstract: "Package manifests into a signed static repository.",
    arguments: "MANIFEST...",
    discussion: """
    Writes DIR/packs/<id>/<digest>.pack (immutable, cacheable forever) and DIR/catalog.json (the
    one mutable file, signed, written last). Publishing again reads the existing catalog: packs
    whose content is unchanged keep their version, changed packs get version + 1, packs not
    given leave the catalog; the catalog version grows by one. Lints before writing anything;
    a failed publish leaves DIR as it was. Selector paths resolve as in 'assetpack package'.
    Packs whose inputs are unchanged since the last publish (same manifest fields, packaging
    settings, and files with the same size, mode, times and inode) reuse their pack file from
    DIR instead of being packaged again; the publish cache that records them lies beside DIR
    (.DIR.publish-cache.json), never inside it.
    Sizes: 500MB, 2GiB, 1.5GB or plain bytes. Durations: 90s, 15m, 12h, 30d.
    """,
    options: [
        .option("--repo", value: "DIR", help: "The repository folder (required; created if missing)."),
        .option("--key", value: "KEYFILE", help: "The private key from 'assetpack keygen' (required)."),
        .option("--expires", value: "DURATION", help: "How long the catalog stays valid (default 30d)."),
        .option("--keep", value: "N", help: "Versions of each pack whose files stay, the current one included (default 2)."),
        .flag("--check", help: "Lint only; write nothing (the cache is read, not written). Exits 1 on lint errors."),
        .option("--cache", value: "FILE", help: "The publish cache file (default: .DIR.publish-cache.json beside DIR)."),
        .flag("--no-cache", help: "Package every pack again; then record them in the cache."),
        .flag("--strict", help: "Treat lint warnings as errors."),
        .option("--primary-language", value: "TAG", help: "Every localized pack needs a variant in it (default en; en matches en-*)."),
        .option("--limits", value: "apple", help: "Check Apple's hosting limits: 200 GB compressed, 100 packs."),
        .option("--download-allowance", value: "SIZE", help: "Limit on prefetch packs' compressed size (BADownloadAllowance)."),
        .option("--essential-download-allowance", value: "SIZE", help: "Limit on essential packs' compressed size (BAEssentialDownloadAllowance)."),
        .option("--max-install-size", value: "SIZE", help: "Limit on prefetch packs' uncompressed size (BAMaxInstallSize)."),
        .option("--essential-max-install-size", value: "SIZE", help: "Limit on essential packs' uncompressed size (BAEssentialMaxInstallSize)."),
        .option("--threads", value: "N", help: "Worker threads for packaging (default: all cores)."),
        .flag("--json", help: "Print the result as JSON."),
    ],
    positionalCount: 1...Int.max
) { args in
    var options = PublishOptions(repository: try args.required("--repo"))
    let keyPath = try args.required("--key")
    try applyPublishArguments(args, to: &options)
    let key: SigningKey
    do { key = try SigningKey(contentsOf: keyPath) } catch { throw CLIError.failure("--key: \(error)") }
    if args.flag("--strict") { options.lint.treatWarningsAsErrors = true }
    let report: PublishReport
    do {
        report = try Publisher(key: key, options: options).publish(manifests: args.positionals)
    } catch let error as PublishError {
        switch error {
        case .invalidManifests(let diagnostics): for d in diagnostics { printError(d.description) }
        case .lintFailed(let findings): for f in findings { printError(f.description) }
        default: break
        }
        throw CLIError.failure(error.description)
    }
    for d in report.diagnostics { printError(d.description) }
    for f in report.findings { printError(f.description) }
    for w in report.cleanupWarnings + report.cacheWarnings { printError("warning: \(w)") }
    if args.flag("--json") {
        struct Change: Encodable { var id: String; var change: String; var previousVersion: Int?; var version: Int? }
        struct Build: Encodable { var id: String; var reused: Bool; var cached: Bool }
        struct Out: Encodable {
            var repository: String; var checked: Bool; var catalogVersion: Int?; var expires: String?; var packs: [Change]
            var packaging: [Build]; var cache: String?; var deletedFiles: [String]; var warnings: [String]
        }
        print(jsonString(Out(repository: options.repository, checked: options.checkOnly, catalogVersion: report.catalog?.version,
                             expires: report.catalog.map { RFC3339.string($0.expires) },
                             packs: report.changes.map { Change(id: $0.id, change: $0.kind.rawValue, previousVersion: $0.previousVersion, version: $0.version) },
                             packaging: report.builds.map { Build(id: $0.id, reused: $0.reused, cached: $0.cached) }, cache: report.cachePath,
                             deletedFiles: report.deletedFiles,
                             warnings: report.findings.map(\.description) + report.cleanupWarnings + report.cacheWarnings)))
        return 0
    }
    let reused = report.builds.filter(\.reused).count
    guard let catalog = report.catalog else {
        print("\(args.positionals.count) manifest(s) pass the lint (\(report.findings.count) warning(s)); nothing written")
        if reused > 0 { print("  sizes of \(reused) unchanged pack(s) taken from their files in \(options.repository)") }
        return 0
    }
    print("\(options.repository): catalog version \(catalog.version), \(catalog.packs.count) pack(s), expires \(RFC3339.string(catalog.expires))")
    for c in report.changes {
        let versions = [c.previousVersion.map { "v\($0)" }, c.version.map { "v\($0)" }].compactMap { $0 }
        print("  \(c.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(c.id) \(Set(versions).count == 1 ? versions[0] : versions.joined(separator: " → "))")
    }
    if !report.builds.isEmpty {
        print("  packaged \(report.builds.count - reused) pack(s), reused \(reused) unchanged pack file(s)\(report.cachePath.map { "; cache \($0)" } ?? "")")
    }
    if !report.deletedFiles.isEmpty { print("  deleted \(report.deletedFiles.count) retired pack file(s)") }
    return 0
}

/// Turns the publish command line into options, with a usage error naming the option at fault.
private func applyPublishArguments(_ args: ParsedArguments, to options: inout PublishOptions) throws(CLIError) {
    if let e = args.value("--expires") {
        guard let seconds = Quantities.duration(e) else { throw .usage("--expires takes a duration such as 90s, 15m, 12h or 30d, not \"\(e)\"") }
        options.expiresIn = seconds
    }
    if let k = args.value("--keep") {
        guard let n = Int(k), n >= 1 else { throw .usage("--keep takes a whole number ≥ 1 (the current version counts)") }
        options.keep = n
    }
    if let t = args.value("--threads") {
        guard let n = Int(t), n >= 1 else { throw .usage("--threads takes a whole number ≥ 1") }
        options.writer.threads = n
    }
    if let l = args.value("--limits") {
        guard l == "apple" else { throw .usage("--limits takes \"apple\", not \"\(l)\"") }
        options.lint.appleLimits = true
    }
    if let tag = args.value("--primary-language") {
        guard let parsed = LanguageTag(tag) else { throw .usage("--primary-language: \"\(tag)\" is not a BCP 47 language tag") }
        options.lint.primaryLanguage = parsed.description
    }
    func size(_ name: String) throws(CLIError) -> UInt64? {
        guard let text = args.value(name) else { return nil }
        guard let n = Quantities.byteCount(text) else { throw .usage("\(name) takes a size such as 500MB, 2GiB or 1048576, not \"\(text)\"") }
        return n
    }
    options.lint.downloadAllowance = try size("--download-allowance")
    options.lint.essentialDownloadAllowance = try size("--essential-download-allowance")
    options.lint.maxInstallSize = try size("--max-install-size")
    options.lint.essentialMaxInstallSize = try size("--essential-max-install-size")
    options.checkOnly = args.flag("--check")
    if let cache = args.value("--cache") {
        guard !cache.isEmpty else { throw .usage("--cache takes a file path") }
        options.cachePath = cache
    }
    if args.flag("--no-cache") { options.cacheUse = .refresh }
    do { _ = try options.resolvedCachePath() } catch { throw .usage("--cache: \(error)") }
}
