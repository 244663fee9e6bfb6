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
/// Only files of at least `threshold` bytes are dropped behind: a smaller file is cheap to keep,
/// and is often read again soon (an installed asset, a source edited and packaged again).
/// A write drops a stretch only once it is written back (`cposix_finish_writeback`: clean pages
/// are the only ones the kernel drops), one stretch behind the one whose writeback was just
/// started, so the disk stays busy while the writer waits. Everything here is advisory: a call
/// the kernel refuses changes nothing but the cache.
public struct DropBehind {
    /// The smallest file that is dropped behind: four stretches.
    public static let threshold: Int64 = 16 << 20
    /// How far a stream moves between two calls to the kernel.
    public static let stretch: Int64 = 4 << 20

    private let fd: Int32
    /// Where the stream began in the file (a resumed or shared file is written from the middle).
    private let start: Int64
    /// Everything before this was dropped.
    private var dropped: Int64
    /// Writeback was started for everything before this (writes only).
    private var writebackStarted: Int64

    /// For the stream through `fd` that begins at byte `start` of the file.
    public init(fd: Int32, from start: Int64 = 0) {
        self.fd = fd
        self.start = start
        dropped = start
        writebackStarted = start
    }

    /// Whether a file of `size` bytes is dropped behind.
    public static func applies(toSize size: UInt64) -> Bool { size >= UInt64(threshold) }

    /// The stream has read up to (not including) byte `position` of the file.
    public mutating func read(upTo position: Int64) {
        guard position - start >= Self.threshold, position - dropped >= Self.stretch else { return }
        _ = cposix_drop_cached(fd, dropped, position - dropped)
        dropped = position
    }

    /// The stream has written up to (not including) byte `position` of the file: writeback of
    /// what is new starts, and the stretch before it is waited for and dropped.
    public mutating func wrote(upTo position: Int64) {
        guard position - writebackStarted >= Self.stretch else { return }
        _ = cposix_start_writeback(fd, writebackStarted, position - writebackStarted)
        if position - start >= Self.threshold, writebackStarted > dropped {
            _ = cposix_finish_writeback(fd, dropped, writebackStarted - dropped)
            _ = cposix_drop_cached(fd, dropped, writebackStarted - dropped)
            dropped = writebackStarted
        }
        writebackStarted = position
    }

    /// A write stream ended at `position`: writeback of the rest starts when it is at least
    /// `closingWriteback` bytes (a smaller rest is left to the caller's fsync or syncfs).
    public mutating func finishWriting(at position: Int64) {
        guard position - writebackStarted >= Self.closingWriteback else { return }
        _ = cposix_start_writeback(fd, writebackStarted, position - writebackStarted)
        writebackStarted = position
    }

    /// The least rest of a write stream whose writeback `finishWriting` starts.
    public static let closingWriteback: Int64 = 256 << 10

    /// A read stream ended at `position`: the rest it passed is dropped too, when the stream was
    /// long enough to be dropped behind at all.
    public mutating func finishReading(at position: Int64) {
        guard position - start >= Self.threshold, position > dropped else { return }
        _ = cposix_drop_cached(fd, dropped, position - dropped)
        dropped = position
    }
}
