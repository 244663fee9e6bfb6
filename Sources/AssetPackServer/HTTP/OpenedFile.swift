#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file opened for one response. Closes its descriptor when released unless the
/// descriptor was handed on (to libmicrohttpd, which closes it after sending).
final class OpenedFile: @unchecked Sendable {
    /// The path relative to the repository root, without a leading slash.
    let relativePath: String
    private(set) var descriptor: Int32
    let size: UInt64
    let modified: time_t
    let entityTag: EntityTag

    init(relativePath: String, descriptor: Int32, status s: stat) {
        self.relativePath = relativePath
        self.descriptor = descriptor
        size = UInt64(s.st_size)
        modified = s.st_mtim.tv_sec
        let nanoseconds = UInt64(max(0, s.st_mtim.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, s.st_mtim.tv_nsec))
        entityTag = EntityTag(inode: UInt64(s.st_ino), size: size, modifiedNanoseconds: nanoseconds)
    }

    /// Gives up ownership of the descriptor; the caller must close it.
    func takeDescriptor() -> Int32 {
        let fd = descriptor
        descriptor = -1
        return fd
    }

    deinit { if descriptor >= 0 { close(descriptor) } }
}
