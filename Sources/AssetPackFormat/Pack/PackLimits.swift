/// The bounds one pack is held to (docs/PUBLISHING.md, "Limits"): a writer refuses a pack past
/// them with an error naming the limit, and a reader refuses an index that declares more.
/// Tests lower them to reach their edge without writing gigabytes.
public struct PackLimits: Sendable, Equatable {
    /// Files one pack may hold. Ten million is thirty times the largest corpus measured (300,000
    /// files); a reader refuses a file count above it before allocating for the files.
    public static let maximumFileCount = 10_000_000
    /// Bytes an index may take (`PackLayout.maximumIndexSize`, 256 MiB: a chunk takes 52 bytes of
    /// it, so about five million chunks). It bounds a pack's size: about 1.2 TiB of content at
    /// the default 256 KiB average chunk.
    public static let maximumIndexSize = PackLayout.maximumIndexSize
    /// Bytes the file table may take once decompressed (the same 256 MiB: format version 2).
    public static let maximumFileTableSize = PackLayout.maximumIndexSize
    /// Bytes the paths of one pack may take together, each written whole (1 GiB, about 100 bytes
    /// a path at the files-per-pack limit). A version-2 table front-codes its paths: an entry of
    /// four bytes can stand for a path of 4,096, so a table within its own limit could otherwise
    /// make a reader hold a thousand times its size in paths.
    public static let maximumPathBytes = 1 << 30

    public var maximumFileCount = Self.maximumFileCount
    public var maximumIndexSize = Self.maximumIndexSize
    public var maximumFileTableSize = Self.maximumFileTableSize
    public var maximumPathBytes = Self.maximumPathBytes

    public init() {}

    /// Why `count` files are too many, or nil.
    public func fileCountProblem(_ count: Int) -> String? {
        count <= maximumFileCount ? nil
            : "\(count) files selected; a pack holds at most \(maximumFileCount) files (the files-per-pack limit): split them into several packs"
    }

    /// Why a file table of `length` decompressed bytes for `count` files is too large, or nil.
    public func fileTableProblem(length: UInt64, files count: Int) -> String? {
        length <= UInt64(maximumFileTableSize) ? nil
            : "the file table of \(count) files takes \(length) bytes, more than the \(maximumFileTableSize) bytes a pack's file table may hold (the file-table limit): split the pack or shorten its paths"
    }

    /// Why paths of `length` bytes in all, for `count` files, are too many bytes, or nil.
    public func pathBytesProblem(length: UInt64, files count: Int) -> String? {
        length <= UInt64(maximumPathBytes) ? nil
            : "the paths of \(count) files take \(length) bytes together, more than the \(maximumPathBytes) bytes a pack's paths may take (the path-bytes limit): split the pack or shorten its paths"
    }

    /// Why an index of `length` bytes is too large, or nil.
    public func indexProblem(length: Int, chunks: Int, files: Int) -> String? {
        length <= maximumIndexSize ? nil
            : "the pack's index would take \(length) bytes (\(chunks) chunks, \(files) files), more than the \(maximumIndexSize) bytes an index may hold (the pack-size limit): split the pack or chunk it with a larger average chunk size"
    }
}
