/// Where an archive's bytes come from: a file read by offset, or bytes already in memory (a
/// fuzzer's input, a test's). Reads never go past `size`.
public protocol ArchiveByteSource: Sendable {
    /// The number of bytes the source holds.
    var size: UInt64 { get }
    /// Reads `count` bytes at `offset` (the caller checks the range against `size`).
    func read(_ count: Int, at offset: UInt64) throws(AppleArchiveError) -> [UInt8]
}
