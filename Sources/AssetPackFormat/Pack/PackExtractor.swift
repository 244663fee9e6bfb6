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
        var writer = StreamFileWriter(root: root, files: index.files)
        try writer.createEmptyFilesAhead()
        try reader.forEachChunk(index.sequence.map(Int.init)) { _, bytes in
            try bytes.withUnsafeBytes { try writer.consume($0) }
        }
        try writer.finish()
    }
}

/// Writes the content stream into the files it is made of, in order.
struct StreamFileWriter {
    let root: String
    let files: [FileEntry]
    private var current = 0
    private var fd: Int32 = -1
    private var left: UInt64 = 0
    private var madeDirectories: Set<String> = [""]

    init(root: String, files: [FileEntry]) {
        self.root = root
        self.files = files
    }

    /// Opens the next file(s) until one with bytes left is current; empty files are created whole.
    mutating func createEmptyFilesAhead() throws {
        while fd < 0 && current < files.count {
            try open(files[current])
            left = files[current].size
            if left == 0 { try closeCurrent() }
        }
    }

    mutating func consume(_ buffer: UnsafeRawBufferPointer) throws {
        var position = 0
        while position < buffer.count {
            guard fd >= 0 else { throw PackError.io("the content stream holds more bytes than the files") }
            let n = Int(min(UInt64(buffer.count - position), left))
            try writeAll(fd: fd, UnsafeRawBufferPointer(rebasing: buffer[position..<position + n]), path: files[current].path)
            position += n
            left -= UInt64(n)
            if left == 0 {
                try closeCurrent()
                try createEmptyFilesAhead()
            }
        }
    }

    mutating func finish() throws {
        guard fd < 0 && current == files.count else { throw PackError.io("the content stream ended inside \(files[min(current, files.count - 1)].path)") }
    }

    private mutating func open(_ file: FileEntry) throws {
        let parent = file.path.split(separator: "/").dropLast()
        var dir = ""
        for component in parent {
            dir = dir.isEmpty ? String(component) : dir + "/" + component
            if madeDirectories.insert(dir).inserted, mkdir(root + "/" + dir, 0o755) != 0, errno != EEXIST {
                throw PackError.io("cannot create directory \(dir): \(String(cString: strerror(errno)))")
            }
        }
        fd = Foundation.open(root + "/" + file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PackError.io("cannot create \(file.path): \(String(cString: strerror(errno)))") }
    }

    private mutating func closeCurrent() throws {
        let file = files[current]
        defer { close(fd); fd = -1; current += 1 }
        guard fchmod(fd, mode_t(file.mode)) == 0 else { throw PackError.io("cannot set the mode of \(file.path): \(String(cString: strerror(errno)))") }
    }
}
