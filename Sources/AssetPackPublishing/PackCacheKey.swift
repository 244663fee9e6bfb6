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
    /// `stamp(i)` gives file `i`'s stamp, asked once a file in order; nil (when one of them is)
    /// stops the key.
    static func of(metadata: PackMetadata, files: SelectedFileList, writer: PackWriter, bases: [SHA256Digest] = [],
                   stamp: (Int) -> FileStamp?) -> SHA256Digest? {
        let hasher = SHA256Hasher()
        func line(_ text: String) { hasher.update(Array((text + "\n").utf8)) }
        let p = writer.parameters
        line("assetpack-publish-cache-key \(PublishCache.version)")
        line(writer.outputIdentity)
        line("chunking \(p.minimumSize) \(p.averageSize) \(p.maximumSize)")
        line("metadata \(String(decoding: metadata.canonicalJSON(), as: UTF8.self))")
        line("files \(files.count)")
        // The files' lines go to the hasher through one buffer, 64 KiB at a time, built without
        // a string a line: at a few hundred thousand files the strings cost more than the hash.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(80 << 10)
        var source: [UInt8] = []
        for i in files.indices {
            guard let stamp = stamp(i) else { return nil }
            // Lengths first, so that no choice of names can make two file lists hash alike:
            // "file LENGTH:PACKPATH LENGTH:SOURCEPATH STAMP".
            buffer += "file ".utf8
            files[i].withPackPath { path in
                buffer.appendDecimal(UInt64(path.count))
                buffer.append(0x3A)
                buffer += path
            }
            source.removeAll(keepingCapacity: true)
            files[i].appendSourcePath(to: &source)
            buffer.append(0x20)
            buffer.appendDecimal(UInt64(source.count))
            buffer.append(0x3A)
            buffer += source
            buffer.append(0x20)
            stamp.appendKeyText(to: &buffer)
            buffer.append(0x0A)
            if buffer.count >= 64 << 10 {
                hasher.update(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        hasher.update(buffer)
        for base in bases { line("base \(base.hex)") }
        return hasher.finalize()
    }
}
