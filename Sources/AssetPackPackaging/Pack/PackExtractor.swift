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
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: destination, isDirectory: &isDir) {
            guard isDir.boolValue, (try? fm.contentsOfDirectory(atPath: destination))?.isEmpty == true else {
                throw PackError.io("\(destination) already exists and is not an empty directory")
            }
        }
        let url = URL(fileURLWithPath: destination).standardizedFileURL
        let parent = url.deletingLastPathComponent()
        // Missing parent folders are created, and removed again if the extraction fails.
        var createdParents: [URL] = []
        var p = parent
        while !fm.fileExists(atPath: p.path) { createdParents.append(p); p = p.deletingLastPathComponent() }
        let staging = parent.path + "/.\(url.lastPathComponent).extracting-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
            guard mkdir(staging, 0o755) == 0 else { throw PackError.io("cannot create \(staging): \(String(cString: strerror(errno)))") }
        } catch {
            for d in createdParents { rmdir(d.path) }
            throw error
        }
        do {
            try writeFiles(into: staging)
            if isDir.boolValue { rmdir(destination) }
            guard rename(staging, destination) == 0 else {
                throw PackError.io("cannot move the extracted files to \(destination): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? fm.removeItem(atPath: staging)
            for d in createdParents { rmdir(d.path) }
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
