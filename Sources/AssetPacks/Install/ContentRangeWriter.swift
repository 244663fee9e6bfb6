import AssetPackFormat
import CPOSIX
import Foundation

/// Writes bytes of a pack's content stream, at their stream offsets, into the files of a staging
/// folder. Several writers fill one folder side by side, each its own stretch (`range`) of the
/// stream, so files are never truncated or replaced: each byte is written in place (`pwrite`),
/// and a file a writer holds whole gets its mode when its last byte is in. A file a resumed run
/// left read-only is made writable for the write and given its mode back after. Every file and
/// folder is opened through `root` (`ConfinedDirectory`): a link planted among them is refused.
struct ContentRangeWriter {
    let root: ConfinedDirectory
    let index: PackIndex
    private(set) var range: Range<UInt64>
    /// Whether empty files placed at `range.upperBound` are this writer's (the stream's end).
    private(set) var includesEnd: Bool
    /// Files not to write (hard links of the installed previous version's files).
    let skipping: Set<Int>
    private var fd: Int32 = -1
    private var current = -1
    private var restoreMode = false
    private var madeDirectories: Set<String> = [""]
    /// Bytes written to the open file since its writeback was last started.
    private var unflushed = 0
    /// Writeback of the open file starts each time this much was written to it, and when it is
    /// closed with at least `closingWriteback` unflushed (smaller files are left to the install's
    /// final syncfs): that syncfs then waits for the last few MiB rather than the whole pack.
    private static let writebackStretch = 4 << 20
    private static let closingWriteback = 256 << 10

    init(root: ConfinedDirectory, index: PackIndex, range: Range<UInt64>, includesEnd: Bool, skipping: Set<Int> = []) {
        self.root = root
        self.index = index
        self.range = range
        self.includesEnd = includesEnd
        self.skipping = skipping
    }

    /// Writes `bytes` at stream offset `offset`.
    mutating func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let at = offset + UInt64(done)
            if !skipping.isEmpty, let f = index.file(containing: at), skipping.contains(f) {
                done += Int(min(UInt64(bytes.count - done), index.fileOffsets[f] + index.files[f].size - at))
                continue
            }
            let f = try file(containing: at)
            let fileStart = index.fileOffsets[f], fileEnd = fileStart + index.files[f].size
            let n = Int(min(UInt64(bytes.count - done), fileEnd - at))
            try writeAll(UnsafeRawBufferPointer(rebasing: bytes[done..<done + n]), at: at - fileStart, file: f)
            done += n
            if at + UInt64(n) == fileEnd && fileStart >= range.lowerBound && fileEnd <= range.upperBound {
                try closeCurrent(settingMode: true)
            }
        }
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
        for f in lo..<index.files.count where index.files[f].size == 0 && !skipping.contains(f) {
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
        unflushed = 0
    }

    /// Gives every file that straddles `offset` (held by two writers, so neither set it) its mode.
    func setModeOfFile(straddling offset: UInt64) throws {
        let f = index.file(containing: offset)
        guard let f, index.fileOffsets[f] < offset, !skipping.contains(f) else { return }
        do { try root.setMode(index.files[f].path, mode_t(index.files[f].mode)) } catch {
            throw PackError.io("cannot set the mode of \(index.files[f].path): \(error)")
        }
    }

    private mutating func file(containing offset: UInt64) throws -> Int {
        if current >= 0, index.fileOffsets[current] <= offset, offset < index.fileOffsets[current] + index.files[current].size {
            return current
        }
        guard let f = index.file(containing: offset) else { throw PackError.io("stream offset \(offset) lies past the last file") }
        try closeCurrent(settingMode: restoreMode)
        try open(f)
        return f
    }

    private mutating func open(_ f: Int) throws {
        let file = index.files[f]
        var dir = ""
        for component in file.path.split(separator: "/").dropLast() {
            dir = dir.isEmpty ? String(component) : dir + "/" + component
            if !madeDirectories.contains(dir) {
                do { _ = try root.directory(dir, create: true) } catch {
                    throw PackError.io("cannot create the folder \(dir): \(error)")
                }
                madeDirectories.insert(dir)
            }
        }
        restoreMode = false
        do { fd = try root.open(file.path, flags: O_WRONLY | O_CREAT, mode: 0o600) } catch let error where error.code == EACCES {
            do {
                try root.setMode(file.path, 0o600)
                fd = try root.open(file.path, flags: O_WRONLY | O_CREAT, mode: 0o600)
                restoreMode = true
            } catch { throw PackError.io("cannot create \(file.path): \(error)") }
        } catch { throw PackError.io("cannot create \(file.path): \(error)") }
        current = f
    }

    private mutating func writeAll(_ buffer: UnsafeRawBufferPointer, at offset: UInt64, file f: Int) throws {
        var done = 0
        while done < buffer.count {
            let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw PackError.io("cannot write \(index.files[f].path): \(String(cString: strerror(errno)))") }
            done += n
        }
        unflushed += buffer.count
        if unflushed >= Self.writebackStretch { startWriteback() }
    }

    /// Starts writing the open file's dirty pages back (Linux; advisory, errors ignored).
    private mutating func startWriteback() {
        _ = cposix_start_writeback(fd, 0, 0)
        unflushed = 0
    }

    private mutating func closeCurrent(settingMode: Bool) throws {
        guard fd >= 0 else { return }
        let file = index.files[current]
        if unflushed >= Self.closingWriteback { startWriteback() }
        unflushed = 0
        defer { Foundation.close(fd); fd = -1; current = -1; restoreMode = false }
        if settingMode || restoreMode, fchmod(fd, mode_t(file.mode)) != 0 {
            throw PackError.io("cannot set the mode of \(file.path): \(String(cString: strerror(errno)))")
        }
    }
}
