import ArgumentParsing
import AssetPackFormat

struct InspectCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "inspect",
            abstract: "Show a pack's metadata, files and sizes.",
            discussion: "Reads only the trailer and the index (the index digest is checked); use 'verify' to check every chunk. A device variant's pack file with bases (format 4 or 5) lists each base file it takes frames from: its size, SHA-256, and the chunks and bytes of frames that lie there.")
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
            struct Base: Encodable { var sha256: String; var size: UInt64; var chunkCount: Int; var compressedSize: UInt64 }
            struct Out: Encodable {
                var assetPackID: String; var downloadPolicy: DownloadPolicy; var language: String?; var platforms: [Platform]
                var formatVersion: UInt32; var digest: String; var packSize: UInt64; var compressedSize: UInt64; var installSize: UInt64
                var chunkCount: Int; var chunking: ChunkingParameters; var files: [File]
                /// Absent for a pack without bases; `ownCompressedSize` then equals `compressedSize`.
                var bases: [Base]?; var ownCompressedSize: UInt64
            }
            let files = index.files.indices.map { i in
                File(path: index.files.path(at: i), mode: String(index.files.mode(at: i), radix: 8), size: index.files.size(at: i), chunks: index.spans(ofFile: i).count)
            }
            print(jsonString(Out(assetPackID: m.assetPackID, downloadPolicy: m.downloadPolicy, language: m.language, platforms: m.platforms,
                                 formatVersion: index.formatVersion, digest: reader.digest.hex, packSize: reader.fileSize,
                                 compressedSize: index.compressedSize, installSize: index.installSize,
                                 chunkCount: index.chunks.count, chunking: index.chunking, files: files,
                                 bases: index.bases.isEmpty ? nil : index.bases.indices.map { b in
                                     Base(sha256: index.bases[b].sha256.hex, size: index.bases[b].size, chunkCount: index.bases[b].chunkCount,
                                          compressedSize: baseBytes(b, in: index))
                                 }, ownCompressedSize: index.ownCompressedSize)))
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
        if !index.bases.isEmpty {
            print("Own frames:     \(index.chunks.count - index.baseChunkCount) chunks, \(index.ownCompressedSize) bytes (the rest lie in \(index.bases.count == 1 ? "its base" : "its \(index.bases.count) bases"))")
            for b in index.bases.indices {
                let base = index.bases[b]
                let label = "Base \(b + 1):"
                print(label + String(repeating: " ", count: max(1, 16 - label.count)) + "\(base.chunkCount) chunks, \(baseBytes(b, in: index)) bytes of frames in the file of \(base.size) bytes with SHA-256 \(base.sha256.hex)")
            }
        }
        print("")
        for i in index.files.indices {
            let f = index.files[i]
            print("\(String(f.mode, radix: 8).leftPadded(4)) \(String(f.size).leftPadded(12)) \(String(index.spans(ofFile: i).count).leftPadded(6)) chunks  \(f.path)")
        }
        return 0
    }

    /// Compressed bytes of the frames base `b` holds for the pack.
    private func baseBytes(_ b: Int, in index: PackIndex) -> UInt64 {
        let start = index.bases[..<b].reduce(0) { $0 + $1.chunkCount }
        return index.chunks[start..<start + index.bases[b].chunkCount].reduce(0) { $0 + UInt64($1.compressedSize) }
    }
}
