import AssetPackFormat
import Foundation

/// Writes an Apple Archive entry by entry: each entry's AA01 header (`AppleArchiveEntryHeader`)
/// and its file's bytes, read straight from the source file into the container's blocks
/// (`AppleArchiveContainerWriter`). The archive is written under a temporary name beside
/// `path` and renamed into place by `finish`; until then, and after any error, nothing is at
/// `path`. The same entries in the same order give the same bytes, whatever `threads`.
public final class AppleArchiveWriter {
    public let path: String
    public let compression: AppleArchiveCompression
    private let out: AtomicFile
    private let container: AppleArchiveContainerWriter
    private var finished = false

    /// The block sizes a container may be written with: 64 KiB to 64 MiB (Apple's tools write
    /// 4 MiB; a reader holds a few blocks in memory at once).
    public static let blockSizes: ClosedRange<Int> = (64 << 10)...(64 << 20)
    public static let defaultBlockSize = 4 << 20

    /// - Parameters:
    ///   - compression: the container's codec; `none` writes a bare AA01 stream. `lz4` is read,
    ///     not written.
    ///   - blockSize: bytes of the stream per block, within `blockSizes`.
    ///   - threads: blocks compressed at once, within `SettingBounds.threads`.
    public init(path: String, compression: AppleArchiveCompression = .lzfse, blockSize: Int = defaultBlockSize,
                threads: Int = SettingBounds.cores) throws(PackWriteError) {
        if let problem = SettingBounds.problem("threads", threads, in: SettingBounds.threads, reason: SettingBounds.threadsReason)
            ?? SettingBounds.problem("block size", blockSize, in: Self.blockSizes) {
            throw .invalidSetting(problem)
        }
        guard compression != .lz4 else { throw .invalidSetting("compression lz4 is read, not written; choose lzfse, zlib, lzma or none") }
        self.path = path
        self.compression = compression
        out = try AtomicFile(destination: path)
        do {
            container = try AppleArchiveContainerWriter(out: out, codec: compression, blockSize: blockSize, threads: threads)
        } catch {
            out.discard()
            throw error
        }
    }

    deinit { discard() }

    /// Adds a directory entry.
    public func addDirectory(_ path: String, mode: UInt16 = 0o755) throws {
        try checked(path)
        try container.append(AppleArchiveEntryHeader(kind: .directory, path: path, mode: mode).encoded())
    }

    /// Adds a symbolic link entry.
    public func addSymbolicLink(_ path: String, target: String, mode: UInt16 = 0o755) throws {
        try checked(path)
        try container.append(AppleArchiveEntryHeader(kind: .symbolicLink, path: path, linkTarget: target, mode: mode).encoded())
    }

    /// Adds a file entry whose `size` bytes are read from `sourcePath` (a regular file that must
    /// not change meanwhile: `PackWriteError.changed` otherwise).
    public func addFile(_ path: String, mode: UInt16, sourcePath: String, size: UInt64) throws {
        try checked(path)
        let fd = open(sourcePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PackWriteError.read(sourcePath, String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw PackWriteError.read(sourcePath, String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw PackWriteError.changed(sourcePath, "is no longer a regular file") }
        try container.append(AppleArchiveEntryHeader(kind: .file, path: path, mode: mode, dataSize: size).encoded())
        try container.append(fd: fd, size: size, path: sourcePath)
    }

    /// Adds a file entry with `contents` as its data.
    public func addFile(_ path: String, mode: UInt16, contents: UnsafeRawBufferPointer) throws {
        try checked(path)
        try container.append(AppleArchiveEntryHeader(kind: .file, path: path, mode: mode, dataSize: UInt64(contents.count)).encoded())
        try container.append(contents)
    }

    /// Writes what remains, flushes and renames the archive into place; returns its size.
    @discardableResult
    public func finish() throws -> Int64 {
        precondition(!finished, "AppleArchiveWriter.finish called twice")
        finished = true
        do {
            let size = try container.finish()
            try out.commit()
            return size
        } catch {
            out.discard()
            throw error
        }
    }

    /// Stops writing: nothing reaches `path`.
    public func discard() {
        guard !finished else { return }
        finished = true
        container.abandon()
        out.discard()
    }

    private func checked(_ entryPath: String) throws(PackWriteError) {
        precondition(!finished, "AppleArchiveWriter used after finish or discard")
        if let problem = PackPath.problemWithStoredPath(entryPath) {
            throw .write(path, "entry path '\(entryPath)' \(problem)")
        }
    }
}
