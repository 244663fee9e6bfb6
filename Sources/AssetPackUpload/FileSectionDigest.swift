import AssetPackFormat
import AssetPackTransport
import Foundation

/// The SHA-256 of a byte range of a file, read with `pread` through a 1 MiB buffer, so that
/// hashing a part never holds the part in memory. A part's hash is its SigV4 payload hash
/// (`x-amz-content-sha256`): the store checks the bytes it received against the signed hash.
enum FileSectionDigest {
    static let bufferSize = 1 << 20

    static func sha256(path: String, range: Range<UInt64>, cancellation: CancellationFlag? = nil) throws(TransportError) -> SHA256Digest {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .file(path: path, message: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            if cancellation?.isCancelled == true { throw .cancelled(url: path) }
            let wanted = Int(min(UInt64(bufferSize), range.upperBound - offset))
            let n = pread(fd, buffer.baseAddress, wanted, off_t(offset))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = n == 0 ? "ended at byte \(offset), before \(range.upperBound): the file shrank" : "read failed: \(String(cString: strerror(errno)))"
                throw .file(path: path, message: reason)
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += UInt64(n)
        }
        return hasher.finalize()
    }
}
