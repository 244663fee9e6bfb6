import AssetPackFormat
import CPOSIX
import Foundation

/// Writes bytes of a pack's content stream, at their stream offsets, into the files of a staging
/// folder. Several writers fill one folder side by side, each its own stretch (`range`) of the
/// stream, so files are never truncated or replaced: each byte is written in place (`pwrite`),
/// and a file a writer holds whole gets its mode when its last byte is in. A file a resumed run
/// left read-only is made writable for the write and given its mode back after. Every file and
/// folder is opened through `root` (`ConfinedDirectory`): a link planted among them is refused.
///
/// Files come in stream order, so neighbours share a folder: the writer holds the folder of the
/// last file open (opened through `root`) and creates the next file in it by its name alone,
/// exclusively (`ConfinedDirectory.createFile`); a new file whose mode lets its owner write it is
/// created with that mode, which then needs no `fchmod`. Anything already at a file's place (a
/// resumed run's file, a straddling file another writer created, a planted link) goes the way of
/// the whole path through `root`.
struct ContentRangeWriter {
    let root: ConfinedDirectory
    let index: PackIndex
    private(set) var range: Range<UInt64>
    /// Whether empty files placed at `range.upperBound` are this writer's (the stream's end).
    private(set) var includesEnd: Bool
    /// Files not to write (hard links of the installed previous version's files).
    let skipping: FileSet
    /// Files linked while the writer ran (`skip`), apart so that `skipping`, often the plan's
    /// set of every linked file, is not copied.
    private var skippedSince: FileSet = []
    private var fd: Int32 = -1
    private var current = -1
    private var restoreMode = false
    /// Whether the open file was created with its mode (it needs no `fchmod`).
    private var createdWithMode = false
    /// The folder of the last file opened.
    private var folder = HeldFolder()
    /// The process's file creation mask when the writer began (nil: unknown, so every file is
    /// created writable by its owner alone and given its mode once written).
    private let creationMask: mode_t?
    /// Whether `root` has a default ACL (its new files take their permissions from it, so they
    /// are given their mode once written).
    private let rootHasDefaultACL: Bool
    /// The open file's writes so far: writeback starts every few MiB and when the file is
    /// closed with enough left (smaller files are left to the install's final syncfs, which then
    /// waits for the last few MiB rather than the whole pack), and a large file leaves the page
    /// cache behind the writes (`DropBehind`). Nil until the open file's first write.
    private var behind: DropBehind?
    /// Where the open file's writes have reached.
    private var written: Int64 = 0
    /// Whether the kernel refused to copy between files (`copy`): every later copy is written instead.
    private var copyRefused = false
    /// The block a file system that shares blocks between files shares (XFS, Btrfs: 4 KiB pages).
    private static let sharedBlockSize: Int64 = 4096

    init(root: ConfinedDirectory, index: PackIndex, range: Range<UInt64>, includesEnd: Bool, skipping: FileSet = []) {
        self.root = root
        self.index = index
        self.range = range
        self.includesEnd = includesEnd
        self.skipping = skipping
        let mask = cposix_current_umask()
        creationMask = mask >= 0 ? mode_t(mask) : nil
        rootHasDefaultACL = cposix_has_default_acl(root.fd) != 0
    }

