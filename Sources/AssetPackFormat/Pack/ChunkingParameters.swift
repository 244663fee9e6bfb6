/// The minimum, average and maximum chunk sizes of content-defined chunking. They are stored in
/// each pack's index so that a later version can be chunked the same way (delta updates).
public struct ChunkingParameters: Sendable, Equatable, Codable {
    public var minimumSize: Int
    public var averageSize: Int
    public var maximumSize: Int

    /// 64 KiB / 256 KiB / 1 MiB: measured in docs/BENCHMARKS.md ("Choosing the chunk size").
    public static let `default` = ChunkingParameters(minimumSize: 64 << 10, averageSize: 256 << 10, maximumSize: 1 << 20)
    /// No pack may declare chunks larger than this, whatever its parameters say.
    public static let largestAllowedChunk = 16 << 20

    public init(minimumSize: Int, averageSize: Int, maximumSize: Int) {
        self.minimumSize = minimumSize
        self.averageSize = averageSize
        self.maximumSize = maximumSize
    }

    /// Why these parameters are unusable, or nil.
    public var problem: String? {
        guard minimumSize >= 64, minimumSize < averageSize, averageSize < maximumSize else {
            return "chunk sizes must satisfy 64 ≤ minimum < average < maximum"
        }
        guard averageSize & (averageSize - 1) == 0 else { return "the average chunk size must be a power of two" }
        guard maximumSize <= Self.largestAllowedChunk else { return "the maximum chunk size may be at most \(Self.largestAllowedChunk) bytes" }
        return nil
    }
}
