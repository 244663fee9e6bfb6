import AppleArchive
import ArgumentParsing
import AssetPackFormat

/// `assetpack aar extract`.
struct AarExtractCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "extract",
            abstract: "Verify and unpack an Apple Archive into a directory.",
            discussion: """
            DIR must not exist or be empty. Entries are written to a staging folder beside DIR and renamed
            into place once every entry was read and checked; a failed extraction leaves nothing behind.
            Files, folders and symlinks are created (symlinks are never followed while extracting);
            permission bits without setuid, setgid and sticky; modification times. Owners, flags and
            extended attributes are not applied. Metadata entries are skipped and reported; devices,
            fifos and sockets are refused.
            """)
    }

    @Argument("FILE")
    var archive: String
    @Option("-o", "--output", value: "DIR", help: "The directory to create (required).")
    var output: String

    init() {}

    func run() throws -> Int32 {
        let summary: AppleArchiveExtractionSummary
        do {
            summary = try AppleArchiveExtractor().extract(archiveAt: archive, to: output)
        } catch {
            throw CLIError.failure("\(archive): \(error)")
        }
        for e in summary.skipped { printError("\(archive): skipped \(e.region): a \(e.type) entry has nothing to extract") }
        print("\(archive): extracted \(summary.files) files, \(summary.directories) folders, \(summary.symbolicLinks) symlinks (\(ByteCount.format(summary.bytes))) to \(output)")
        return 0
    }
}
