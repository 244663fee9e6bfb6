/// Receives what LZMatchFinder finds, in order: `literalCount` bytes taken as they are from
/// `literalStart`, then `matchLength` bytes repeated from `distance` bytes back.
protocol LZMatchSink: ~Copyable {
    /// The longest distance the code can carry.
    var maxDistance: Int { get }
    mutating func match(literalStart: Int, literalCount: Int, matchLength: Int, distance: Int)
    /// The literals after the last match, up to the end of the input.
    mutating func finish(literalStart: Int, literalCount: Int)
}
