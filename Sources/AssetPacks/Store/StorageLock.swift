import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One manager per storage root: an exclusive `flock` on the root's lock file
/// (`StorageLayout.lock`), held for the lock's lifetime (the manager's) and released by
/// `deinit` — or by the kernel when the process ends, however it ends (SIGKILL too). The file
/// holds the holder's process ID, to name it to whoever waits. Another manager, in this process
/// or another, waits up to `timeout` for it.
final class StorageLock: Sendable {
    let path: String
    private let fd: Int32

    init(layout: StorageLayout, timeout: Duration) throws {
        let root = layout.root
        let path = layout.lock
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AssetPackManagerError.storage("cannot open \(path): \(String(cString: strerror(errno)))") }
        let deadline = ContinuousClock.now + timeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            guard e == EWOULDBLOCK || e == EINTR else {
                close(fd)
                throw AssetPackManagerError.storage("cannot lock \(path): \(String(cString: strerror(e)))")
            }
            guard ContinuousClock.now < deadline else {
                let holder = Self.holder(fd)
                close(fd)
                throw AssetPackManagerError.storageRootInUse(root: root, holderPID: holder, waited: timeout)
            }
            usleep(20_000)
        }
        // Ours now: say who holds it (a stale pid from an earlier holder is overwritten).
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) != 0 || pwrite(fd, text, text.count, 0) != text.count {
            let e = errno
            close(fd)
            throw AssetPackManagerError.storage("cannot write \(path): \(String(cString: strerror(e)))")
        }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// The process ID the lock file names, if it names one.
    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
