import CZstd

/// Encodes a file table one file at a time, in pack order, into the bytes
/// `PackIndex.encodedFileTable` gives for the whole list: a writer adds each file as it packs it
/// and holds only the table's own bytes (a few a file in version 2), never a list of the files.
///
/// Version 2's three columns (front-coded paths, modes, sizes, as varints) grow side by side and
/// are joined and compressed as one zstd frame by `finish`, exactly as `PackFileTable` does with
/// a list; version 1 grows its entries directly.
package struct PackFileTableEncoder {
    package let formatVersion: UInt32
    /// The zstd level of the version-2 frame: `PackFileTable.compressionLevel` in a pack file;
    /// a store that only decodes the index again may ask for a faster one.
    package let compressionLevel: Int32
    /// Files added so far.
    package private(set) var count = 0
    /// Their sizes added up.
    package private(set) var totalSize: UInt64 = 0
    /// Their paths' lengths added up: what a reader holds once it decodes them (what
    /// `PackLimits.pathBytesProblem` bounds).
    package private(set) var pathBytes: UInt64 = 0
    /// The columns (version 1: the entries in `paths`), held compressed block by block when the
    /// encoder was asked to (`CompressedSpool`).
    private var paths: CompressedSpool
    private var modes: CompressedSpool
    private var sizes: CompressedSpool
    /// The previous path's bytes (version 2 front-codes each path against it).
    private var previous: [UInt8] = []

    /// The zstd level of the version-2 frame in a pack file. Readers do not depend on it; it only
    /// makes the writer's output deterministic.
    package static let packCompressionLevel: Int32 = 9

    /// - Parameter spooled: hold the table's bytes compressed 256 KiB at a time until
    ///   `finish` (a writer that adds files while its other buffers are full); otherwise as they
    ///   are (a caller that encodes a list it already holds).
    package init(formatVersion: UInt32, compressionLevel: Int32 = packCompressionLevel, spooled: Bool = false) {
        self.formatVersion = formatVersion
        self.compressionLevel = compressionLevel
        let block = spooled ? 256 << 10 : Int.max
        paths = CompressedSpool(blockSize: block)
        modes = CompressedSpool(blockSize: block)
        sizes = CompressedSpool(blockSize: block)
    }

    /// The bytes the table takes once decoded so far: the entries in version 1, the
    /// decompressed columns in version 2 (what `PackLimits.fileTableProblem` bounds).
    package var decodedLength: UInt64 {
        formatVersion == 1 ? UInt64(8 + paths.count) : UInt64(paths.count + modes.count + sizes.count)
    }

    /// Adds the next file, its path's UTF-8 bytes lent in place; `path` must come after the
    /// previous one in pack order (the caller's selection guarantees it; `PackIndex.decode`
    /// refuses a table that breaks it).
    package mutating func add(path: UnsafeBufferPointer<UInt8>, mode: UInt32, size: UInt64) {
        if formatVersion == 1 {
            var w = ByteWriter()
            w.append(UInt16(path.count))
            w.bytes.append(contentsOf: path)
            w.append(mode)
            w.append(size)
            paths.add { $0.append(contentsOf: w.bytes) }
        } else {
            var shared = 0
            let limit = min(path.count, previous.count)
            while shared < limit && path[shared] == previous[shared] { shared += 1 }
            paths.add { column in
                Self.appendVarint(UInt64(shared), to: &column)
                Self.appendVarint(UInt64(path.count - shared), to: &column)
                column.append(contentsOf: path[shared...])
            }
            previous.replaceSubrange(shared..., with: path[shared...])
            modes.add { Self.appendVarint(UInt64(mode), to: &$0) }
            sizes.add { Self.appendVarint(size, to: &$0) }
        }
        count += 1
        totalSize &+= size
        pathBytes += UInt64(path.count)
    }

    /// The encoded table (what `PackIndex.encodedFileTable` gives for the same files).
    package mutating func finish() -> [UInt8] {
        var w = ByteWriter()
        w.append(UInt64(count))
        if formatVersion == 1 {
            w.bytes.reserveCapacity(8 + paths.count)
            paths.expand(into: &w.bytes)
            return w.bytes
        }
        var table: [UInt8] = []
        table.reserveCapacity(paths.count + modes.count + sizes.count)
        paths.expand(into: &table)
        modes.expand(into: &table)
        sizes.expand(into: &table)
        let frame = Self.frame(of: table[...], level: compressionLevel)
        w.append(UInt64(table.count))
        w.append(UInt64(frame.count))
        w.append(frame)
        return w.bytes
    }

    /// Appends `v` as an unsigned LEB128 varint (`PackFiles` codes its paths' lengths so too).
    static func appendVarint(_ v: UInt64, to bytes: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// The version-2 frame of a decompressed table: one zstd frame that declares its content
    /// size, at `level`. The same table, level and zstd version give the same bytes
    /// (`ExpandedIndex.contract` relies on it to remake a pack's index).
    package static func frame(of table: ArraySlice<UInt8>, level: Int32 = packCompressionLevel) -> [UInt8] {
        let bound = ZSTD_compressBound(table.count)
        return [UInt8](unsafeUninitializedCapacity: bound) { out, count in
            let n = table.withUnsafeBytes { ZSTD_compress(out.baseAddress, bound, $0.baseAddress, $0.count, level) }
            precondition(czstd_is_error(n) == 0, "zstd compression failed: \(String(cString: ZSTD_getErrorName(n)))")
            count = n
        }
    }
}
