import AssetPackCLI
import AssetPackFormat
import AssetPackPackaging
import Foundation

let packageCommand = CommandSpec(
    name: "package",
    abstract: "Build an asset pack from a manifest.",
    arguments: "MANIFEST",
    discussion: """
    Selector paths resolve against the manifest's sourceRoot, or else the current directory.
    The same manifest and files always give the same bytes. The pack is written under a
    temporary name and renamed to PACKFILE when complete.
    """,
    options: [
        .option("-o", "--output", value: "PACKFILE", help: "Where to write the pack (required)."),
        .option("--threads", value: "N", help: "Worker threads (default: all cores)."),
        .option("--level", value: "N", help: "zstd level, 1–19 (default 3)."),
        .option("--chunk-average", value: "BYTES", help: "Average chunk size, a power of two (default 262144); minimum and maximum follow at ¼ and 4×."),
        .flag("--json", help: "Print the summary as JSON."),
    ],
    positionalCount: 1...1
) { args in
    let output = try args.required("--output")
    let (manifest, files) = try ResolvedManifest(path: args.positionals[0]).reportOrThrow()
    var writer = PackWriter()
    if let t = args.value("--threads") {
        guard let n = Int(t), n >= 1 else { throw CLIError.usage("--threads takes a whole number ≥ 1") }
        writer.threads = n
    }
    if let l = args.value("--level") {
        guard let n = Int32(l), (1...19).contains(n) else { throw CLIError.usage("--level takes a whole number from 1 to 19") }
        writer.compressionLevel = n
    }
    if let a = args.value("--chunk-average") {
        guard let n = Int(a) else { throw CLIError.usage("--chunk-average takes a byte count") }
        let p = ChunkingParameters(minimumSize: n / 4, averageSize: n, maximumSize: n * 4)
        if let problem = p.problem { throw CLIError.usage("--chunk-average: \(problem)") }
        writer.parameters = p
    }
    let summary: PackSummary
    do {
        summary = try writer.write(metadata: PackMetadata(manifest), files: files, to: output)
    } catch {
        throw CLIError.failure("\(args.positionals[0]): \(error)")
    }
    if args.flag("--json") {
        struct Out: Encodable { var pack: String; var assetPackID: String; var files: Int; var chunks: Int; var installSize: UInt64; var packSize: UInt64; var digest: String }
        print(jsonString(Out(pack: output, assetPackID: manifest.assetPackID, files: summary.fileCount, chunks: summary.chunkCount,
                             installSize: summary.installSize, packSize: summary.packSize, digest: summary.packDigest.hex)))
    } else {
        print("\(output): \(manifest.assetPackID), \(summary.fileCount) files, \(byteCount(summary.installSize)) → \(byteCount(summary.packSize)), \(summary.chunkCount) chunks, digest \(summary.packDigest.hex)")
    }
    return 0
}
