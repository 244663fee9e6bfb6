/// An archive held in memory.
public struct InMemoryArchiveSource: ArchiveByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: UInt64 { UInt64(bytes.count) }

    public func read(_ count: Int, at offset: UInt64) throws(AppleArchiveError) -> [UInt8] {
        guard offset <= size, UInt64(count) <= size - offset else {
            throw AppleArchiveError(.io, "archive", at: offset, "a read of \(count) bytes goes past the end (\(size) bytes)")
        }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}
