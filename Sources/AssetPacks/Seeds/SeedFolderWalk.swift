import AssetPackFormat
import AssetPackTransport
import Foundation

/// A regular file found in a seed folder.
struct SeedFile: Equatable {
    /// The seed folder's number (in the order configured).
    var folder: Int
    /// The path below the folder.
    var path: String
    var size: UInt64
}

/// Lists the regular files below seed folders, depth first in name order, looking at each entry
/// without following it: a symbolic link (to a file or a folder, inside the folder or out of
/// it) is skipped, and so are FIFOs, sockets and devices, and folders that cannot be opened. At
/// most `entryLimit` entries are looked at over all the folders.
struct SeedFolderWalk {
    let folders: [ConfinedDirectory]
    let entryLimit: Int

    func files(report: inout SeedScanReport, cancellation: CancellationFlag) -> [SeedFile] {
        var files: [SeedFile] = []
        var entries = 0
        for (k, folder) in folders.enumerated() {
            var pending = [""]
            while let relative = pending.popLast() {
                if cancellation.isCancelled { return files }
                guard let directory = try? folder.directory(relative), let names = try? directory.entries() else {
                    report.unreadable += 1
                    continue
                }
                var folders: [String] = []
                for name in names.sorted() {
                    entries += 1
                    guard entries <= entryLimit else {
                        report.entryLimitReached = true
                        return files
                    }
                    let path = relative.isEmpty ? name : relative + "/" + name
                    var st = stat()
                    guard fstatat(directory.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { report.unreadable += 1; continue }
                    switch st.st_mode & S_IFMT {
                    case S_IFDIR: folders.append(path)
                    case S_IFREG: files.append(SeedFile(folder: k, path: path, size: UInt64(st.st_size)))
                    case S_IFLNK: report.links += 1
                    default: report.special += 1
                    }
                }
                pending.append(contentsOf: folders.reversed())
            }
        }
        return files
    }
}
