import AssetPackFormat
import Foundation

/// Extracts a pack into a directory: every chunk is verified before its bytes are written, files
/// are written into a staging folder beside the destination, and the folder is renamed into place
/// only when everything is complete. On failure the staging folder is removed and the
/// destination is untouched. Paths come from a checked index (relative, no `..`), and only
/// regular files and directories are created, so nothing is written outside the destination.
public struct PackExtractor {
    public let reader: PackReader

    public init(reader: PackReader) { self.reader = reader }

    public func extract(to destination: String) throws {
        let staged: StagedDestination
        do { staged = try StagedDestination(destination) } catch { throw PackError.io(error.description) }
        do {
            try writeFiles(into: staged.staging)
            do { try staged.commit() } catch { throw PackError.io(error.description) }
        } catch {
            staged.discard()
            throw error
        }
    }

    private func writeFiles(into root: String) throws {
        let index = reader.index
        var writer = try StreamFileWriter(root: root, files: index.files)
        try reader.forEachChunk(index.sequence.map(Int.init)) { _, bytes in
            try bytes.withUnsafeBytes { try writer.consume($0) }
        }
        try writer.finish()
    }
}
