import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The running system's boot: an identifier the kernel draws anew at every boot (so a kernel
/// crash or a power loss changes it, the end of a process does not) and the seconds since it,
/// suspend included. Files written in this boot are in the page cache or on the disk; files
/// written in an earlier one may have been lost with the cache if that boot ended in a crash.
package struct BootSession: Sendable, Equatable {
    package var id: String
    /// Seconds since the boot, time suspended included.
    package var uptime: Int64

    /// The running boot, or nil where the system does not say (every install is then flushed
    /// before it commits). Linux: `/proc/sys/kernel/random/boot_id` and `CLOCK_BOOTTIME`.
    package static func current() -> BootSession? {
        #if os(Linux)
        guard let data = FileManager.default.contents(atPath: "/proc/sys/kernel/random/boot_id") else { return nil }
        let id = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var now = timespec()
        guard !id.isEmpty, id.utf8.count <= 64, clock_gettime(CLOCK_BOOTTIME, &now) == 0 else { return nil }
        return BootSession(id: id, uptime: Int64(now.tv_sec))
        #else
        return nil
        #endif
    }

    /// Seconds after which the kernel has written a file's dirty pages back on its own
    /// (Linux's `vm.dirty_expire_centisecs`, 30 s by default, plus one writeback period of 5 s,
    /// with a margin): a flush after that finds little or nothing left to write.
    package static let writebackDelay: Int64 = 60
}
