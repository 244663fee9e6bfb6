/// The codec of an Apple Archive's `pbz*` container: the fourth byte of its magic. The codec
/// applies to the whole AA01 byte stream cut into blocks of the container's block size, not to
/// each file. `none` is a bare `AA01` stream with no container.
public enum AppleArchiveCompression: String, CaseIterable, Sendable {
    /// `pbze`: LZFSE, what Apple's tools write by default.
    case lzfse
    /// `pbzz`: zlib (RFC 1950: a 2-byte header, deflate, an Adler-32).
    case zlib
    /// `pbzx`: an xz stream (LZMA2) per chunk.
    case lzma
    /// `pbz4`: LZ4 blocks in Apple's `bv41` framing.
    case lz4
    /// A bare `AA01` stream: no container, no compression.
    case none

    /// The codec letter after `pbz`, or nil for a bare stream.
    public var magicLetter: UInt8? {
        switch self {
        case .lzfse: UInt8(ascii: "e")
        case .zlib: UInt8(ascii: "z")
        case .lzma: UInt8(ascii: "x")
        case .lz4: UInt8(ascii: "4")
        case .none: nil
        }
    }

    /// The codec a container magic's letter names, or nil for one this reader does not decode.
    public init?(magicLetter: UInt8) {
        guard let codec = Self.allCases.first(where: { $0.magicLetter == magicLetter }) else { return nil }
        self = codec
    }
}
