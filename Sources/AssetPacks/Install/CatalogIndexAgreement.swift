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
        try checkBase(entry, index: index)
        // The pack file: header, its own frames, the index, the trailer; a fresh install fetches
        // the frames its base holds too.
        let fileSize = UInt64(PackLayout.headerSize) + index.ownCompressedSize + entry.index.length + UInt64(PackLayout.trailerSize)
        let downloadSize = fileSize + index.compressedSize - index.ownCompressedSize
        if entry.downloadSize != downloadSize {
            throw differ("downloadSize", catalog: "\(entry.downloadSize) bytes", index: "\(downloadSize) bytes (what its \(index.chunks.count) chunks and index make)")
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

    /// A pack file with bases (docs/FORMAT.md, "Pack file with bases") is accepted only as a
    /// device variant whose catalog entry names as many bases, and only when each base its index
    /// pins (SHA-256 and size of the whole file) is the file the catalog names in that place, a
    /// file of its group: a variant cannot make a client fetch frames from any other file.
    private static func checkBase(_ entry: CatalogPack, index: PackIndex) throws(AssetPackManagerError) {
        let pinned = index.bases, named = entry.bases
        switch (pinned.isEmpty, named.isEmpty) {
        case (true, true):
            return
        case (false, true):
            throw .verification("\(entry.id): \(entry.path) takes \(index.baseChunkCount) frames from \(pinned.count) base file(s) (\(PackReader.describe(pinned))), but the catalog names no base for it: only a device variant's file may have bases, files of its group; refused")
        case (true, false):
            throw .verification("\(entry.id): the catalog names \(named.map(\.path).joined(separator: ", ")) as the bases of \(entry.path), but the pack's index names no base; refused")
        case (false, false):
            guard pinned.count == named.count else {
                throw .verification("\(entry.id): \(entry.path): the pack's index names \(pinned.count) base files but the catalog names \(named.count) (\(named.map(\.path).joined(separator: ", "))); refused")
            }
            for (b, file) in zip(pinned, named) {
                if let why = b.mismatch(sha256: file.sha256, size: file.size, name: "the group's file \(file.path)") {
                    throw .verification("\(entry.id): \(entry.path): \(why)")
                }
            }
        }
    }
}

extension CatalogPack {
    /// The file chunk `c`'s frame lies in: the pack file, or for a chunk a base holds, that base
    /// (checked by `CatalogIndexAgreement` before any frame is fetched).
    func framePath(_ c: Int, in index: PackIndex) -> String {
        guard let b = index.baseHolding(c), b < bases.count else { return path }
        return bases[b].path
    }
}
