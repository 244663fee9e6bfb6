import AssetPackFormat

extension CatalogPatch {
    /// `bytes` as this patch file's table when they hash to the catalog's SHA-256, decode (a sealed
    /// pack's only sealed, opened with `contentKey`) and lead from this patch's `from` version to
    /// `to`; nil otherwise, which for a client only means full frames and the whole index.
    func checkedTable(_ bytes: [UInt8], to: SHA256Digest, contentKey: ContentKey?) -> PatchTable? {
        guard SHA256Digest.hash(bytes) == table.sha256,
              let decoded = try? PatchTable.decode(bytes, tableOffset: table.offset, contentKey: contentKey),
              decoded.from == from, decoded.to == to else { return nil }
        return decoded
    }
}
