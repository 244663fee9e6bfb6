import ArgumentParsing
import AssetPackFormat

/// Opens a pack for a command, turning format errors into failures that name the file. A pack
/// file with bases (a device variant's, format version 4 or 5) reads its shared frames from
/// `bases`, the files of its group it names (each must be one its index pins, in any order);
/// without them, reading such a frame fails saying so.
func openPack(_ path: String, bases: [String] = []) throws(CLIError) -> PackReader {
    do {
        let reader = try PackReader(path: path)
        for base in bases { try reader.attachBase(path: base) }
        return reader
    } catch { throw .failure("\(path): \(error)") }
}

/// Opens a pack whose every chunk is to be read: a pack file with bases needs each of them.
func openWholePack(_ path: String, bases: [String]) throws(CLIError) -> PackReader {
    let reader = try openPack(path, bases: bases)
    let missing = reader.missingBases.map { reader.index.bases[$0] }
    if !missing.isEmpty {
        let single = reader.index.bases.count == 1
        throw .failure("\(path): \(reader.index.baseChunkCount) of its chunks lie in \(single ? "its base file" : "\(reader.index.bases.count) base files") "
                       + "(\(single ? "" : "not given: ")\(PackReader.describe(missing))): give \(single ? "that file, its device variant group's default pack file" : "each, a file of its device variant group"), with --base FILE")
    }
    return reader
}
