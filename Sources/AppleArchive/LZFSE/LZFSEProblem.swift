/// What is wrong inside a block, before the stream decoder names the block and its offset in an
/// LZFSEError.
struct LZFSEProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
