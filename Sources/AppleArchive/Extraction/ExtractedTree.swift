import AssetPackFormat
import Foundation

/// The tree being written under a staging folder, entry by entry, each through the confined
/// staging root: a path whose folder is a symlink (one an earlier entry made) or a file is
/// refused by the kernel's `RESOLVE_NO_SYMLINKS` / `O_NOFOLLOW` walk, never followed. Folders are
/// created owner-writable and get their own mode and time in `finish()`, after everything inside
/// them is written.
struct ExtractedTree {
    private let root: ConfinedDirectory
    /// The folder the last entry went into (entries come grouped by folder): one walk per folder.
    private var lastParent: (path: String, folder: ConfinedDirectory)?
    /// The folders the archive declares, with the mode and time they get at the end.
    private var folders: [(path: String, mode: mode_t, time: AppleArchiveEntry.Time?)] = []
    private(set) var summary = AppleArchiveExtractionSummary()

    init(root: ConfinedDirectory) { self.root = root }

    mutating func create(_ entry: AppleArchiveEntry, reading reader: AppleArchiveReader) throws(AppleArchiveError) {
        switch entry.type {
        case .directory:
            if !entry.path.isEmpty {
                let (folder, name) = try parent(of: entry)
                if mkdirat(folder.fd, name, 0o700) != 0 {
                    let e = errno
                    var st = stat()
                    guard e == EEXIST, fstatat(folder.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFDIR else {
                        throw failure(entry, e, "cannot create the folder")
                    }
                }
            }
            folders.append((entry.path, mode_t(entry.mode ?? 0o755) & 0o777, entry.modificationTime))
            summary.directories += 1
        case .file:
            let (folder, name) = try parent(of: entry)
            let fd = openat(folder.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw failure(entry, errno, "cannot create the file") }
            defer { close(fd) }
            // A large file leaves the page cache behind the writes (`DropBehind`).
            var behind = DropBehind(fd: fd, fileSize: entry.size)
            var written: Int64 = 0
            do {
                try reader.readData { slice in
                    var done = 0
                    while done < slice.count {
                        let n = write(fd, slice.baseAddress! + done, slice.count - done)
                        if n < 0 && errno == EINTR { continue }
                        guard n > 0 else { throw failure(entry, errno, "cannot write the file") }
                        done += n
                    }
                    written += Int64(slice.count)
                    behind.wrote(upTo: written)
                }
                behind.finishWriting(at: written)
            } catch let error as AppleArchiveError {
                throw error
            } catch {
                throw AppleArchiveError(.io, entry.region, at: nil, "\(error)")
            }
            guard fchmod(fd, mode_t(entry.mode ?? 0o644) & 0o777) == 0 else { throw failure(entry, errno, "cannot set the file's mode") }
            if let time = entry.modificationTime {
                var times = Self.timespecs(time)
                guard futimens(fd, &times) == 0 else { throw failure(entry, errno, "cannot set the file's time") }
            }
            summary.files += 1
            summary.bytes += entry.size
        case .symbolicLink:
            let (folder, name) = try parent(of: entry)
            guard symlinkat(entry.linkTarget ?? "", folder.fd, name) == 0 else { throw failure(entry, errno, "cannot create the symlink") }
            if let time = entry.modificationTime {
                var times = Self.timespecs(time)
                guard utimensat(folder.fd, name, &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw failure(entry, errno, "cannot set the symlink's time") }
            }
            summary.symbolicLinks += 1
        case .metadata:
            summary.skipped.append(entry)
        default:
            throw AppleArchiveError(.unsupported, entry.region, at: entry.offset,
                                    "a \(entry.type) entry (TYP \(entry.type.letter)) cannot be extracted; only files, folders and symlinks are (refused)")
        }
    }

    /// Gives the declared folders their modes and times, deepest first.
    func finish() throws(AppleArchiveError) {
        for f in folders.reversed() {
            let name = f.path.split(separator: "/").last.map(String.init) ?? "."
            let holder: ConfinedDirectory
            do {
                holder = try root.directory(f.path.split(separator: "/").dropLast().joined(separator: "/"))
            } catch { throw AppleArchiveError(.io, root.display(f.path), at: nil, error.description) }
            if let time = f.time {
                var times = Self.timespecs(time)
                guard utimensat(holder.fd, name, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
                    throw AppleArchiveError(.io, root.display(f.path), at: nil, "cannot set the folder's time: \(String(cString: strerror(errno)))")
                }
            }
            guard fchmodat(holder.fd, name, f.mode, 0) == 0 else {
                throw AppleArchiveError(.io, root.display(f.path), at: nil, "cannot set the folder's mode: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The confined folder that holds `entry` (created with its parents) and the entry's name.
    private mutating func parent(of entry: AppleArchiveEntry) throws(AppleArchiveError) -> (ConfinedDirectory, String) {
        var parts = entry.path.split(separator: "/", omittingEmptySubsequences: false)
        let name = String(parts.removeLast())
        let path = parts.joined(separator: "/")
        if let last = lastParent, last.path == path { return (last.folder, name) }
        do {
            let folder = try root.directory(path, create: true)
            lastParent = (path, folder)
            return (folder, name)
        } catch {
            throw AppleArchiveError(.io, entry.region, at: entry.offset, "\(error.reason) (\(error.path))")
        }
    }

    private func failure(_ entry: AppleArchiveEntry, _ code: Int32, _ what: String) -> AppleArchiveError {
        let reason = code == EEXIST ? "\(what): the path already exists in the extracted tree" : "\(what): \(String(cString: strerror(code)))"
        return AppleArchiveError(.io, entry.region, at: entry.offset, reason)
    }

    private static func timespecs(_ time: AppleArchiveEntry.Time) -> [timespec] {
        let t = timespec(tv_sec: Int(time.seconds), tv_nsec: Int(time.nanoseconds))
        return [t, t]
    }
}
