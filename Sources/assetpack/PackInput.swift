import ArgumentParsing
import AssetPackFormat

/// Opens a pack for a command, turning format errors into failures that name the file.
func openPack(_ path: String) throws(CLIError) -> PackReader {
    do { return try PackReader(path: path) } catch { throw .failure("\(path): \(error)") }
}
