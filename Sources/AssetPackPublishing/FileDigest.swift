import AssetPackFormat
import Foundation

/// The SHA-256 of a file on disk, read in blocks.
enum FileDigest {
    static func of(_ path: String) -> SHA256Digest? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let hasher = SHA256Hasher()
        do {
            // read(upToCount:) returns nil or empty data at the end of the file.
            while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty { hasher.update(block) }
        } catch {
            return nil
        }
        return hasher.finalize()
    }
}
