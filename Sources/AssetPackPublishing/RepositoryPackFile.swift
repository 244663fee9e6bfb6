import AssetPackFormat
import Foundation

/// A pack file already in the repository, opened beneath the repository folder with no link
/// followed at any component: a `packs/ID` folder or a pack file replaced by a link (by another
/// process that can write into the repository) is refused, never read through.
enum RepositoryPackFile {
    /// The pack at `relativePath`, or the reason it cannot be read.
    static func reader(_ relativePath: String, in folder: ConfinedDirectory, keys: [ContentKey] = []) throws -> PackReader {
        let fd = try open(relativePath, in: folder)
        do { return try PackReader(adopting: fd, path: folder.display(relativePath), keys: keys) } catch { throw PublishError.io("\(error)") }
    }

    /// What the catalog says about the pack at `relativePath`, read from the file itself (the
    /// whole file is hashed).
    static func info(_ relativePath: String, in folder: ConfinedDirectory, keys: [ContentKey] = []) throws -> PackFileInfo {
        let fd = try open(relativePath, in: folder)
        guard let sha256 = FileDigest.of(descriptor: fd) else {
            close(fd)
            throw PublishError.io("cannot read \(folder.display(relativePath)): \(String(cString: strerror(errno)))")
        }
        let reader: PackReader
        do { reader = try PackReader(adopting: fd, path: folder.display(relativePath), keys: keys) } catch { throw PublishError.io("\(error)") }
        return PackFileInfo(reader: reader, sha256: sha256)
    }

    private static func open(_ relativePath: String, in folder: ConfinedDirectory) throws -> Int32 {
        try RepositoryTransaction.confined { () throws(ConfinementError) in try folder.open(relativePath, flags: O_RDONLY) }
    }
}
