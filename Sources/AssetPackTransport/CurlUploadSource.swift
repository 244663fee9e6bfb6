import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of a PUT or POST as libcurl reads it: from bytes in memory or from a section of an
/// open file (the whole file, or one part of a multipart upload), read with `pread` so that the
/// position is the source's own. Seekable, so that libcurl can rewind and resend it on a fresh
/// connection when a kept-alive one had died.
final class CurlUploadSource {
    enum Storage { case bytes([UInt8]), file(fd: Int32, path: String, start: UInt64) }

    let storage: Storage
    let size: UInt64
    /// Bytes of the body handed to libcurl so far.
    private var offset: UInt64 = 0
    var error: TransportError?

    /// Opens the file of a `.file` or `.fileSection` body (closed in deinit).
    init(_ body: HTTPRequest.Body) throws(TransportError) {
        switch body {
        case .bytes(let bytes):
            storage = .bytes(bytes)
            size = UInt64(bytes.count)
        case .file(let path):
            let (fd, fileSize) = try Self.openFile(path)
            storage = .file(fd: fd, path: path, start: 0)
            size = fileSize
        case .fileSection(let path, let start, let length):
            let (fd, fileSize) = try Self.openFile(path)
            guard start <= fileSize, length <= fileSize - start else {
                close(fd)
                throw .file(path: path, message: "is \(fileSize) bytes, shorter than the \(length) bytes from offset \(start) to send")
            }
            storage = .file(fd: fd, path: path, start: start)
            size = length
        }
    }

    private static func openFile(_ path: String) throws(TransportError) -> (Int32, UInt64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .file(path: path, message: "cannot open: \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .file(path: path, message: "not a regular file")
        }
        return (fd, UInt64(info.st_size))
    }

    deinit {
        if case .file(let fd, _, _) = storage { close(fd) }
    }

    /// Fills `buffer`; returns the byte count (0 at the end) or nil on a read error.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let wanted = Int(min(UInt64(buffer.count), size - offset))
        guard wanted > 0 else { return 0 }
        switch storage {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + Int(offset), byteCount: wanted) }
            offset += UInt64(wanted)
            return wanted
        case .file(let fd, let path, let start):
            while true {
                let n = pread(fd, buffer.baseAddress, wanted, off_t(start + offset))
                if n > 0 {
                    offset += UInt64(n)
                    return n
                }
                if n == 0 {
                    error = .file(path: path, message: "ended early: the file shrank while it was being sent")
                    return nil
                }
                if errno == EINTR { continue }
                error = .file(path: path, message: "read failed: \(String(cString: strerror(errno)))")
                return nil
            }
        }
    }

    /// Moves to `position` from the start of the body; false when impossible.
    func rewind(to position: Int64) -> Bool {
        guard position >= 0, UInt64(position) <= size else { return false }
        offset = UInt64(position)
        return true
    }
}
