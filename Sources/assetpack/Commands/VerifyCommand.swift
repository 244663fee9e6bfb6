import AssetPackCLI
import AssetPackFormat

let verifyCommand = CommandSpec(
    name: "verify",
    abstract: "Check every hash in a pack.",
    arguments: "PACKFILE",
    discussion: "Checks the index digest, then decompresses every chunk and checks its SHA-256. On failure names the chunk and the files it belongs to.",
    options: [.option("--threads", value: "N", help: "Worker threads (default: all cores).")],
    positionalCount: 1...1
) { args in
    let path = args.positionals[0]
    let reader = try openPack(path)
    var threads = reader.index.chunks.isEmpty ? 1 : 0
    if let t = args.value("--threads") {
        guard let n = Int(t), n >= 1 else { throw CLIError.usage("--threads takes a whole number ≥ 1") }
        threads = n
    }
    do {
        if threads > 0 {
            try reader.forEachChunk(Array(reader.index.chunks.indices), threads: threads) { _, _ in }
        } else {
            try reader.forEachChunk(Array(reader.index.chunks.indices)) { _, _ in }
        }
    } catch {
        throw CLIError.failure("\(path): \(error)")
    }
    print("\(path): OK — \(reader.index.chunks.count) chunks, \(reader.index.files.count) files, digest \(reader.digest.hex)")
    return 0
}
