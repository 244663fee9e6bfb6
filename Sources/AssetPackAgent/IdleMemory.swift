import CPOSIX
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the agent does so that, with nothing to do, it holds little memory (an idle
/// agent at ≤ 32 MiB RSS, so that a service that waits most of the time costs little). Two things fill an idle agent's RSS: memory malloc keeps after a
/// download (glibc gives threads up to 8 arenas per core, each keeping what was freed into it),
/// and the pages of program code the process has run — its own and its libraries', clean
/// copies of files already in the page cache, mapped 64 KiB at a time as the code faults them
/// in. The agent (`assetpack agent`, which calls `manageThisProcess()`) allows two arenas; when
/// it falls idle it hands malloc's free memory back and unmaps the resident pages of the
/// read-only mappings of its program and libraries — code, constants, symbol tables — from its page tables
/// (`MADV_DONTNEED`; a mapping holding a page of the process's own, relocated at load time, is
/// left alone): they stay in the page cache, and the few the agent uses next are mapped again
/// on their first use.
public enum IdleMemory {
    /// Set by `manageThisProcess()`, before the agent's threads start.
    nonisolated(unsafe) private static var managed = false

    /// For the agent's own process: at most two malloc arenas (its threads mostly wait), and
    /// `settle()` releases memory from now on. Call before starting threads.
    public static func manageThisProcess() {
        managed = true
        _ = cposix_limit_malloc_arenas(2)
    }

    /// `release()` in a process that `manageThisProcess()` (not in one that runs an agent among
    /// other work, such as a test).
    static func settle() { if managed { release() } }

    /// Hands malloc's free memory and the resident pages of read-only file mappings back (see above).
    public static func release() {
        _ = cposix_release_free_memory()
        // smaps: a header line per mapping, then its fields ("Anonymous: N kB" among them).
        guard let smaps = readToEnd("/proc/self/smaps") else { return }
        var candidate: (start: UInt, length: Int)?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                candidate = nil
                // "start-end perms offset dev inode path": read-only or executable, private, a file.
                guard fields.count >= 6, fields[1] == "r-xp" || fields[1] == "r--p", fields[5].hasPrefix("/") else { continue }
                let bounds = first.split(separator: "-")
                guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start else { continue }
                candidate = (start, Int(end - start))
            } else if fields.first == "Anonymous:", let mapping = candidate {
                candidate = nil
                // A page relocated at load time (RELRO, read-only since) is this process's own
                // copy: such a mapping is left alone, since dropping it would bring back the file's bytes.
                guard fields.count >= 2, fields[1] == "0", let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
                // Only a mapping of a loaded object (the program or a library, which stay mapped
                // as long as the process runs) is released: any other file mapping may have been
                // unmapped since /proc was read and its addresses given to something else (a new
                // thread's stack), whose memory MADV_DONTNEED would wipe.
                guard cposix_in_loaded_object(address) != 0 else { continue }
                _ = madvise(address, mapping.length, MADV_DONTNEED)
            }
        }
    }

    /// A file read until its end: files under /proc say they are empty, and Foundation's readers
    /// stop after the first page of them.
    private static func readToEnd(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes.append(contentsOf: buffer[..<n])
        }
    }
}
