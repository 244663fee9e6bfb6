import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of a PUT as libcurl reads it: from bytes in memory or from an open file. Seekable,
/// so that libcurl can rewind and resend it on a fresh connection when a kept-alive one had died.
final class CurlUploadSource {
    enum Storage { case bytes([UInt8]), file(fd: Int32, path: String) }

    let storage: Storage
    let size: UInt64
    private var offset = 0
    var error: TransportError?

    /// Opens the file at `path` (closed in deinit).
    init(_ body: HTTPRequest.Body) throws(TransportError) {
        switch body {
        case .bytes(let bytes):
            storage = .bytes(bytes)
            size = UInt64(bytes.count)
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .file(path: path, message: "cannot open: \(String(cString: strerror(errno)))") }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                throw .file(path: path, message: "not a regular file")
            }
            storage = .file(fd: fd, path: path)
            size = UInt64(info.st_size)
        }
    }

    deinit {
        if case .file(let fd, _) = storage { close(fd) }
    }

    /// Fills `buffer`; returns the byte count (0 at the end) or nil on a read error.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch storage {
        case .bytes(let bytes):
            let n = min(buffer.count, bytes.count - offset)
            if n > 0 {
                bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
                offset += n
            }
            return n
        case .file(let fd, let path):
            while true {
                let n = read(fd, buffer.baseAddress, buffer.count)
                if n >= 0 { return n }
                if errno == EINTR { continue }
                error = .file(path: path, message: "read failed: \(String(cString: strerror(errno)))")
                return nil
            }
        }
    }

    /// Moves to `position` from the start; false when impossible.
    func rewind(to position: Int64) -> Bool {
        guard position >= 0, UInt64(position) <= size else { return false }
        switch storage {
        case .bytes: offset = Int(position); return true
        case .file(let fd, _): return lseek(fd, off_t(position), SEEK_SET) == off_t(position)
        }
    }
}
