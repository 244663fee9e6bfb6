import Foundation
import TestSupport
@testable import AssetPackFormat

/// Replaces a pack's index with `transform(index bytes)` and rewrites the trailer so that its
/// digest matches: the result is a pack whose only fault is what `transform` did.
func rewriteIndex(of packPath: String, _ transform: (inout [UInt8], PackTrailer) -> Void) {
    var bytes = readFile(packPath)
    let fileSize = UInt64(bytes.count)
    let trailer = try! PackTrailer.decode(Array(bytes.suffix(PackLayout.trailerSize)), fileSize: fileSize)
    var index = Array(bytes[Int(trailer.indexOffset)..<Int(trailer.indexOffset + trailer.indexLength)])
    transform(&index, trailer)
    bytes = Array(bytes[..<Int(trailer.indexOffset)]) + index
    let newTrailer = PackTrailer(indexOffset: trailer.indexOffset, indexLength: UInt64(index.count), indexDigest: SHA256Digest.hash(index),
                                 formatVersion: trailer.formatVersion)
    bytes += newTrailer.encoded()
    _ = FileManager.default.createFile(atPath: packPath, contents: Data(bytes))
}

/// Re-encodes a pack's index after `change` edits the decoded model (which may make it invalid).
func rewriteIndexModel(of packPath: String, _ change: (inout PackIndex) -> Void) {
    rewriteIndex(of: packPath) { bytes, trailer in
        var index = try! PackIndex.decode(bytes, indexOffset: trailer.indexOffset)
        change(&index)
        bytes = index.encoded()
    }
}
