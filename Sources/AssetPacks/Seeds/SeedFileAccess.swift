import AssetPackFormat
import Foundation

/// How a seed file is opened and read: through its seed folder without following a link at any
/// component (a link out of the folder is never followed), without blocking (a FIFO or device
/// planted in a file's place between the look and the open), and only when what was opened is a
/// regular file. Every failure is an answer of nil: a seed is only ever a hint.
enum SeedFileAccess {
    /// The descriptor of the regular file `path` below `folder`, or nil. The caller closes it.
    static func open(_ path: String, in folder: ConfinedDirectory) -> Int32? {
        guard let fd = try? folder.open(path, flags: O_RDONLY | O_NONBLOCK) else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Reads up to `count` bytes at `offset` into `buffer`: the number read (fewer at the end
    /// of the file), or nil when reading fails.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: UInt64) -> Int? {
        var got = 0
        while got < count {
            let r = pread(fd, buffer + got, count - got, off_t(offset) + off_t(got))
            if r < 0 && errno == EINTR { continue }
            if r < 0 { return nil }
            if r == 0 { break }
            got += r
        }
        return got
    }
}
