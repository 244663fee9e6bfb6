import AssetPackFormat

/// Why an Apple Archive could not be read or extracted: the part of the archive (`region`: the
/// container, a chunk, an entry by index and path), the byte offset where the rule broke, and the
/// reason. Container offsets count bytes of the file; entry offsets count bytes of the AA01
/// stream the container carries (the same thing for a bare stream).
public struct AppleArchiveError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The bytes break a rule of the format (or lie about a size).
        case malformed
        /// The archive is well formed but uses something this reader does not decode: an
        /// encrypted archive (AEA1), a codec without a decoder here, an entry type it cannot create.
        case unsupported
        /// Reading the archive or writing the extracted tree failed.
        case io
    }

    public let kind: Kind
    /// The part of the archive: "container", "chunk 3", "entry 12 (a/b.txt)", or a file path.
    public let region: String
    /// The byte offset in the file (container, chunks) or in the AA01 stream (entries).
    public let offset: UInt64?
    public let reason: String

    public init(_ kind: Kind, _ region: String, at offset: UInt64?, _ reason: String) {
        self.kind = kind
        self.region = region
        self.offset = offset
        self.reason = reason
    }

    static func malformed(_ region: String, at offset: UInt64, _ reason: String) -> Self { Self(.malformed, region, at: offset, reason) }

    public var description: String {
        guard let offset else { return "\(region): \(reason)" }
        return "\(region) at offset \(offset): \(reason)"
    }
}
