import ArgumentParsing
import AssetPackFormat

/// Opens a pack for a command, turning format errors into failures that name the file. A pack
/// file with a base (a device variant's, format version 4) reads its shared frames from `base`,
/// its group's default file, which must be the file its index pins; without one, reading such
/// a frame fails saying so.
func openPack(_ path: String, base: String? = nil) throws(CLIError) -> PackReader {
    do {
        let reader = try PackReader(path: path)
        if let base { try reader.attachBase(path: base) }
        return reader
    } catch { throw .failure("\(path): \(error)") }
}

/// Opens a pack whose every chunk is to be read: a pack file with a base needs `base`.
func openWholePack(_ path: String, base: String?) throws(CLIError) -> PackReader {
    let reader = try openPack(path, base: base)
    if let pinned = reader.index.base, base == nil {
        throw .failure("\(path): \(pinned.chunkCount) of its chunks lie in its base file (\(pinned.size) bytes, SHA-256 \(pinned.sha256.hex)): "
                       + "give that file, its device variant group's default pack file, with --base FILE")
    }
    return reader
}
