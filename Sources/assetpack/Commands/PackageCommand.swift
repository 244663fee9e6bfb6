import ArgumentParsing
import AssetPackFormat
import AssetPackPackaging
import Foundation

struct PackageCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "package",
            abstract: "Build an asset pack from a manifest.",
            discussion: """
            Selector paths resolve against the manifest's sourceRoot, or else the current directory.
            The same manifest and files always give the same bytes. The pack is written under a
            temporary name and renamed to PACKFILE when complete.
            """)
    }

    @Argument("MANIFEST")
    var manifestPath: String
    @Option("-o", "--output", value: "PACKFILE", help: "Where to write the pack (required).")
    var output: String
    @Option("--threads", value: "N", help: "Worker threads (default: all cores).",
            range: SettingBounds.threads, reason: SettingBounds.threadsReason)
    var threads: Int?
    @Option("--level", value: "N", help: "zstd level (default 3).", range: SettingBounds.compressionLevel)
    var level: Int32?
    @Option("--chunk-average", value: "SIZE", help: "Average chunk size, a power of two (default 262144 = 256KiB); minimum and maximum follow at ¼ and 4×.",
            range: ByteSize(bytes: 256)...ByteSize(bytes: UInt64(ChunkingParameters.largestAllowedChunk / 4)))
    var chunkAverage: ByteSize?
    @Flag("--json", help: "Print the summary as JSON.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        var writer = PackWriter()
        if let n = threads { writer.threads = n }
        if let n = level { writer.compressionLevel = n }
        if let average = chunkAverage {
            guard let n = Int(exactly: average.bytes), n <= Int.max / 4 else { throw CLIError.usage("--chunk-average: \(average.bytes) bytes is too large") }
            let p = ChunkingParameters(minimumSize: n / 4, averageSize: n, maximumSize: n * 4)
            if let problem = p.problem { throw CLIError.usage("--chunk-average: \(problem)") }
            writer.parameters = p
        }
        // The files are packed while the selection still walks the tree; an invalid manifest
        // writes nothing, and its diagnostics are reported as `validate` reports them.
        let written: (resolved: ResolvedManifest, summary: PackSummary?)
        do {
            written = try writer.write(manifestAt: manifestPath, to: output)
        } catch {
            throw CLIError.failure("\(manifestPath): \(error)")
        }
        let (manifest, _) = try written.resolved.reportOrThrow()
        guard let summary = written.summary else { throw CLIError.failure("\(manifestPath): nothing was written") }
        if json {
            struct Out: Encodable { var pack: String; var assetPackID: String; var files: Int; var chunks: Int; var installSize: UInt64; var packSize: UInt64; var digest: String }
            print(jsonString(Out(pack: output, assetPackID: manifest.assetPackID, files: summary.fileCount, chunks: summary.chunkCount,
                                 installSize: summary.installSize, packSize: summary.packSize, digest: summary.packDigest.hex)))
        } else {
            print("\(output): \(manifest.assetPackID), \(summary.fileCount) files, \(ByteCount.format(summary.installSize)) → \(ByteCount.format(summary.packSize)), \(summary.chunkCount) chunks, digest \(summary.packDigest.hex)")
        }
        return 0
    }
}
