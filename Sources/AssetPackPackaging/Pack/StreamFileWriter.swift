import AssetPackFormat
import Foundation

/// Writes a pack's content stream into the files it is made of, in order, below `root` (the
/// extractor assembles packs with it). It creates only folders and regular files, at paths from a
/// checked index, beneath `root` (ConfinedDirectory: no link is followed on the way, and a path
/// longer than the kernel takes whole is walked folder by folder).
public struct StreamFileWriter {
    public let root: String
    public let files: PackFiles
    private var current = 0
    private var fd: Int32 = -1
    private var left: UInt64 = 0
    /// The open file's writes: a large file leaves the page cache behind them (`DropBehind`).
    private var behind: DropBehind?
    /// The root, through which every folder and file is made beneath it, never through a link.
    private let below: ConfinedDirectory
    private var madeDirectories: Set<String> = []
    /// Stream bytes consumed so far (including where a resumed writer started).
    public private(set) var position: UInt64 = 0

    /// Starts at stream offset `resumeAt`: files that end before it are taken as complete, the
    /// file that holds it is cut back to the right length, and later files are rewritten.
    public init(root: String, files: PackFiles, resumeAt: UInt64 = 0) throws {
        self.root = root
        self.files = files
        do { below = try ConfinedDirectory(root: root) } catch { throw PackError.io("\(error)") }
        var start: UInt64 = 0
        while current < files.count && start + files.size(at: current) <= resumeAt && !(files.size(at: current) == 0 && start == resumeAt) {
            start += files.size(at: current)
            current += 1
        }
        position = resumeAt
        if current < files.count && resumeAt > start {
            let inFile = resumeAt - start
            try open(files[current], truncate: false)
            guard ftruncate(fd, off_t(inFile)) == 0, lseek(fd, off_t(inFile), SEEK_SET) >= 0 else {
                throw PackError.io("cannot resume \(files.path(at: current)): \(String(cString: strerror(errno)))")
            }
            left = files.size(at: current) - inFile
            behind = DropBehind(fd: fd, from: Int64(inFile), fileSize: files.size(at: current))
        } else {
            try openNextFiles()
        }
    }

    /// Opens the next file(s) until one with bytes left is current; empty files are created whole.
    private mutating func openNextFiles() throws {
        while fd < 0 && current < files.count {
            try open(files[current], truncate: true)
            left = files.size(at: current)
            behind = DropBehind(fd: fd, fileSize: left)
            if left == 0 { try closeCurrent() }
        }
    }

    public mutating func consume(_ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            guard fd >= 0 else { throw PackError.io("the content stream holds more bytes than the files") }
            let n = Int(min(UInt64(buffer.count - offset), left))
            try writeAll(fd: fd, UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + n]), path: root + "/" + files.path(at: current))
            offset += n
            left -= UInt64(n)
            position += UInt64(n)
            behind?.wrote(upTo: Int64(files.size(at: current) - left))
            if left == 0 {
                try closeCurrent()
                try openNextFiles()
            }
        }
    }

    /// Checks that every file is complete.
    public mutating func finish() throws {
        guard fd < 0 && current == files.count else {
            throw PackError.io("the content stream ended inside \(files[min(current, files.count - 1)].path)")
        }
    }

    /// Closes the open file, if any (after a failure).
    public mutating func abandon() {
        if fd >= 0 { close(fd); fd = -1 }
        behind = nil
    }

    private mutating func open(_ file: FileEntry, truncate: Bool) throws {
        do throws(ConfinementError) {
            if let slash = file.path.lastIndex(of: "/") {
                let parent = String(file.path[..<slash])
                if madeDirectories.insert(parent).inserted { _ = try below.directory(parent, create: true) }
            }
            let flags = O_WRONLY | O_CREAT | (truncate ? O_EXCL : 0)
            do { fd = try below.open(file.path, flags: flags, mode: 0o600) } catch where truncate && error.code == EEXIST {
                // A fresh file replaces whatever a resumed run left there (possibly read-only by now).
                try below.removeTree(file.path)
                fd = try below.open(file.path, flags: flags, mode: 0o600)
            }
        } catch {
            throw PackError.io("cannot create \(file.path): \(error)")
        }
    }

    private mutating func closeCurrent() throws {
        let file = files[current]
        behind?.finishWriting(at: Int64(file.size))
        behind = nil
        defer { close(fd); fd = -1; current += 1 }
        guard fchmod(fd, mode_t(file.mode)) == 0 else { throw PackError.io("cannot set the mode of \(file.path): \(String(cString: strerror(errno)))") }
    }
}
