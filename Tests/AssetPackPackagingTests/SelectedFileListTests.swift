import Testing
@testable import AssetPackPackaging

/// The selection's list of files, held as the stretches the walk produced.
@Suite struct SelectedFileListTests {
    private func files(_ range: Range<Int>) -> [SelectedFile] {
        range.map { SelectedFile(packPath: "f\($0)", sourcePath: "/src/f\($0)", size: UInt64($0), mode: 0o644) }
    }

    /// Parts of 3, 0 (an emptied one) and 4 files taken over, then files appended to the last.
    private func list() -> SelectedFileList {
        var list = SelectedFileList(files(0..<3))
        var empty = SelectedFileList(files(100..<102))
        empty.removeAll()
        list.append(contentsOf: empty)
        list.append(contentsOf: SelectedFileList(files(3..<7)))
        list.append(files(7..<8)[0])
        list.append(contentsOf: files(8..<10)[...])
        return list
    }

    @Test func reachesEveryFileByPositionAndInOrderAcrossItsParts() {
        let list = list()
        #expect(list.count == 10)
        #expect(list.map(\.size) == Array(0..<10).map(UInt64.init))
        for i in [9, 0, 2, 3, 6, 7, 8, 5] { #expect(list[i].size == UInt64(i) && list[i].packPath == "f\(i)") }
        #expect(list == SelectedFileList(files(0..<10)) && list != SelectedFileList(files(0..<9)))
        var stretches: [[UInt64]] = []
        list.forEachStretch(from: 2) { stretches.append($0.map(\.size)) }
        #expect(stretches.filter { !$0.isEmpty } == [[2], [3, 4, 5, 6, 7, 8, 9]])
        stretches = []
        list.forEachStretch(from: 10) { stretches.append($0.map(\.size)) }
        #expect(stretches.isEmpty)
        #expect(SelectedFileList().isEmpty && Array(SelectedFileList()).isEmpty)
    }

    @Test func removesTheFirstFilesAcrossParts() {
        for n in 0...10 {
            var list = list()
            list.removeFirst(n)
            #expect(list.map(\.size) == Array(n..<10).map(UInt64.init), "after removing \(n)")
            list.append(files(20..<21)[0])
            #expect(list.last?.size == 20 && list.count == 11 - n)
        }
    }

    @Test func sortsIntoOnePart() {
        var list = SelectedFileList(files(5..<8))
        list.append(contentsOf: SelectedFileList(files(0..<5)))
        list.sort { $0.size < $1.size }
        #expect(list.map(\.size) == Array(0..<8).map(UInt64.init))
        var parts = 0
        list.forEachStretch(from: 0) { _ in parts += 1 }
        #expect(parts == 1)
        var joined = SelectedFileList(files(5..<8))
        joined.append(contentsOf: SelectedFileList(files(0..<1)))
        #expect(!SelectedFileFeed.inPackOrder(joined), "out of order where two parts join")
        #expect(SelectedFileFeed.inPackOrder(self.list()), "in order within and across parts")
    }
}
