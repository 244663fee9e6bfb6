import AssetPackFormat
import Foundation

/// What a pack holds, whatever file its frames lie in: the SHA-256 of its metadata, chunking,
/// files (path, mode, size) and the digests of its content stream's chunks in order. Two pack
/// files of a device variant group with the same identity are the same pack, even when one
/// takes every frame from the other (a pack file with bases has another digest than the file
/// it takes them from).
enum PackContentIdentity {
    static func of(_ index: PackIndex) -> SHA256Digest {
        let hasher = SHA256Hasher()
        func add(_ text: String) { hasher.update(Array((text + "\n").utf8)) }
        add("metadata \(String(decoding: index.metadata.canonicalJSON(), as: UTF8.self))")
        add("chunking \(index.chunking.minimumSize) \(index.chunking.averageSize) \(index.chunking.maximumSize)")
        add("files \(index.files.count)")
        for f in index.files {
            add("file \(f.path.utf8.count):\(f.path) \(f.mode) \(f.size)")
        }
        add("sequence \(index.sequence.count)")
        for s in index.sequence { hasher.update(index.chunks[Int(s)].digest.bytes) }
        return hasher.finalize()
    }

    /// The identity of the unsealed pack file at `path`, from its index alone.
    static func of(packAt path: String) throws -> SHA256Digest {
        of(try PackReader(path: path).index)
    }
}
