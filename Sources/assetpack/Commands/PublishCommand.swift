import AppleArchive
import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct PublishCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "publish",
            abstract: "Package manifests into a signed static repository.",
            discussion: """
            Writes DIR/packs/<id>/<digest>.pack (immutable, cacheable forever) and DIR/catalog.json (the
            mutable file, signed, written last; with a root, timestamp.json follows it). Publishing again reads the existing catalog: packs
            whose content is unchanged keep their version, changed packs get version + 1, packs not
            given leave the catalog; the catalog version grows by one. Lints before writing anything;
            a failed publish leaves DIR as it was. Selector paths resolve as in 'assetpack package'.
            Packs whose inputs are unchanged since the last publish (same manifest fields, packaging
            settings, and files with the same size, mode, times and inode) reuse their pack file from
            DIR instead of being packaged again; the publish cache that records them lies beside DIR
            (.DIR.publish-cache.json), never inside it.
            Paid packs: --encrypt ID seals pack ID (every chunk frame and its index, AES-256-GCM under a
            random content key kept in --key-store FILE, mode 0600, outside DIR); 'assetpack key-server'
            hands the key to entitled clients. A sealed pack stays sealed; --rotate-key ID gives it a new key.
            Apple devices: --apple-base-url URL also writes DIR/apple/ (DIR/channels/NAME/apple/ with --channel):
            assets/<id>, each pack's Apple Archive, and manifest.json, the download manifest of Apple's
            self-hosted managed packs naming URL/<id> (with manifests/<platform>.json, the packs each
            platform sees). Serve DIR/apple as BASE/manifest and BASE/assets/<id> ('assetpack serve' does,
            with URL = https://HOST:PORT/assets); Apple's hosting limits (--limits apple) are checked. Sealed
            packs get no archive; a rollout below 100 % is refused (the manifest has no rollouts).
            Sizes: \(ByteCount.grammar): 500MB, 2GiB, 1.5GB or plain bytes. Durations: 90s, 15m, 12h, 30d.
            """)
    }

    @Argument("MANIFEST", atLeast: 1)
    var manifests: [String]
    @Option("--repo", value: "DIR", help: "The repository folder (required; created if missing).")
    var repository: String
    @Option("--key", value: "KEYFILE", help: "The private key from 'assetpack keygen' (required).")
    var keyFile: String
    @Option("--timestamp-key", value: "KEYFILE", help: "The online timestamp key; required when DIR has a root (roots/).")
    var timestampKeyFile: String?
    @Option("--timestamp-expires", value: "DURATION", help: "How long timestamp.json stays valid (default 1d).",
            range: DurationWithUnit(.seconds(60))...DurationWithUnit(.seconds(366 * 86_400)))
    var timestampExpires: DurationWithUnit?
    @Option("--expires", value: "DURATION", help: "How long the catalog stays valid (default 30d).",
            range: DurationWithUnit(.seconds(1))...DurationWithUnit(.seconds(3650 * 86_400)))
    var expires: DurationWithUnit?
    @Option("--keep", value: "N", help: "Versions of each pack whose files stay, the current one included (default 2).",
            range: SettingBounds.keptVersions)
    var keep: Int?
    @Flag("--check", help: "Lint only; write nothing (the cache is read, not written). Exits 1 on lint errors.")
    var check: Bool
    @Option("--cache", value: "FILE", help: "The publish cache file (default: .DIR.publish-cache.json beside DIR).")
    var cache: String?
    @Flag("--no-cache", help: "Package every pack again; then record them in the cache.")
    var noCache: Bool
    @Flag("--strict", help: "Treat lint warnings as errors.")
    var strict: Bool
    @Option("--primary-language", value: "TAG", help: "Every localized pack needs a variant in it (default en; en matches en-*).")
    var primaryLanguage: String?
    @Option("--limits", value: "apple", help: "Check Apple's hosting limits: 200 GB compressed, 100 packs.")
    var limits: String?
    @Option("--download-allowance", value: "SIZE", help: "Limit on prefetch packs' compressed size (BADownloadAllowance).")
    var downloadAllowance: ByteSize?
    @Option("--essential-download-allowance", value: "SIZE", help: "Limit on essential packs' compressed size (BAEssentialDownloadAllowance).")
    var essentialDownloadAllowance: ByteSize?
    @Option("--max-install-size", value: "SIZE", help: "Limit on prefetch packs' uncompressed size (BAMaxInstallSize).")
    var maxInstallSize: ByteSize?
    @Option("--essential-max-install-size", value: "SIZE", help: "Limit on essential packs' uncompressed size (BAEssentialMaxInstallSize).")
    var essentialMaxInstallSize: ByteSize?
    @Option("--threads", value: "N", help: "Worker threads for packaging (default: all cores).",
            range: SettingBounds.threads, reason: SettingBounds.threadsReason)
    var threads: Int?
    @Option("--channel", value: "NAME", help: "Publish to this channel: DIR/channels/NAME/catalog.json (default: the default channel, DIR/catalog.json).")
    var channel: String?
    @Option("--rollout", value: "P%", help: "Serve the new versions to P % of clients, the previous ones to the rest (widen with 'assetpack rollout').",
            range: Percentage.whole)
    var rollout: Percentage?
    @Option("--report", value: "FILE.html", help: "Write the repository report (as 'assetpack report') after publishing.")
    var report: String?
    @Option("--encrypt", value: "PACK_ID", help: "Seal (encrypt) this pack for entitled clients only (repeatable); needs --key-store.")
    var encrypt: [String]
    @Option("--rotate-key", value: "PACK_ID", help: "Give this sealed pack a new content key and seal it again (repeatable).")
    var rotateKey: [String]
    @Option("--key-store", value: "FILE", help: "The content keys of sealed packs (created 0600; never inside DIR; back it up).")
    var keyStore: String?
    @Option("--apple-base-url", value: "URL", help: "Also write DIR/apple/ for Apple devices: Apple Archives and the download manifest naming URL/<id>.")
    var appleBaseURL: String?
    @Option("--apple-compression", value: "CODEC", help: "The Apple Archives' codec: lzfse (default), zlib, lzma, lz4 or none.")
    var appleCompression: String?
    @Flag("--json", help: "Print the result as JSON.")
    var json: Bool
    @Option("--read-order", value: "ID=FILE", help: "A read-order hint for pack ID: FILE lists paths of files or folders of the pack, one a line, in the order the app needs them (# starts a comment); downloads fetch them first.")
    var readOrder: [String]

    init() {}

    func run() throws -> Int32 {
        var options = try publishOptions()
        let key: SigningKey
        do { key = try SigningKey(contentsOf: keyFile) } catch { throw CLIError.failure("--key: \(error)") }
        if let timestampKeyFile {
            do { options.timestampKey = try SigningKey(contentsOf: timestampKeyFile) } catch { throw CLIError.failure("--timestamp-key: \(error)") }
        }
        if let timestampExpires { options.timestampExpiresIn = timestampExpires.duration.secondsValue }
        if strict { options.lint.treatWarningsAsErrors = true }
        let report: PublishReport
        do {
            report = try Publisher(key: key, options: options).publish(manifests: manifests)
            if let file = self.report, report.catalog != nil { try RepositoryReportFile.write(repository: repository, key: key.publicKey, to: file) }
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
        for w in report.cleanupWarnings + report.cacheWarnings + report.appleWarnings { printError("warning: \(w)") }
        if json {
            struct Change: Encodable { var id: String; var change: String; var previousVersion: Int?; var version: Int? }
            struct Build: Encodable { var id: String; var reused: Bool; var cached: Bool }
            struct Archive: Encodable { var id: String; var version: Int; var downloadSize: UInt64; var written: Bool }
            struct Apple: Encodable { var manifest: String; var archives: [Archive]; var leftOut: [String]; var removed: [String] }
            struct Out: Encodable {
                var repository: String; var checked: Bool; var catalogVersion: Int?; var expires: String?; var packs: [Change]
                var packaging: [Build]; var cache: String?; var deletedFiles: [String]; var warnings: [String]
                var patchFiles: [String]; var patchNote: String?; var updates: [UpdateSize]; var apple: Apple?
            }
            print(jsonString(Out(repository: options.repository, checked: options.checkOnly, catalogVersion: report.catalog?.version,
                                 expires: report.catalog.map { RFC3339.string($0.expires) },
                                 packs: report.changes.map { Change(id: $0.id, change: $0.kind.rawValue, previousVersion: $0.previousVersion, version: $0.version) },
                                 packaging: report.builds.map { Build(id: $0.id, reused: $0.reused, cached: $0.cached) }, cache: report.cachePath,
                                 deletedFiles: report.deletedFiles,
                                 warnings: report.findings.map(\.description) + report.cleanupWarnings + report.cacheWarnings + report.appleWarnings,
                                 patchFiles: report.patchFiles, patchNote: report.patchNote, updates: report.updates,
                                 apple: report.apple.map { a in
                                     Apple(manifest: a.manifestPath, archives: a.archives.map { Archive(id: $0.id, version: $0.version, downloadSize: $0.size, written: $0.written) },
                                           leftOut: a.leftOut, removed: a.removed)
                                 })))
            return 0
        }
        let reused = report.builds.filter(\.reused).count
        guard let catalog = report.catalog else {
            print("\(manifests.count) manifest(s) pass the lint (\(report.findings.count) warning(s)); nothing written")
            if reused > 0 { print("  sizes of \(reused) unchanged pack(s) taken from their files in \(options.repository)") }
            return 0
        }
        print("\(options.repository): \(catalog.channel.map { "channel \($0), " } ?? "")catalog version \(catalog.version), \(catalog.packs.count) pack(s), expires \(RFC3339.string(catalog.expires))")
        if let rollout = catalog.rollout { print("  rollout: \(rollout.percent) % of clients get these versions; the others keep catalog version \(rollout.fromVersion)'s") }
        for c in report.changes {
            let versions = [c.previousVersion.map { "v\($0)" }, c.version.map { "v\($0)" }].compactMap { $0 }
            let variants = catalog.pack(withID: c.id)?.variants.map { " (default and \($0.count) device variant(s): \($0.map(\.conditions.name).joined(separator: ", ")))" } ?? ""
            print("  \(c.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(c.id) \(Set(versions).count == 1 ? versions[0] : versions.joined(separator: " → "))\(variants)")
        }
        if !report.builds.isEmpty {
            print("  packaged \(report.builds.count - reused) pack(s), reused \(reused) unchanged pack file(s)\(report.cachePath.map { "; cache \($0)" } ?? "")")
        }
        if let ts = report.timestamp { print("  timestamp version \(ts.version), expires \(RFC3339.string(ts.expires))") }
        if !report.patchFiles.isEmpty { print("  wrote \(report.patchFiles.count) patch file(s)") }
        if let note = report.patchNote { print("  \(note)") }
        for line in UpdateSizeText.lines(report.updates, indent: "  update ") { print(line) }
        if !report.deletedFiles.isEmpty { print("  deleted \(report.deletedFiles.count) retired file(s)") }
        if let apple = report.apple {
            let written = apple.archives.filter(\.written).count
            print("  apple: \(apple.manifestPath), \(apple.archives.count) pack(s); wrote \(written) archive(s), kept \(apple.archives.count - written)"
                  + (apple.removed.isEmpty ? "" : ", removed \(apple.removed.joined(separator: ", "))"))
            if !apple.leftOut.isEmpty { print("  apple: left out sealed pack(s) \(apple.leftOut.joined(separator: ", ")) (an Apple Archive is not encrypted)") }
        }
        if let file = self.report { print("  report: \(file)") }
        return 0
    }

    /// The options the command line sets, with a usage error naming the option at fault.
    /// `ID=FILE`: the pack ID and the entries FILE lists (a path a line; blank lines and lines
    /// starting with `#` skipped; a trailing `/` and a leading `./` dropped).
    static func readOrderHint(_ argument: String) throws(CLIError) -> (String, [String]) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex, argument.index(after: equals) != argument.endIndex else {
            throw .usage("--read-order \(argument): expected ID=FILE")
        }
        let id = String(argument[..<equals]), file = String(argument[argument.index(after: equals)...])
        guard let data = FileManager.default.contents(atPath: file) else { throw .failure("--read-order: cannot read \(file)") }
        guard let text = String(data: data, encoding: .utf8) else { throw .failure("--read-order: \(file) is not UTF-8 text") }
        var entries: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            entries.append(PackPath.normalizedSelector(trimmed))
        }
        return (id, entries)
    }

    private func publishOptions() throws(CLIError) -> PublishOptions {
        var options = PublishOptions(repository: repository)
        if let expires {
            options.expiresIn = expires.duration.secondsValue
        }
        if let keep { options.keep = keep }
        options.encrypt = Set(encrypt)
        options.rotateKey = Set(rotateKey)
        options.keyStorePath = keyStore
        if let threads { options.writer.threads = threads }
        if let limits {
            guard limits == "apple" else { throw .usage("--limits takes \"apple\", not \"\(limits)\"") }
            options.lint.appleLimits = true
        }
        if let tag = primaryLanguage {
            guard let parsed = LanguageTag(tag) else { throw .usage("--primary-language: \"\(tag)\" is not a BCP 47 language tag") }
            options.lint.primaryLanguage = parsed.description
        }
        options.lint.downloadAllowance = downloadAllowance?.bytes
        options.lint.essentialDownloadAllowance = essentialDownloadAllowance?.bytes
        options.lint.maxInstallSize = maxInstallSize?.bytes
        options.lint.essentialMaxInstallSize = essentialMaxInstallSize?.bytes
        options.checkOnly = check
        if let cache {
            guard !cache.isEmpty else { throw .usage("--cache takes a file path") }
            options.cachePath = cache
        }
        if noCache { options.cacheUse = .refresh }
        if let channel {
            if channel != ChannelName.defaultName, let why = ChannelName.problem(with: channel) { throw .usage("--channel: \"\(channel)\" \(why)") }
            options.channel = ChannelName.normalized(channel)
        }
        options.rolloutPercent = rollout?.value
        if let appleBaseURL {
            switch AppleBaseURL.checked(appleBaseURL) {
            case .success: options.appleBaseURL = appleBaseURL
            case .failure(let problem): throw .usage("--apple-base-url: \(problem)")
            }
            if let percent = rollout?.value, percent < 100 {
                throw .usage("--apple-base-url cannot go with --rollout \(percent)%: Apple's download manifest has no staged rollouts")
            }
        }
        if let appleCompression {
            guard appleBaseURL != nil else { throw .usage("--apple-compression goes with --apple-base-url") }
            guard let codec = AppleArchiveCompression(rawValue: appleCompression) else {
                throw .usage("--apple-compression: \"\(appleCompression)\" is not one of \(AppleArchiveCompression.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            options.appleCompression = codec
        }
        if let report, !report.hasSuffix(".html") { throw .usage("--report: \"\(report)\" must name an .html file") }
        for argument in readOrder {
            let (id, entries) = try Self.readOrderHint(argument)
            guard options.readOrder[id] == nil else { throw .usage("--read-order \(argument): a second hint for \(id)") }
            options.readOrder[id] = entries
        }
        do { _ = try options.resolvedCachePath() } catch { throw .usage("--cache: \(error)") }
        return options
    }
}
