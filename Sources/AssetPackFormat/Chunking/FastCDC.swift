/// Content-defined chunking with a gear rolling hash and normalized chunking (FastCDC, Xia et al.
/// 2016): a cut falls where the hash of the last 64 bytes matches a mask, so inserting bytes into
/// a file moves only the cuts near the insertion. Below the average size a stricter mask (2 more
/// bits) applies, above it a looser one (2 fewer), which pulls chunk sizes towards the average.
public struct FastCDC: Sendable {
    public let parameters: ChunkingParameters
    private let strictMask: UInt64
    private let looseMask: UInt64

    public init(_ parameters: ChunkingParameters) {
        precondition(parameters.problem == nil, parameters.problem ?? "")
        self.parameters = parameters
        let bits = UInt64(parameters.averageSize.trailingZeroBitCount)
        // The gear hash shifts left, so its high bits depend on the most bytes: masks take those.
        strictMask = ((1 << (bits + 2)) - 1) << (64 - (bits + 2))
        looseMask = ((1 << (bits - 2)) - 1) << (64 - (bits - 2))
    }

    /// The length of the first chunk of `data`. When `data` is shorter than the maximum size and
    /// more bytes may follow, the caller must not use the answer unless it is below `data.count`
    /// (see `ChunkSegmenter`).
    public func cut(_ data: UnsafeRawBufferPointer) -> Int {
        let n = min(data.count, parameters.maximumSize)
        let minimum = parameters.minimumSize
        if n <= minimum { return n }
        let normal = min(parameters.averageSize, n)
        var hash: UInt64 = 0
        var i = minimum
        return GearTable.values.withUnsafeBufferPointer { gear in
            let bytes = data.bindMemory(to: UInt8.self)
            while i < normal {
                hash = (hash << 1) &+ gear[Int(bytes[i])]
                if hash & strictMask == 0 { return i + 1 }
                i += 1
            }
            while i < n {
                hash = (hash << 1) &+ gear[Int(bytes[i])]
                if hash & looseMask == 0 { return i + 1 }
                i += 1
            }
            return n
        }
    }
}
