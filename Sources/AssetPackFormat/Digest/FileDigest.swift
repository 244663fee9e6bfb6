import Foundation

/// The SHA-256 of a file on disk, read in blocks.
package enum FileDigest {
    package static func of(_ path: String) -> SHA256Digest? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return of(descriptor: fd)
    }

    /// The SHA-256 of the file open at `fd`, read from its start (by offset: the descriptor's
    /// position is left alone); `fd` stays open.
    package static func of(descriptor fd: Int32) -> SHA256Digest? {
        let hasher = SHA256Hasher()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let n = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return hasher.finalize() }
            block.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += off_t(n)
        }
    }
}
