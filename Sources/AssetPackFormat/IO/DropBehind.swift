import CPOSIX

/// Lets the page cache go of a large file's pages once a sequential read or write has passed them.
///
/// A step that streams a file bigger than the page cache can hold for long (a pack, a model, a
/// video) otherwise leaves every page of it cached: reading 8 GiB fills 8 GiB of cache and evicts
/// whatever else was there, and where memory is dear to bring into use (a virtual machine whose
/// host takes freed memory back) each newly cached page costs the kernel several times the copy
/// itself, so the kernel's time per GiB grows with the size (docs/BENCHMARKS.md, "Large packs").
/// Dropping behind keeps a stream's cached pages to a few stretches whatever the size.
///
/// Only files of at least `threshold` bytes are dropped behind: a smaller file is cheap to keep
/// and is often read again soon (an installed asset, a source edited and packaged again). A
/// written stretch is dropped only once written back (clean pages are the only ones the kernel
/// drops): writeback of each new stretch starts as it is written, and the one before it is waited
/// for and dropped, so the disk stays busy while the writer waits. Everything here is advisory: a
/// call the kernel refuses changes nothing but the cache.
public struct DropBehind {
    /// The smallest file that is dropped behind: four stretches.
    public static let threshold: Int64 = 16 << 20
    /// How far a stream moves between two calls to the kernel.
    static let stretch: Int64 = 4 << 20
    /// The least rest of a write stream not dropped behind whose writeback `finishWriting`
    /// starts (a smaller rest is left to the caller's fsync or syncfs).
    static let closingWriteback: Int64 = 256 << 10

    private let fd: Int32
    /// Where the stream began in the file (a resumed file, or a stretch of a file several
    /// writers fill side by side, is written from the middle).
    private let start: Int64
    /// Whether the file is dropped behind: from its size when known, else once the stream
    /// reaches `threshold` bytes.
    private var dropping: Bool
    private let sizeKnown: Bool
    /// Everything of the stream before this was dropped.
    private var dropped: Int64
    /// Writeback was started for everything of the stream before this (writes only).
    private var writebackStarted: Int64

    /// For the stream through `fd` that begins at byte `start` of a file of `fileSize` bytes
    /// (nil: not known in advance, as for a file being written whole).
    public init(fd: Int32, from start: Int64 = 0, fileSize: UInt64? = nil) {
        self.fd = fd
        self.start = start
        dropped = start
        writebackStarted = start
        sizeKnown = fileSize != nil
        dropping = fileSize.map { $0 >= UInt64(Self.threshold) } ?? false
    }

    /// The largest folio the page cache keeps a file's pages in (a huge page). The kernel drops
    /// only the folios a range covers whole, and when one in the range cannot be dropped it
    /// drains the page lists of every core and tries again, which costs far more than the drop
    /// (measured: a drop of each chunk's bytes as an update reads them makes a 1 GiB update a
    /// third slower). So
    /// every drop covers whole folios: from the boundary where the last one ended to the last
    /// boundary passed, or to the one after the end when the stream ends.
    private static let largestFolio: Int64 = 2 << 20

    private static func boundary(before offset: Int64) -> Int64 { offset & ~(largestFolio - 1) }
    private static func boundary(after offset: Int64) -> Int64 { boundary(before: offset + largestFolio - 1) }

    /// Drops (after waiting for its writeback, when `written`) the whole folios from where the
    /// last drop ended up to `position`, or past it when `ending`.
    private mutating func drop(upTo position: Int64, written: Bool, ending: Bool = false) {
        let from = Self.boundary(before: dropped), to = ending ? Self.boundary(after: position) : Self.boundary(before: position)
        guard to > from else { return }
        if written { _ = cposix_finish_writeback(fd, from, to - from) }
        _ = cposix_drop_cached(fd, from, to - from)
        dropped = to
    }

    /// For a pass that opens the file anew for each read (`ContentStreamReader`), so that no
    /// stream is at hand: drops the whole folios that the bytes [offset, offset + length), just
    /// read from a file of `fileSize` bytes, finished (the ones before started in earlier reads of
    /// the pass), when the file is dropped behind at all.
    public static func dropRead(fd: Int32, offset: Int64, length: Int64, fileSize: UInt64) {
        guard fileSize >= UInt64(threshold) else { return }
        let end = offset + length
        let from = boundary(before: offset), to = end >= Int64(fileSize) ? boundary(after: end) : boundary(before: end)
        guard to > from else { return }
        _ = cposix_drop_cached(fd, from, to - from)
    }

    private mutating func drops(at position: Int64) -> Bool {
        if !dropping && !sizeKnown && position - start >= Self.threshold { dropping = true }
        return dropping
    }

    /// The stream has read up to (not including) byte `position` of the file.
    public mutating func read(upTo position: Int64) {
        guard position - dropped >= Self.stretch, drops(at: position) else { return }
        drop(upTo: position, written: false)
    }

    /// A read stream ended at `position`: the rest it passed is dropped too.
    public mutating func finishReading(at position: Int64) {
        guard position > dropped, drops(at: position) else { return }
        drop(upTo: position, written: false, ending: true)
    }

    /// The stream has written up to (not including) byte `position` of the file: writeback of
    /// what is new starts, and the stretch before it is waited for and dropped.
    public mutating func wrote(upTo position: Int64) {
        guard position - writebackStarted >= Self.stretch else { return }
        _ = cposix_start_writeback(fd, writebackStarted, position - writebackStarted)
        if drops(at: position), writebackStarted > dropped { drop(upTo: writebackStarted, written: true) }
        writebackStarted = position
    }

    /// A write stream ended at `position`: when dropped behind, the rest is written back and
    /// dropped (waiting for it, which a later fsync or syncfs would do anyway); otherwise its
    /// writeback starts when it is at least `closingWriteback` bytes.
    public mutating func finishWriting(at position: Int64) {
        if drops(at: position) {
            guard position > dropped else { return }
            drop(upTo: position, written: true, ending: true)
            writebackStarted = position
        } else if position - writebackStarted >= Self.closingWriteback {
            _ = cposix_start_writeback(fd, writebackStarted, position - writebackStarted)
            writebackStarted = position
        }
    }
}
