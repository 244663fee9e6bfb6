/// The table region of a sealed pack's patch file (patch format version 2; docs/FORMAT.md,
/// "Patches of a sealed pack"): a public part that names only the content key, then the patch
/// table sealed under it. Without the key nothing of the table is readable — not which chunks
/// changed (their SHA-256), their sizes, nor where their bases lie; what stays public is the
/// table's length and the sizes of the sealed patch frames.
///
/// ```
/// 8   magic "APKSEALT"
/// 4   format version, 2
/// 4   reserved, 0
/// 32  key ID of the content key (ContentKey.keyID)
/// …   the table (PatchTable, version 2) as one sealed frame of purpose `patchTable`
/// ```
public struct SealedPatchTable: Sendable, Equatable {
    public static let magic: [UInt8] = Array("APKSEALT".utf8)
    /// Bytes before the sealed frame.
    public static let headerSize = 48

    public var keyID: SHA256Digest
    /// The sealed frame that holds the table.
    public var frame: [UInt8]

    /// Whether `bytes` (a table region) is a sealed patch table, by its magic alone.
    public static func isSealed(_ bytes: [UInt8]) -> Bool { bytes.count >= 8 && Array(bytes[0..<8]) == magic }

    /// The table region of `table` (a version-2 table) sealed under `key`.
    public static func seal(_ table: PatchTable, key: ContentKey) -> [UInt8] {
        precondition(table.isSealed, "a sealed pack's patch table is version 2")
        var w = ByteWriter()
        w.append(magic)
        w.append(PatchLayout.sealedFormatVersion)
        w.append(UInt32(0))
        w.append(key.keyID.bytes)
        w.append(SealedFrame.seal(table.encoded(), purpose: .patchTable, key: key))
        return w.bytes
    }

    /// Decodes the public part of a table region that starts at file offset `tableOffset`.
    public static func decode(_ bytes: [UInt8], tableOffset: UInt64) throws(PackError) -> SealedPatchTable {
        guard bytes.count <= PatchLayout.maximumTableSize else {
            throw .malformed("sealed patch table", at: tableOffset, "\(bytes.count) bytes, more than the \(PatchLayout.maximumTableSize) allowed")
        }
        var r = ByteReader(bytes, context: "sealed patch table", base: tableOffset)
        guard try r.bytes(8) == magic else {
            throw .malformed("sealed patch table", at: tableOffset, "the pack is sealed but its patch table is not: a sealed pack's patch table is never stored in plaintext")
        }
        let versionAt = r.offset
        let version = try r.u32()
        guard version == PatchLayout.sealedFormatVersion else {
            throw .malformed("sealed patch table", at: versionAt, "unsupported sealed patch table version \(version) (this tool reads version \(PatchLayout.sealedFormatVersion))")
        }
        let (keyID, frame) = try r.sealedKeyAndFrame(region: "sealed patch table")
        return SealedPatchTable(keyID: keyID, frame: frame)
    }

    /// The table, opened with `key` and checked like any patch table (its frames must end where
    /// the region starts, `tableOffset`); it must be a version-2 table.
    public func open(with key: ContentKey, tableOffset: UInt64) throws(PackError) -> PatchTable {
        guard key.keyID == keyID else { throw .wrongContentKey(expected: keyID, given: key.keyID) }
        let frameAt = tableOffset.saturatingAdding(UInt64(Self.headerSize))
        let plain: [UInt8]
        do { plain = try SealedFrame.open(frame, purpose: .patchTable, key: key) } catch {
            throw .malformed("sealed patch table", at: frameAt, "\(error)")
        }
        let table = try PatchTable.decode(plain, tableOffset: tableOffset, opened: true)
        guard table.isSealed else {
            throw .malformed("sealed patch table", at: frameAt, "the sealed table holds a version-\(table.formatVersion) table; a sealed pack's is version \(PatchLayout.sealedFormatVersion)")
        }
        return table
    }
}

extension PatchTable {
    /// The patch table of a table region as a client or a publisher reads it: for a sealed pack
    /// (`contentKey` given) only a sealed table, opened with the key; for an unsealed pack only a
    /// plaintext one. A plaintext table offered for a sealed pack, or a sealed one for a pack
    /// that is not, is refused.
    public static func decode(_ bytes: [UInt8], tableOffset: UInt64, contentKey: ContentKey?) throws(PackError) -> PatchTable {
        if let contentKey {
            return try SealedPatchTable.decode(bytes, tableOffset: tableOffset).open(with: contentKey, tableOffset: tableOffset)
        }
        guard !SealedPatchTable.isSealed(bytes) else {
            throw .malformed("patch table", at: tableOffset, "the patch table is sealed but the pack is not: refused")
        }
        return try decode(bytes, tableOffset: tableOffset)
    }
}
