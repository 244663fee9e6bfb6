import AppleArchive
import ArgumentParsing

/// The value of `--compression` for `aar create`: a codec the archive writer emits.
struct AppleArchiveCompressionArgument: ArgumentValue {
    let codec: AppleArchiveCompression

    init?(argument: String) {
        guard let codec = AppleArchiveCompression(rawValue: argument.lowercased()), codec != .lz4 else { return nil }
        self.codec = codec
    }

    static var expectation: String { "lzfse, zlib, lzma or none" }
}
