import AssetPackFormat
import Foundation

/// Reads runs of small files on a bounded pool of threads, ahead of the writer: opening, reading
/// and closing one file at a time costs more than compressing it when files are a few hundred
/// bytes, so the system calls of many files overlap. Each run is read into one buffer, its files
/// end to end in pack order; `depth` runs are in flight at most, so memory stays at that many
/// buffers (6 MiB), and a reader descheduled for a moment does not stall the writer.
final class SmallFileReader: @unchecked Sendable {
    /// A run holds consecutive files smaller than the minimum chunk size, at most this many bytes…
    static let runBytes = 2 << 20
    /// …and at most this many files.
    static let runFiles = 4096
    /// Runs read ahead of the writer (the one it consumes included).
    static let depth = 3

    private final class Slot: @unchecked Sendable {
        let buffer: UnsafeMutableRawPointer
        let group = DispatchGroup()
        let lock = NSLock()
        var run = -1
        /// The first failure by file position, if any.
        var failure: (index: Int, error: PackWriteError)?

        /// One byte more than a run holds: a read may run one byte past a file (see `read`).
        init(capacity: Int) { buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity + 1, alignment: 64) }
        deinit { buffer.deallocate() }

        func fail(_ index: Int, _ error: PackWriteError) {
            lock.withLock { if failure == nil || index < failure!.index { failure = (index, error) } }
        }
    }

    private let feed: SelectedFileFeed
    private let minimumSize: Int
    private let readers: Int
    private let queue = DispatchQueue(label: "assetpack.pack.readers", attributes: .concurrent)
    private let slots: [Slot]
    /// The runs found so far (positions in the feed) and their files; `scanned` is the first
    /// feed position not looked at yet.
    private var runs: [Range<Int>] = []
    private var runFiles: [[SelectedFile]] = []
    /// Each run's bytes (its files' sizes added up).
    private var runLengths: [Int] = []
    private var scanned = 0
    private var next = 0

    /// Reads the runs of small files of `feed` — consecutive files below `minimumSize`, split at
    /// `runBytes` and `runFiles` — with `readers` threads, as the feed brings the files.
    init(feed: SelectedFileFeed, minimumSize: Int, readers: Int) {
        self.feed = feed
        self.minimumSize = minimumSize
        self.readers = max(1, readers)
        slots = (0..<Self.depth).map { _ in Slot(capacity: Self.runBytes) }
    }

    /// Whether run `r` exists, finding the runs up to it in the feed (waiting for the selection).
    private func hasRun(_ r: Int) throws -> Bool {
        while runs.count <= r {
            var i = scanned
            while let f = try feed.file(i), f.size >= UInt64(minimumSize) { i += 1 }
            guard let first = try feed.file(i) else { scanned = i; return false }
            var files = [first], bytes = Int(first.size), j = i + 1
            while j - i < Self.runFiles, let f = try feed.file(j), f.size < UInt64(minimumSize), bytes + Int(f.size) <= Self.runBytes {
                files.append(f)
                bytes += Int(f.size)
                j += 1
            }
            runs.append(i..<j)
            runFiles.append(files)
            runLengths.append(bytes)
            scanned = j
        }
        return true
    }

    /// Waits until every read in flight has ended (before the writer returns or throws).
    func finish() { for slot in slots { slot.group.wait() } }

    /// The next run's bytes, its files end to end; valid until the following call. Throws the
    /// first file of the run that could not be read, or that changed size (or the feed's stop).
    func nextRun() throws -> (files: Range<Int>, bytes: UnsafeRawBufferPointer) {
        if next == 0 { for r in 0..<Self.depth where try hasRun(r) { start(r) } }
        guard try hasRun(next) else { preconditionFailure("no run left") }
        let slot = slots[next % Self.depth]
        // The run before this one is consumed: its slot reads the run `depth - 1` after this one.
        if next >= 1, try hasRun(next + Self.depth - 1) { start(next + Self.depth - 1) }
        slot.group.wait()
        if let failure = slot.failure { throw failure.error }
        let range = runs[next]
        let length = runLengths[next]
        // Runs behind the reader are of no more use.
        runFiles[next] = []
        next += 1
        return (range, UnsafeRawBufferPointer(start: slot.buffer, count: length))
    }

    private func start(_ r: Int) {
        let slot = slots[r % Self.depth]
        slot.group.wait()
        slot.run = r
        slot.failure = nil
        let range = runs[r], files = runFiles[r]
        var offsets: [Int] = []
        offsets.reserveCapacity(range.count)
        var o = 0
        // By index, not `for f in files`: a copy of each file would retain its folder.
        for k in files.indices { offsets.append(o); o += Int(files[k].size) }
        // Each reader takes a contiguous share, so that it opens neighbours in one folder.
        let parts = min(readers, range.count)
        for part in 0..<parts {
            slot.group.enter()
            queue.async { [files, offsets] in
                var folder = Folder()
                defer { folder.close() }
                let share = (range.count * part / parts)..<(range.count * (part + 1) / parts)
                // Each file is looked at where it lies in the run's list, not copied out of it.
                files.withUnsafeBufferPointer { files in
                    for k in share {
                        // The byte after a file is the next file's first, which this reader writes
                        // next (or the spare byte after the run): asking for one byte more than the
                        // size finds a grown file without a second read. The share's last file
                        // borders another reader's share, so it asks separately.
                        let after = k + 1 == share.upperBound && k + 1 < range.count
                        if let error = Self.read(files.baseAddress! + k, into: slot.buffer + offsets[k], readsPast: !after, folder: &folder) {
                            slot.fail(range.lowerBound + k, error)
                        }
                    }
                }
                slot.group.leave()
            }
        }
    }

    /// The folder of the last file a reader opened, held open so that the next file in it is
    /// opened by its name alone (`openat`) instead of walking its whole path again: a listed
    /// file's folder is its `SourceFolder`; another file's is what comes before its last slash,
    /// split in place.
    private struct Folder {
        /// The listed folder open, if that is what is open.
        var listed: SourceFolder?
        /// The path of the folder open for a file with a path of its own (what comes before the
        /// last slash), NUL-terminated; empty when none is.
        var path: [CChar] = []
        var fd: Int32 = -1

        /// Opens `file` for reading, through its folder's descriptor; when the folder cannot be
        /// opened, by its full path, so that `open` reports why.
        mutating func open(_ file: SelectedFile) -> Int32 {
            if let folder = file.sourceFolder {
                if folder !== listed {
                    close()
                    fd = Foundation.open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                    if fd >= 0 { listed = folder }
                }
                return fd >= 0 ? file.withSourceName { openat(fd, $0, O_RDONLY | O_CLOEXEC) }
                               : openat(AT_FDCWD, file.sourcePath, O_RDONLY | O_CLOEXEC)
            }
            return file.sourcePath.withCString { full in
                guard let slash = strrchr(full, 0x2F) else { return openat(AT_FDCWD, full, O_RDONLY | O_CLOEXEC) }
                let length = full.distance(to: slash)
                if !(listed == nil && path.count == length + 1 && memcmp(path, full, length) == 0) {
                    close()
                    path = Array(UnsafeBufferPointer(start: full, count: length)) + [0]
                    fd = length == 0 ? Foundation.open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                     : Foundation.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                    if fd < 0 { path = [] }
                }
                return fd >= 0 ? openat(fd, slash + 1, O_RDONLY | O_CLOEXEC) : openat(AT_FDCWD, full, O_RDONLY | O_CLOEXEC)
            }
        }

        mutating func close() {
            if fd >= 0 { _ = Foundation.close(fd) }
            fd = -1
            path = []
            listed = nil
        }
    }

    /// Reads exactly `file.size` bytes of `file` into `buffer`; an error if it cannot be opened
    /// or read, or is not that size any more.
    private static func read(_ file: UnsafePointer<SelectedFile>, into buffer: UnsafeMutableRawPointer, readsPast: Bool,
                             folder: inout Folder) -> PackWriteError? {
        let fd = folder.open(file.pointee)
        guard fd >= 0 else { return .read(file.pointee.sourcePath, String(cString: strerror(errno))) }
        defer { close(fd) }
        let size = Int(file.pointee.size)
        var done = 0
        var probe: UInt8 = 0
        while true {
            // After the declared size, one more byte must not be there. Where `buffer` has room
            // for it, it is asked for with the file's bytes, and a short read (the end of a
            // regular file) ends the file without a read of its own.
            let asked = done < size || readsPast ? size - done + (readsPast ? 1 : 0) : 1
            let n = done < size || readsPast ? Foundation.read(fd, buffer + done, asked) : Foundation.read(fd, &probe, 1)
            if n < 0 {
                if errno == EINTR { continue }
                return .read(file.pointee.sourcePath, String(cString: strerror(errno)))
            }
            if n == 0 { return done == size ? nil : .changed(file.pointee.sourcePath, "shrank while it was packed") }
            if done + n > size { return .changed(file.pointee.sourcePath, "grew while it was packed") }
            done += n
            if readsPast && done == size && n < asked { return nil }
        }
    }
}

