import ArgumentParsing
import AssetPackFormat

struct InspectCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "inspect",
            abstract: "Show a pack's metadata, files and sizes.",
            discussion: "Reads only the trailer and the index (the index digest is checked); use 'verify' to check every chunk.")
    }

    @Argument("PACKFILE")
    var pack: String
    @Flag("--json", help: "Print JSON instead of text.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        let reader = try openPack(pack)
        let index = reader.index
        let m = index.metadata
        if json {
            struct File: Encodable { var path: String; var mode: String; var size: UInt64; var chunks: Int }
            struct Out: Encodable {
                var assetPackID: String; var downloadPolicy: DownloadPolicy; var language: String?; var platforms: [Platform]
                var formatVersion: UInt32; var digest: String; var packSize: UInt64; var compressedSize: UInt64; var installSize: UInt64
                var chunkCount: Int; var chunking: ChunkingParameters; var files: [File]
            }
            let files = index.files.indices.map { i in
                File(path: index.files[i].path, mode: String(index.files[i].mode, radix: 8), size: index.files[i].size, chunks: index.spans(ofFile: i).count)
            }
            print(jsonString(Out(assetPackID: m.assetPackID, downloadPolicy: m.downloadPolicy, language: m.language, platforms: m.platforms,
                                 formatVersion: index.formatVersion, digest: reader.digest.hex, packSize: reader.fileSize,
                                 compressedSize: index.compressedSize, installSize: index.installSize,
                                 chunkCount: index.chunks.count, chunking: index.chunking, files: files)))
            return 0
        }
        let events = m.downloadPolicy.installationEventTypes.map(\.rawValue).joined(separator: ", ")
        print("""
        Asset pack:     \(m.assetPackID)
        Policy:         \(m.downloadPolicy.name)\(events.isEmpty ? "" : " (\(events))")
        Language:       \(m.language ?? "none (all languages)")
        Platforms:      \(m.platforms.map(\.rawValue).joined(separator: ", "))
        Format:         version \(index.formatVersion), digest \(reader.digest.hex)
        Files:          \(index.files.count)
        Chunks:         \(index.chunks.count) stored, \(index.sequence.count) used
        Install size:   \(index.installSize) bytes (\(ByteCount.format(index.installSize)))
        Compressed:     \(index.compressedSize) bytes of chunks, \(reader.fileSize) bytes in all (\(ByteCount.format(reader.fileSize)))

        """)
        for i in index.files.indices {
            let f = index.files[i]
            print("\(String(f.mode, radix: 8).leftPadded(4)) \(String(f.size).leftPadded(12)) \(String(index.spans(ofFile: i).count).leftPadded(6)) chunks  \(f.path)")
        }
        return 0
    }
}
