import ArgumentParsing
import AssetPackFormat

struct VerifyCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "verify",
            abstract: "Check every hash in a pack.",
            discussion: "Checks the index digest, then decompresses every chunk and checks its SHA-256. On failure names the chunk and the files it belongs to.")
    }

    @Argument("PACKFILE")
    var pack: String
    @Option("--base", value: "FILE", help: "A base file of a device variant's pack file, repeatable: its group's default pack file, and the variants' it takes frames from ('inspect' lists them).")
    var base: [String]
    @Option("--threads", value: "N", help: "Worker threads (default: all cores).",
            range: SettingBounds.threads, reason: SettingBounds.threadsReason)
    var threads: Int?

    init() {}

    func run() throws -> Int32 {
        let reader = try openWholePack(pack, bases: base)
        var threads = reader.index.chunks.isEmpty ? 1 : 0
        if let n = self.threads { threads = n }
        do {
            if threads > 0 {
                try reader.forEachChunk(Array(reader.index.chunks.indices), threads: threads) { _, _ in }
            } else {
                try reader.forEachChunk(Array(reader.index.chunks.indices)) { _, _ in }
            }
        } catch {
            throw CLIError.failure("\(pack): \(error)")
        }
        print("\(pack): OK — \(reader.index.chunks.count) chunks, \(reader.index.files.count) files, digest \(reader.digest.hex)")
        return 0
    }
}
