import CPOSIX
import Foundation

/// A file written under a temporary name beside its destination and renamed into place only
/// when complete, so no reader ever sees it half-written. Discarded (unlinked) unless committed.
/// With `digesting`, the SHA-256 of everything written is kept as it goes (no reading back).
public final class AtomicFile {
    public let destination: String
    public let temporaryPath: String
    public let fd: Int32
    private var finished = false
    private let hasher: SHA256Hasher?

    public init(destination: String, mode: mode_t = 0o644, digesting: Bool = false) throws(PackWriteError) {
        self.destination = destination
        hasher = digesting ? SHA256Hasher() : nil
        let url = URL(fileURLWithPath: destination)
        let dir = url.deletingLastPathComponent().path
        temporaryPath = "\(dir)/.\(url.lastPathComponent).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .write(destination, String(cString: strerror(errno))) }
    }

    deinit { discard() }

    /// Writes all of `buffer`, retrying short writes.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(PackWriteError) {
        try writeAll(fd: fd, buffer, path: destination)
        hasher?.update(buffer)
        written += Int64(buffer.count)
        // Writeback starts every few MiB as the file grows, so that `commit`'s fsync waits for the
        // last stretch rather than for the whole file; a large file is dropped from the page cache
        // behind it (`DropBehind`).
        behind.wrote(upTo: written)
    }

    /// Bytes written so far.
    private var written: Int64 = 0
    private lazy var behind = DropBehind(fd: fd)

    /// The SHA-256 of the bytes written so far (nil unless `digesting`); call once, at the end.
    public func digest() -> SHA256Digest? { hasher?.finalize() }

    public func write(_ bytes: [UInt8]) throws(PackWriteError) {
        var failure: PackWriteError?
        bytes.withUnsafeBytes { b in do throws(PackWriteError) { try write(b) } catch { failure = error } }
        if let failure { throw failure }
    }

    /// Flushes to disk and renames into place.
    public func commit() throws(PackWriteError) {
        behind.finishWriting(at: written)
        guard fsync(fd) == 0 else { throw .write(destination, String(cString: strerror(errno))) }
        close(fd)
        finished = true
        guard rename(temporaryPath, destination) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw .write(destination, why)
        }
    }

    /// Removes the temporary file; nothing reaches the destination.
    public func discard() {
        guard !finished else { return }
        finished = true
        close(fd)
        unlink(temporaryPath)
    }
}

/// Writes every byte of `buffer` to `fd`, retrying on EINTR and short writes.
package func writeAll(fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(PackWriteError) {
    var done = 0
    while done < buffer.count {
        let n = Foundation.write(fd, buffer.baseAddress! + done, buffer.count - done)
        if n < 0 {
            if errno == EINTR { continue }
            throw .write(path, String(cString: strerror(errno)))
        }
        done += n
    }
}
