@testable import AssetPackPackaging
import Foundation
import Testing

/// The feed between a streaming selection and the writer holds a window of the files: the
/// selection waits while it is full, a reader that asks past it lets the selection go on, and
/// released files are let go of.
@Suite struct SelectedFileFeedTests {
    private func files(_ range: Range<Int>) -> [SelectedFile] {
        range.map { SelectedFile(packPath: String(format: "f%06d", $0), sourcePath: "/nowhere/\($0)", size: 1, mode: 0o644) }
    }

    @Test func theSelectionWaitsWhileTheWindowIsFull() throws {
        let feed = SelectedFileFeed(window: 64)
        let total = 10_000
        let producer = Thread {
            var i = 0
            while i < total {
                feed.append(self.files(i..<min(total, i + 10))[...])
                i += 10
            }
            feed.end()
        }
        producer.start()
        var most = 0, i = 0
        while let file = try feed.file(i) {
            #expect(file.packPath == String(format: "f%06d", i))
            most = max(most, feed.held)
            i += 1
            feed.release(below: i)
        }
        #expect(i == total)
        // The window, a batch past it, and up to the stretch released at once (1,024).
        #expect(most <= 64 + 10 + 1024, "the feed held \(most) files")
        #expect(feed.held == 0)
    }

    @Test func aReaderAskingPastTheWindowIsNotLeftWaiting() throws {
        let feed = SelectedFileFeed(window: 8)
        let producer = Thread {
            for i in 0..<100 { feed.append(self.files(i..<i + 1)[...]) }
            feed.end()
        }
        producer.start()
        // Nothing is released: the small-file reader looks ahead this way.
        #expect(try feed.file(99)?.packPath == "f000099")
        #expect(try feed.file(100) == nil)
        #expect(try feed.file(0)?.packPath == "f000000")
    }

    @Test func filesOutOfPackOrderStopTheReader() {
        let feed = SelectedFileFeed(window: 8)
        feed.append(files(5..<6)[...])
        feed.append(files(1..<2)[...])
        #expect(throws: SelectedFileFeed.Stop.outOfOrder) { try feed.file(0) }
    }
}
