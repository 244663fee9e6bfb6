/// Why an LZFSE stream could not be decoded: the block it was in (its magic, such as `bvx2`), the
/// byte offset of that block in the stream, and the reason.
public struct LZFSEError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The four-character magic of the block being read (`bvx2`, `bvx1`, `bvxn`, `bvx-`, `bvx$`),
    /// or the bytes found where a magic was expected, in hex.
    public let block: String
    /// The byte offset of that block's magic in the stream.
    public let offset: Int
    /// What is wrong, in words.
    public let reason: String

    public init(block: String, offset: Int, reason: String) {
        self.block = block
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "LZFSE block \(block) at offset \(offset): \(reason)" }
}
