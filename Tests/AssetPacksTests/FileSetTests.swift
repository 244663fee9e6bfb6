import Testing
@testable import AssetPacks

/// The bit set of file numbers an install keeps of the files it linked or skips.
@Suite struct FileSetTests {
    @Test func holdsWhatWasInsertedAndIteratesInFileOrder() {
        var set: FileSet = [130, 5]
        let added = [64, 0, 63].map { set.insert($0) }
        #expect(added == [true, true, true])
        let again = set.insert(5)
        #expect(!again, "a file is in the set once")
        #expect(set.count == 5 && !set.isEmpty)
        #expect(Array(set) == [0, 5, 63, 64, 130])
        for f in [0, 5, 63, 64, 130] { #expect(set.contains(f)) }
        for f in [-1, 1, 62, 65, 129, 131, 10_000] { #expect(!set.contains(f)) }
        var other: FileSet = [5, 7, 1_000_000]
        other.formUnion(set)
        #expect(Array(other) == [0, 5, 7, 63, 64, 130, 1_000_000] && other.count == 7)
        #expect(FileSet().isEmpty && Array(FileSet()).isEmpty)
        #expect(set == [130, 64, 63, 5, 0] && set != [130, 64, 63, 5])
    }
}
