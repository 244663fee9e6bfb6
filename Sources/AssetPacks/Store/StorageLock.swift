import AssetPackFormat
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One manager per storage root: an exclusive `flock` on the root's lock file
/// (`StorageLayout.lock`), held for the lock's lifetime (the manager's) and released by
/// `deinit` — or by the kernel when the process ends, however it ends (SIGKILL too). The file
/// holds the holder's process ID, to name it to whoever waits. Another manager, in this process
/// or another, waits up to `timeout` for it. The file is opened through the confined root with
/// `O_NOFOLLOW`: a link planted in its place is refused, never written through.
final class StorageLock: Sendable {
    let path: String
    private let fd: Int32

    init(layout: StorageLayout, root directory: ConfinedDirectory, timeout: Duration) throws {
        let root = layout.root
        let path = layout.lock
        let fd = try StorageLayout.confined { () throws(ConfinementError) in
            try directory.open(layout.lockFile, flags: O_RDWR | O_CREAT, mode: 0o644)
        }
        // A hard link to a file elsewhere would be truncated and written too: only a regular
        // file with no other name is the lock.
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 1 else {
            close(fd)
            throw AssetPackManagerError.storage("\(path): not a regular file of its own (a link to another file?); refusing to use it as the lock")
        }
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
