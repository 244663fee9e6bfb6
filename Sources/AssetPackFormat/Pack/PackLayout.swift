/// Fixed parts of the pack file format (docs/FORMAT.md): the header, the trailer and the index
/// preamble. All integers are little-endian.
public enum PackLayout {
    /// The format version this code writes.
    public static let formatVersion: UInt32 = 2
    /// The versions this code reads: 1 (a plain file table), 2 (a compressed, front-coded one)
    /// 3 (a sealed pack: version 2's index, sealed, and sealed chunk frames), 4 (version 2 with
    /// a base: some frames lie in the group default's pack file, `PackBase`) and 5 (version 2
    /// with a list of bases: some frames lie in other pack files of the group).
    public static let readableVersions: ClosedRange<UInt32> = 1...5
    /// The version of a pack file with one base, its group's default (a device variant sharing
    /// its default's frames and no other variant's).
    public static let baseFormatVersion: UInt32 = 4
    /// The version of a pack file with a list of bases (a device variant that takes frames from
    /// variants before it in the catalog's order as well, or from them alone).
    public static let basesFormatVersion: UInt32 = 5
    /// Whether a pack file of `version` may have bases.
    public static func hasBases(_ version: UInt32) -> Bool { version == baseFormatVersion || version == basesFormatVersion }
    /// `\x89APK\r\n\x1A\n`: the high byte and line endings catch text-mode transfers, as in PNG.
    public static let headerMagic: [UInt8] = [0x89, 0x41, 0x50, 0x4B, 0x0D, 0x0A, 0x1A, 0x0A]
    public static let headerSize = 16
    public static let trailerMagic: [UInt8] = Array("APKTRAIL".utf8)
    public static let trailerSize = 64
    public static let indexMagic: [UInt8] = Array("APKINDEX".utf8)
    /// Bytes per chunk table entry: digest, offset, compressed size, uncompressed size.
    public static let chunkEntrySize = 48
    /// No index may be larger than this (about 5 million chunks): a hostile trailer cannot make
    /// a reader allocate without bound.
    public static let maximumIndexSize = 256 << 20

    package static func header(version: UInt32 = formatVersion) -> [UInt8] {
        var w = ByteWriter()
        w.append(headerMagic)
        w.append(version)
        w.append(UInt32(0))
        return w.bytes
    }
}

/// The 64 bytes at the end of every pack: where the index is and the digest that pins it.
public struct PackTrailer: Sendable, Equatable {
    public var indexOffset: UInt64
    public var indexLength: UInt64
    /// SHA-256 of the index bytes: the pack digest. Chunk hashes in the index pin the content.
    public var indexDigest: SHA256Digest
    /// The pack format version the trailer declares (the header and the index declare the same).
    public var formatVersion: UInt32

    package init(indexOffset: UInt64, indexLength: UInt64, indexDigest: SHA256Digest, formatVersion: UInt32 = PackLayout.formatVersion) {
        self.indexOffset = indexOffset
        self.indexLength = indexLength
        self.indexDigest = indexDigest
        self.formatVersion = formatVersion
    }

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.append(indexOffset)
        w.append(indexLength)
        w.append(indexDigest.bytes)
        w.append(formatVersion)
        w.append(UInt32(0))
        w.append(PackLayout.trailerMagic)
        return w.bytes
    }

    /// Decodes and checks a trailer read from the last 64 bytes of a pack of `fileSize` bytes.
    static func decode(_ bytes: [UInt8], fileSize: UInt64) throws(PackError) -> PackTrailer {
        var r = ByteReader(bytes, context: "trailer", base: fileSize - UInt64(PackLayout.trailerSize))
        let offset = try r.u64()
        let length = try r.u64()
        let digest = SHA256Digest(bytes: try r.bytes(32))
        let version = try r.u32()
        _ = try r.u32()
        guard try r.bytes(8) == PackLayout.trailerMagic else {
            throw .malformed("trailer", at: fileSize - 8, "bad trailer magic: the file is truncated or not a pack")
        }
        guard PackLayout.readableVersions.contains(version) else { throw .unsupportedVersion(version) }
        let indexEnd = fileSize - UInt64(PackLayout.trailerSize)
        guard offset >= UInt64(PackLayout.headerSize), offset <= indexEnd, length <= indexEnd - offset, offset + length == indexEnd else {
            throw .malformed("trailer", at: fileSize - UInt64(PackLayout.trailerSize),
                             "index range \(offset)+\(length) does not end where the trailer starts (\(indexEnd))")
        }
        guard length <= UInt64(PackLayout.maximumIndexSize) else {
            throw .malformed("trailer", at: fileSize - UInt64(PackLayout.trailerSize + 56), "index length \(length) exceeds the \(PackLayout.maximumIndexSize)-byte limit")
        }
        return PackTrailer(indexOffset: offset, indexLength: length, indexDigest: digest, formatVersion: version)
    }
}
