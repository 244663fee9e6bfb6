/// The index region of a sealed pack (format version 3; docs/FORMAT.md, "Sealed index"): a
/// public part that names only the content key, then the pack's index sealed under it. Without
/// the key nothing of the index is readable — no file name, size or chunk digest; the catalog's
/// totals (download and install size) are all that is public.
///
/// ```
/// 8   magic "APKSEALD"
/// 4   format version, 3
/// 4   reserved, 0
/// 32  key ID of the content key (ContentKey.keyID)
/// …   the index (PackIndex, version 3) as one sealed frame of purpose `index`
/// ```
public struct SealedIndex: Sendable, Equatable {
    public static let magic: [UInt8] = Array("APKSEALD".utf8)
    /// Bytes before the sealed frame.
    public static let headerSize = 48
    /// The pack format version of sealed packs.
    public static let formatVersion: UInt32 = 3

    public var keyID: SHA256Digest
    /// The sealed frame that holds the index.
    public var frame: [UInt8]

    /// Whether `bytes` (an index region) is a sealed index, by its magic alone.
    public static func isSealed(_ bytes: [UInt8]) -> Bool { bytes.count >= 8 && Array(bytes[0..<8]) == magic }

    /// The index region of `index` sealed under `key`.
    public static func seal(_ index: PackIndex, key: ContentKey) -> [UInt8] {
        seal(index, key: key, fileTable: PackIndex.encodedFileTable(index.files, formatVersion: index.formatVersion))
    }

    /// `seal(_:key:)`, with the index's file table already encoded (`PackIndex.encodedFileTable`).
    package static func seal(_ index: PackIndex, key: ContentKey, fileTable: [UInt8]) -> [UInt8] {
        precondition(index.formatVersion == formatVersion, "a sealed pack's index is version 3")
        var w = ByteWriter()
        w.append(magic)
        w.append(formatVersion)
        w.append(UInt32(0))
        w.append(key.keyID.bytes)
        w.append(SealedFrame.seal(index.encoded(fileTable: fileTable), purpose: .index, key: key))
        return w.bytes
    }

    /// Decodes the public part of an index region that starts at file offset `indexOffset`.
    public static func decode(_ bytes: [UInt8], indexOffset: UInt64) throws(PackError) -> SealedIndex {
        var r = ByteReader(bytes, context: "sealed index", base: indexOffset)
        guard try r.bytes(8) == magic else {
            throw .malformed("sealed index", at: indexOffset, "the pack is declared sealed (version 3) but its index is not: a sealed pack's index is never stored in plaintext")
        }
        let version = try r.u32()
        guard version == formatVersion else { throw .unsupportedVersion(version) }
        let (keyID, frame) = try r.sealedKeyAndFrame(region: "sealed index")
        return SealedIndex(keyID: keyID, frame: frame)
    }

    /// The index, opened with `key` and checked like any index; the result carries the key, so
    /// that its chunks open (`ChunkVerifier`).
    public func open(with key: ContentKey, indexOffset: UInt64) throws(PackError) -> PackIndex {
        guard key.keyID == keyID else { throw .wrongContentKey(expected: keyID, given: key.keyID) }
        let plain: [UInt8]
        do { plain = try SealedFrame.open(frame, purpose: .index, key: key) } catch {
            throw .malformed("sealed index", at: indexOffset.saturatingAdding(UInt64(Self.headerSize)), "\(error)")
        }
        var index = try PackIndex.decode(plain, indexOffset: indexOffset, opened: true)
        guard index.isSealed else {
            throw .malformed("sealed index", at: indexOffset.saturatingAdding(UInt64(Self.headerSize)), "the sealed index holds a version-\(index.formatVersion) index; a sealed pack's is version 3")
        }
        index.contentKey = key
        return index
    }
}
