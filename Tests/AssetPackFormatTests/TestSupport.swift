import AssetPackPackaging
import Foundation
@testable import AssetPackFormat

/// A temporary directory removed when the value is released... by the test calling `remove()`.
struct TempDir {
    let path: String

    init(_ name: String = #function) {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = base + "/apt-\(safe)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `bytes` at `relative`, creating folders; sets `mode`.
    @discardableResult
    func write(_ relative: String, _ bytes: [UInt8], mode: Int = 0o644) -> String {
        let full = path + "/" + relative
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
        chmod(full, mode_t(mode))
        return full
    }

    @discardableResult
    func write(_ relative: String, _ text: String, mode: Int = 0o644) -> String { write(relative, Array(text.utf8), mode: mode) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Deterministic pseudo-random bytes (xorshift), so tests need no fixtures.
func pseudoRandomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var s = seed | 1
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17
        out[i] = UInt8(truncatingIfNeeded: s >> 24)
    }
    return out
}

/// Compressible text of `count` bytes.
func textBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    let words = ["asset", "pack", "chunk", "delta", "zstd", "manifest", "level", "voice", "model", "texture"]
    var s = seed | 1
    var out: [UInt8] = []
    out.reserveCapacity(count + 16)
    while out.count < count {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17
        out += Array(words[Int(s % UInt64(words.count))].utf8) + [s % 11 == 0 ? 10 : 32]
    }
    return Array(out.prefix(count))
}

func readFile(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

/// Resolves a manifest written in `dir` and packs it to `dir/name.pack`.
@discardableResult
func packManifest(_ json: String, in dir: TempDir, output: String = "out.pack", configure: (inout PackWriter) -> Void = { _ in }) throws -> (String, PackSummary) {
    let (manifest, diagnostics) = ManifestDecoder.decode(Array(json.utf8), file: "Manifest.json")
    guard let manifest else { throw TestFailure("manifest invalid: \(diagnostics)") }
    let (files, more) = FileSelection.resolve(manifest, manifestFile: "Manifest.json", baseDirectory: dir.path)
    guard !more.hasErrors else { throw TestFailure("selection failed: \(more)") }
    var writer = PackWriter()
    configure(&writer)
    let out = dir.path + "/" + output
    return (out, try writer.write(metadata: PackMetadata(manifest), files: files, to: out))
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Replaces a pack's index with `transform(index bytes)` and rewrites the trailer so that its
/// digest matches: the result is a pack whose only fault is what `transform` did.
func rewriteIndex(of packPath: String, _ transform: (inout [UInt8], PackTrailer) -> Void) {
    var bytes = readFile(packPath)
    let fileSize = UInt64(bytes.count)
    let trailer = try! PackTrailer.decode(Array(bytes.suffix(PackLayout.trailerSize)), fileSize: fileSize)
    var index = Array(bytes[Int(trailer.indexOffset)..<Int(trailer.indexOffset + trailer.indexLength)])
    transform(&index, trailer)
    bytes = Array(bytes[..<Int(trailer.indexOffset)]) + index
    let newTrailer = PackTrailer(indexOffset: trailer.indexOffset, indexLength: UInt64(index.count), indexDigest: SHA256Digest.hash(index))
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

/// Lists every regular file below `root` with its bytes and permission bits.
func snapshot(_ root: String) -> [String: ([UInt8], Int)] {
    var out: [String: ([UInt8], Int)] = [:]
    let e = FileManager.default.enumerator(atPath: root)!
    while let rel = e.nextObject() as? String {
        let full = root + "/" + rel
        var st = stat()
        guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
        out[rel] = (readFile(full), Int(st.st_mode & 0o7777))
    }
    return out
}
