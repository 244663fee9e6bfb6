import AssetPackFormat
import AssetPackPackaging

/// The publish cache key of one pack: the SHA-256 of a text naming everything that decides the
/// pack's bytes (docs/FORMAT.md, "Publish cache"): the cache version, the writer's output
/// identity (pack format version, writer revision, zstd version, compression level), the
/// chunking parameters, the pack metadata exactly as the index stores it, and for every
/// selected file, in pack order, its pack path, its source path and its `FileStamp`; for a
/// device variant whose shared frames go to other files of its group, the SHA-256 of each file
/// it may take frames from (its default's, then the variants' before it in the catalog's order), last.
enum PackCacheKey {
    static func of(metadata: PackMetadata, files: [SelectedFile], stamps: [FileStamp], writer: PackWriter,
                   bases: [SHA256Digest] = []) -> SHA256Digest {
        let hasher = SHA256Hasher()
        func line(_ text: String) { hasher.update(Array((text + "\n").utf8)) }
        let p = writer.parameters
        line("assetpack-publish-cache-key \(PublishCache.version)")
        line(writer.outputIdentity)
        line("chunking \(p.minimumSize) \(p.averageSize) \(p.maximumSize)")
        line("metadata \(String(decoding: metadata.canonicalJSON(), as: UTF8.self))")
        line("files \(files.count)")
        for (file, stamp) in zip(files, stamps) {
            // Lengths first, so that no choice of names can make two file lists hash alike.
            line("file \(file.packPath.utf8.count):\(file.packPath) \(file.sourcePath.utf8.count):\(file.sourcePath) \(stamp.keyText)")
        }
        for base in bases { line("base \(base.hex)") }
        return hasher.finalize()
    }
}
