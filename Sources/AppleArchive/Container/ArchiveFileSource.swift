import Foundation

/// An archive file, read with `pread` (no shared file position: chunks may be read by offset).
public final class ArchiveFileSource: ArchiveByteSource, @unchecked Sendable {
    public let path: String
    public let size: UInt64
    private let fd: Int32

    public init(path: String) throws(AppleArchiveError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AppleArchiveError(.io, path, at: nil, "cannot open: \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw AppleArchiveError(.io, path, at: nil, "not a regular file")
        }
        self.fd = fd
        self.path = path
        self.size = UInt64(st.st_size)
    }

    deinit { close(fd) }

    public func read(_ count: Int, at offset: UInt64) throws(AppleArchiveError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        var failure: Int32 = 0
        bytes.withUnsafeMutableBytes { buffer in
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failure = errno; return }
                if n == 0 { return }
                done += n
            }
        }
        guard failure == 0 else { throw AppleArchiveError(.io, path, at: offset + UInt64(done), "cannot read: \(String(cString: strerror(failure)))") }
        guard done == count else { throw AppleArchiveError(.io, path, at: offset + UInt64(done), "the file ended early (it changed while being read?)") }
        return bytes
    }
}
