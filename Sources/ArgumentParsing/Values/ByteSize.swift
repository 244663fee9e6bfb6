import AssetPackFormat

/// A size option's value: bytes in the one grammar of `ByteCount` (decimal units, binary only
/// when spelt KiB/MiB/GiB/TiB).
public struct ByteSize: ArgumentValue, Equatable, Sendable {
    public var bytes: UInt64
    public init(bytes: UInt64) { self.bytes = bytes }
    public init?(argument: String) {
        guard let bytes = ByteCount.parse(argument) else { return nil }
        self.bytes = bytes
    }
    public static var expectation: String { "a size in \(ByteCount.grammar)" }
    public static var helpNote: String? { "Sizes: \(ByteCount.grammar)." }
}
