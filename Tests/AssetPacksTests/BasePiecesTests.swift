@testable import AssetPacks
import AssetPackFormat
import Testing

/// What an update's read-ahead asks for: the pieces of the installed files its patches' bases
/// cover, in the order the bases are needed, each byte once.
@Suite struct BasePiecesTests {
    /// Files of 100, 0, 50, 1000 and 30 bytes: stream offsets 0, 100, 100, 150, 1150.
    let index = PackIndex(metadata: PackMetadata(assetPackID: "B", downloadPolicy: .onDemand, platforms: [.iOS], language: nil),
                          chunking: .default, chunks: [], sequence: [],
                          files: [FileEntry(path: "a", mode: 0o644, size: 100), FileEntry(path: "b", mode: 0o644, size: 0),
                                  FileEntry(path: "c", mode: 0o644, size: 50), FileEntry(path: "d", mode: 0o644, size: 1000),
                                  FileEntry(path: "e", mode: 0o644, size: 30)])

    func pieces(_ bases: [Range<UInt64>]) -> [BasePieces.Piece] {
        Array(IteratorSequence(BasePieces(index: index, bases: bases)))
    }

    @Test func overlappingBasesGiveEachByteOnceAndSplitLargeFiles() {
        #expect(pieces([0..<120, 110..<200, 1100..<1180]) == [
            .init(base: 0, file: 0, range: 0..<100), .init(base: 0, file: 2, range: 100..<120),
            .init(base: 1, file: 2, range: 120..<150), .init(base: 1, file: 3, range: 150..<200),
            .init(base: 2, file: 3, range: 1100..<1150), .init(base: 2, file: 4, range: 1150..<1180),
        ])
    }

    /// A base wholly covered by the one before, one past the stream's end and an empty one give
    /// nothing.
    @Test func coveredEmptyAndOutlyingBasesGiveNothing() {
        #expect(pieces([0..<300, 20..<250, 250..<250, 5000..<6000]) == [
            .init(base: 0, file: 0, range: 0..<100), .init(base: 0, file: 2, range: 100..<150), .init(base: 0, file: 3, range: 150..<300),
        ])
        #expect(pieces([]).isEmpty)
    }
}
