import AppleArchive
import ArgumentParsing
import AssetPackFormat
import AssetPackPackaging

/// `assetpack aar import`: a pack made by `xcrun ba-package` becomes one of ours.
struct AarImportCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "import",
            abstract: "Turn an Apple Archive made by ba-package into an asset pack with the same files.",
            discussion: """
            The files under Contents/ in the archive become the pack's files, at the same paths and with
            their permission bits; MANIFEST gives the pack's ID, download policy, platforms and language
            (its file selectors are not read). Entries outside Contents/, symlinks and metadata entries are
            not packed and are listed on standard error. An archive with no files under Contents/ is not in
            ba-package's layout: it is refused. The archive is extracted to a staging folder beside PACKFILE
            (removed afterwards), and the pack is written under a temporary name and renamed when complete.
            """)
    }

    @Argument("FILE")
    var archive: String
    @Option("--manifest", value: "MANIFEST", help: "The pack's manifest (required).")
    var manifestPath: String
    @Option("-o", "--output", value: "PACKFILE", help: "Where to write the pack (required).")
    var output: String
    @Option("--threads", value: "N", help: "Worker threads (default: all cores).",
            range: SettingBounds.threads, reason: SettingBounds.threadsReason)
    var threads: Int?

    init() {}

    func run() throws -> Int32 {
        var importer = ApplePackImporter()
        if let threads {
            importer.threads = threads
            importer.writer.threads = threads
        }
        let summary: ApplePackImportSummary
        do {
            summary = try importer.importArchive(at: archive, manifestAt: manifestPath, to: output)
        } catch let error as ApplePackError {
            throw CLIError.failure("\(error)")
        } catch {
            throw CLIError.failure("\(archive): \(error)")
        }
        for entry in summary.unexpectedEntries { printError("\(archive): not imported: \(entry)") }
        let pack = summary.pack
        print("\(output): \(pack.fileCount) files, \(ByteCount.format(pack.installSize)) → \(ByteCount.format(pack.packSize)), digest \(pack.packDigest.hex)"
              + (summary.unexpectedEntries.isEmpty ? "" : "; \(summary.unexpectedEntries.count) entries not imported"))
        return 0
    }
}