    /// Writes `bytes` at stream offset `offset`.
    mutating func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let at = offset + UInt64(done)
            if !skipping.isEmpty || !skippedSince.isEmpty, let f = index.file(containing: at), isSkipped(f) {
                done += Int(min(UInt64(bytes.count - done), index.files.end(at: f) - at))
                continue
            }
            let f = try file(containing: at)
            let fileStart = index.fileOffsets[f], fileEnd = fileStart + index.files.size(at: f)
            let n = Int(min(UInt64(bytes.count - done), fileEnd - at))
            try writeAll(UnsafeRawBufferPointer(rebasing: bytes[done..<done + n]), at: at - fileStart, file: f)
            done += n
            if at + UInt64(n) == fileEnd && fileStart >= range.lowerBound && fileEnd <= range.upperBound {
                try closeCurrent(settingMode: true)
            }
        }
    }

    /// Copies `length` bytes of the open file `source`, from `sourceOffset`, to stream offset
    /// `offset` inside the kernel (`copy_file_range`), when they fall in one file this writer
    /// writes; false otherwise, or when the kernel cannot copy between these files or `source`
    /// ends early: the caller then places the bytes with `write`, over whatever part was copied.
    mutating func copy(from source: Int32, at sourceOffset: UInt64, length: Int, to offset: UInt64) throws -> Bool {
        guard !copyRefused, length > 0, let f = index.file(containing: offset), offset + UInt64(length) <= index.files.end(at: f),
              !isSkipped(f) else { return false }
        _ = try file(containing: offset)
        let fileStart = index.fileOffsets[f], fileEnd = index.files.end(at: f)
        var from = Int64(sourceOffset), to = Int64(offset - fileStart)
        let first = to, end = to + Int64(length)
        while to < end {
            // A file system that shares blocks shares only whole ones, and a range that starts
            // within one is copied whole: the part up to the next block boundary goes first, so
            // that the rest (where both files agree on the alignment) can be shared.
            let block = Self.sharedBlockSize, head = block - to % block
            let n = cposix_copy_file_range(source, &from, fd, &to, head < block && from % block == to % block ? min(head, end - to) : end - to)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && [EXDEV, EINVAL, EOPNOTSUPP, ENOSYS].contains(errno) { copyRefused = true }
            guard n > 0 else { return false }
        }
        wrote(from: first, to: to, file: f)
        if offset + UInt64(length) == fileEnd && fileStart >= range.lowerBound && fileEnd <= range.upperBound {
            try closeCurrent(settingMode: true)
        }
        return true
    }

    /// Whether file `f` is not to be written (linked before the writer began, or since).
    func isSkipped(_ f: Int) -> Bool { skipping.contains(f) || skippedSince.contains(f) }

    /// Leaves file `f` unwritten from now on: it was linked in the meantime. It must not be the
    /// file open (one a write has begun).
    mutating func skip(_ f: Int) {
        precondition(f != current, "a file being written cannot be skipped")
        skippedSince.insert(f)
    }

    /// Moves the end of this writer's stretch down to `end` (another writer took the rest):
    /// files that reach past it are not this writer's to finish.
    mutating func end(at end: UInt64, includesEnd: Bool) {
        range = range.lowerBound..<max(range.lowerBound, min(end, range.upperBound))
        self.includesEnd = includesEnd
    }

    /// Creates the empty files placed in this writer's stretch, and closes the open file.
    mutating func finish() throws {
        try close()
        var lo = 0, hi = index.files.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if index.fileOffsets[mid] < range.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        for f in lo..<index.files.count where index.files.size(at: f) == 0 && !isSkipped(f) {
            let at = index.fileOffsets[f]
            guard at < range.upperBound || (includesEnd && at == range.upperBound) else { break }
            try open(f)
            try closeCurrent(settingMode: true)
        }
    }

    /// Closes the open file (giving a file made writable for a write its mode back).
    mutating func close() throws { try closeCurrent(settingMode: restoreMode) }

    /// Closes the open file after a failure.
    mutating func abandon() {
        if fd >= 0 { Foundation.close(fd); fd = -1 }
        behind = nil
        folder.release()
    }

    /// Gives every file that straddles `offset` (held by two writers, so neither set it) its mode.
    func setModeOfFile(straddling offset: UInt64) throws {
        let f = index.file(containing: offset)
        guard let f, index.fileOffsets[f] < offset, !isSkipped(f) else { return }
        do { try root.setMode(index.files.path(at: f), mode_t(index.files.mode(at: f))) } catch {
            throw PackError.io("cannot set the mode of \(index.files.path(at: f)): \(error)")
        }
    }

    private mutating func file(containing offset: UInt64) throws -> Int {
        if current >= 0, index.fileOffsets[current] <= offset, offset < index.files.end(at: current) {
            return current
        }
        guard let f = index.file(containing: offset) else { throw PackError.io("stream offset \(offset) lies past the last file") }
        try closeCurrent(settingMode: restoreMode)
        try open(f)
        return f
    }

    private mutating func open(_ f: Int) throws {
        let file = index.files[f]
        restoreMode = false
        // A mode the new file can have from the start: its owner may write it, the creation mask
        // takes none of its bits away, and no default ACL of its folder stands in for that mask.
        let mode = mode_t(file.mode)
        let creatable = mode & 0o200 != 0 && mode & ~0o777 == 0 && creationMask.map { mode & $0 == 0 } == true
        var withMode = false
        let created = try file.path.withCString { full throws -> Int32 in
            guard let slash = strrchr(full, Int32(UInt8(ascii: "/"))) else {
                withMode = creatable && !rootHasDefaultACL
                return root.createFile(full, flags: O_WRONLY, mode: withMode ? mode : 0o600)
            }
            let (folder, hasDefaultACL) = try self.folder.directory(full, length: full.distance(to: slash), in: root)
            withMode = creatable && !hasDefaultACL
            return folder.createFile(slash + 1, flags: O_WRONLY, mode: withMode ? mode : 0o600)
        }
        createdWithMode = created >= 0 && withMode
        current = f
        if created >= 0 { fd = created; return }
        // Something is there already (or the name is not plain): through the whole path, which
        // refuses a link and says why a file cannot be opened.
        do { fd = try root.open(file.path, flags: O_WRONLY | O_CREAT | O_NONBLOCK, mode: 0o600) } catch let error where error.code == EACCES {
            do {
                try root.setMode(file.path, 0o600)
                fd = try root.open(file.path, flags: O_WRONLY | O_CREAT | O_NONBLOCK, mode: 0o600)
                restoreMode = true
            } catch { current = -1; throw PackError.io("cannot create \(file.path): \(error)") }
        } catch { current = -1; throw PackError.io("cannot create \(file.path): \(error)") }
    }

    private mutating func writeAll(_ buffer: UnsafeRawBufferPointer, at offset: UInt64, file f: Int) throws {
        var done = 0
        while done < buffer.count {
            let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw PackError.io("cannot write \(index.files.path(at: f)): \(String(cString: strerror(errno)))") }
            done += n
        }
        wrote(from: Int64(offset), to: Int64(offset) + Int64(buffer.count), file: f)
    }

    /// The open file (file `f`) was written from `start` to `end`.
    private mutating func wrote(from start: Int64, to end: Int64, file f: Int) {
        if behind == nil { behind = DropBehind(fd: fd, from: start, fileSize: index.files.size(at: f)) }
        written = end
        behind!.wrote(upTo: written)
    }

    private mutating func closeCurrent(settingMode: Bool) throws {
        guard fd >= 0 else { return }
        let f = current
        behind?.finishWriting(at: written)
        behind = nil
        defer { Foundation.close(fd); fd = -1; current = -1; restoreMode = false; createdWithMode = false }
        if (settingMode && !createdWithMode) || restoreMode, fchmod(fd, mode_t(index.files.mode(at: f))) != 0 {
            throw PackError.io("cannot set the mode of \(index.files.path(at: f)): \(String(cString: strerror(errno)))")
        }
    }
}

