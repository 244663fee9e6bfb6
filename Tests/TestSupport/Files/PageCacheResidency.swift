import Foundation

/// Which pages of a file the page cache holds, as `mincore(2)` reports them for a read-only
/// mapping of it (mapping it brings nothing in: nothing is touched).
public struct PageCacheResidency {
    /// One flag per page of the file, in order.
    public let resident: [Bool]
    public let pageSize: Int

    /// Nil when the file cannot be opened, mapped or asked about, or is empty.
    public init?(of path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size > 0 else { return nil }
        let length = Int(st.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), mapping != MAP_FAILED else { return nil }
        defer { munmap(mapping, length) }
        pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var flags = [UInt8](repeating: 0, count: (length + pageSize - 1) / pageSize)
        guard mincore(mapping, length, &flags) == 0 else { return nil }
        resident = flags.map { $0 & 1 != 0 }
    }

    /// The share of the pages in `bytes` (a byte range of the file) that are cached.
    public func fraction(of bytes: Range<Int>) -> Double {
        let pages = resident[(bytes.lowerBound / pageSize)..<min(resident.count, (bytes.upperBound + pageSize - 1) / pageSize)]
        return pages.isEmpty ? 0 : Double(pages.filter { $0 }.count) / Double(pages.count)
    }

    /// Whether the file system holding `path` keeps file pages in the page cache that
    /// `POSIX_FADV_DONTNEED` can drop (not tmpfs or ramfs, whose pages are the files themselves):
    /// the type of the longest mount point in /proc/self/mounts that holds `path`.
    public static func canDrop(at path: String) -> Bool {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = String(fields[1]), type = String(fields[2])
            let holds = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
            if holds && point.count >= (best?.point.count ?? -1) { best = (point, type) }
        }
        guard let type = best?.type else { return false }
        return type != "tmpfs" && type != "ramfs"
    }
}
