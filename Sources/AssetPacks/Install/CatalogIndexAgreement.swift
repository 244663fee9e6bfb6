import AssetPackFormat

/// The catalog's figures for a pack checked against the pack's index, the one the catalog pins
/// by its digest. The index is the truth: its totals derive from its own entries (the decoder
/// checks that the files fill exactly the chunks, and that the chunks lie end to end up to the
/// index). A catalog that states other sizes — a publisher's bug, or a signed catalog that lies
/// to get a pack past the allowances or the storage budget — is a verification failure, found
/// before any decision that reads those figures.
enum CatalogIndexAgreement {
    /// Throws `verification` naming the pack, the field, the catalog's value and the index's at
    /// the first disagreement.
    static func check(_ entry: CatalogPack, index: PackIndex) throws(AssetPackManagerError) {
        func differ(_ field: String, catalog: String, index: String) -> AssetPackManagerError {
            .verification("\(entry.id): the catalog's \(field) is \(catalog) but the pack's index (pinned by the catalog's digest) says \(index); the catalog contradicts the pack it names")
        }
        if entry.installSize != index.installSize {
            throw differ("installSize", catalog: "\(entry.installSize) bytes", index: "\(index.installSize) bytes (the sum of its \(index.files.count) files)")
        }
        // The pack file: header, the frames, the index, the trailer.
        let fileSize = UInt64(PackLayout.headerSize) + index.compressedSize + entry.index.length + UInt64(PackLayout.trailerSize)
        if entry.downloadSize != fileSize {
            throw differ("downloadSize", catalog: "\(entry.downloadSize) bytes", index: "\(fileSize) bytes (the pack file its \(index.chunks.count) chunks and index make)")
        }
        if entry.size != fileSize {
            throw differ("size", catalog: "\(entry.size) bytes", index: "\(fileSize) bytes (the pack file its \(index.chunks.count) chunks and index make)")
        }
        let metadata = index.metadata
        if entry.id != metadata.assetPackID { throw differ("id", catalog: "\"\(entry.id)\"", index: "\"\(metadata.assetPackID)\"") }
        if entry.downloadPolicy != metadata.downloadPolicy {
            throw differ("downloadPolicy", catalog: "\(entry.downloadPolicy)", index: "\(metadata.downloadPolicy)")
        }
        if entry.userInfo != metadata.userInfo {
            throw differ("userInfo", catalog: entry.userInfo ?? "none", index: metadata.userInfo ?? "none")
        }
        if entry.language != metadata.language {
            throw differ("language", catalog: entry.language.map { "\"\($0)\"" } ?? "none", index: metadata.language.map { "\"\($0)\"" } ?? "none")
        }
        if Set(entry.platforms) != Set(metadata.platforms) {
            throw differ("platforms", catalog: "\(entry.platforms.map(\.rawValue))", index: "\(metadata.platforms.map(\.rawValue))")
        }
        if entry.chunking != index.chunking { throw differ("chunking", catalog: "\(entry.chunking)", index: "\(index.chunking)") }
    }
}