/// The folder a `ContentRangeWriter` last created a file in, open, so that the next file in it
/// is created by its name alone. The folder is opened (or created) through the writer's root,
/// never through a link.
private struct HeldFolder {
    /// The folder's path below the root, without a terminator; empty when none is held.
    private var path: [CChar] = []
    private var held: ConfinedDirectory?
    /// Whether the folder held has a default ACL (or whether it has one could not be read).
    private var hasDefaultACL = false

    /// The folder made of the first `length` bytes of `full` (a file's path), opened through
    /// `root` (and created with its parents when missing) unless it is the one held, and whether
    /// it has a default ACL.
    mutating func directory(_ full: UnsafePointer<CChar>, length: Int, in root: ConfinedDirectory) throws -> (ConfinedDirectory, hasDefaultACL: Bool) {
        if let held, path.count == length, memcmp(path, full, length) == 0 { return (held, hasDefaultACL) }
        release()
        let relative = String(decoding: UnsafeRawBufferPointer(start: full, count: length), as: UTF8.self)
        let opened: ConfinedDirectory
        do {
            do { opened = try root.directory(relative) } catch where error.isMissing { opened = try root.directory(relative, create: true) }
        } catch {
            throw PackError.io("cannot create the folder \(relative): \(error)")
        }
        path = Array(UnsafeBufferPointer(start: full, count: length))
        held = opened
        hasDefaultACL = cposix_has_default_acl(opened.fd) != 0
        return (opened, hasDefaultACL)
    }

    /// Closes the folder held.
    mutating func release() {
        held = nil
        path = []
    }
}
