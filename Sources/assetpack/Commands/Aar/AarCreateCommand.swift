import AppleArchive
import ArgumentParsing
import AssetPackFormat
import AssetPackPackaging
import Foundation

/// `assetpack aar create`: what `xcrun ba-package MANIFEST -o FILE` makes, on Linux.
struct AarCreateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "create",
            abstract: "Write a manifest's files as an Apple Archive, in ba-package's layout.",
            discussion: """
            The selected files go under Contents/<path>, each folder before what it holds, as
            'xcrun ba-package' packages them for Background Assets. Selector paths resolve as for
            'package'. The same manifest and files always give the same bytes (owner, group and
            times are written as 0), whatever --threads. The archive is written under a temporary
            name and renamed to FILE when complete.
            """)
    }

    @Argument("MANIFEST")
    var manifestPath: String
    @Option("-o", "--output", value: "FILE", help: "Where to write the archive (required).")
    var output: String
    @Option("--compression", value: "CODEC", help: "lzfse (default, as ba-package), zlib, lzma, or none (a bare AA01 stream).")
    var compression: AppleArchiveCompressionArgument?
    @Option("--block-size", value: "SIZE", help: "Bytes of the stream per compressed block (default 4MiB).",
            range: ByteSize(bytes: UInt64(AppleArchiveWriter.blockSizes.lowerBound))...ByteSize(bytes: UInt64(AppleArchiveWriter.blockSizes.upperBound)))
    var blockSize: ByteSize?
    @Option("--threads", value: "N", help: "Blocks compressed at once (default: all cores).",
            range: SettingBounds.threads, reason: SettingBounds.threadsReason)
    var threads: Int?
    @Flag("--json", help: "Print the summary as JSON.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        var archiver = ApplePackArchiver()
        if let compression { archiver.compression = compression.codec }
        if let blockSize { archiver.blockSize = Int(blockSize.bytes) }
        if let threads { archiver.threads = threads }
        // Diagnostics are reported as 'validate' and 'package' report them; nothing is written
        // for an invalid manifest.
        let resolved = ResolvedManifest(path: manifestPath)
        let (manifest, _) = try resolved.reportOrThrow()
        // Apple's tools never see a device variant: a group's Apple Archive is its default's.
        if let variant = manifest.variant {
            throw CLIError.failure("\(manifestPath) is a device variant of \"\(manifest.assetPackID)\" (\(variant)); Apple's tools never see variants: give aar create the group's default manifest (the one without \"variant\")")
        }
        let summary: ApplePackArchiveSummary
        do {
            summary = try archiver.write(resolved, to: output)
        } catch {
            throw CLIError.failure("\(output): \(error)")
        }
        if json {
            struct Out: Encodable { var archive: String; var assetPackID: String; var compression: String; var entries: Int; var files: Int; var contentSize: Int64; var archiveSize: Int64 }
            print(jsonString(Out(archive: output, assetPackID: manifest.assetPackID, compression: archiver.compression.rawValue, entries: summary.entryCount,
                                 files: summary.fileCount, contentSize: summary.contentSize, archiveSize: summary.archiveSize)))
        } else {
            print("\(output): \(manifest.assetPackID), \(summary.fileCount) files in \(summary.entryCount) entries, \(ByteCount.format(UInt64(summary.contentSize))) → \(ByteCount.format(UInt64(summary.archiveSize))) (\(archiver.compression.rawValue))")
        }
        return 0
    }
}
