/// What the first bytes of an archive say it is (docs/FORMAT.md, "Apple Archive"): a `pbz*`
/// container with its codec and block size, or a bare AA01 stream. Encrypted archives (`AEA1`)
/// and codecs without a decoder here are refused by name.
public struct AppleArchiveContainer: Sendable, Equatable {
    /// The codec; `.none` for a bare AA01 stream.
    public let compression: AppleArchiveCompression
    /// The uncompressed bytes per chunk; nil for a bare stream.
    public let blockSize: Int?
    /// Where the first chunk header starts (12) or, for a bare stream, the first entry (0).
    public let firstChunkOffset: UInt64

    /// Bytes of a chunk header: u64 raw size, u64 compressed size, both big-endian.
    public static let chunkHeaderSize = 16
    /// The container header: `pbz` + codec letter, u64 big-endian block size.
    public static let headerSize = 12
    /// The largest block size read: a chunk is held whole while it is decoded (a few at a time),
    /// so the block size bounds memory. Apple's tools write 4 MiB blocks by default.
    public static let maximumBlockSize = 256 << 20

    /// Reads the magic (and block size) at the start of `source`.
    public static func identify(_ source: any ArchiveByteSource) throws(AppleArchiveError) -> AppleArchiveContainer {
        guard source.size >= 4 else {
            throw .malformed("container", at: 0, "the file holds \(source.size) bytes; an Apple Archive starts with a 4-byte magic (pbz*, AA01)")
        }
        let magic = try source.read(4, at: 0)
        let text = String(decoding: magic.map { (0x20...0x7e).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        if magic == Array("AA01".utf8) || magic == Array("YAA1".utf8) {
            return AppleArchiveContainer(compression: .none, blockSize: nil, firstChunkOffset: 0)
        }
        if magic == Array("AEA1".utf8) {
            throw AppleArchiveError(.unsupported, "container", at: 0,
                                    "encrypted Apple Archive (AEA1), not supported: decrypt it first with Apple's `aea decrypt`")
        }
        guard magic[0...2] == Array("pbz".utf8)[...] else {
            throw .malformed("container", at: 0, "magic '\(text)' is not an Apple Archive (pbz* container, AA01 or YAA1 stream)")
        }
        guard let codec = AppleArchiveCompression(magicLetter: magic[3]) else {
            let name = switch magic[3] {
            case UInt8(ascii: "b"): "LZBITMAP"
            case UInt8(ascii: "m"): "LZRaven"
            default: "an unknown codec"
            }
            throw AppleArchiveError(.unsupported, "container", at: 3, "codec '\(text)' (\(name)) is not supported; this reader decodes pbze (LZFSE), pbzx (xz), pbzz (zlib) and pbz4 (LZ4)")
        }
        guard source.size >= UInt64(headerSize) else {
            throw .malformed("container", at: 4, "the container header is cut short: \(source.size) bytes, the block size needs 12")
        }
        let blockSize = bigEndian(try source.read(8, at: 4))
        guard blockSize > 0, blockSize <= UInt64(maximumBlockSize) else {
            throw .malformed("container", at: 4, "block size \(blockSize) is outside 1...\(maximumBlockSize) bytes")
        }
        return AppleArchiveContainer(compression: codec, blockSize: Int(blockSize), firstChunkOffset: UInt64(headerSize))
    }

    /// The big-endian integer in `bytes` (up to 8).
    static func bigEndian(_ bytes: [UInt8]) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
}
