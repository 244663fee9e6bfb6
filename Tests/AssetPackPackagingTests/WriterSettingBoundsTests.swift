import AssetPackFormat
import AssetPackPackaging
import Foundation
import TestSupport
import Testing

/// A library caller gets the same clear error as the command line for a setting out of range,
/// before any file is written.
@Suite struct WriterSettingBoundsTests {
    @Test(arguments: [(0, Int32(3)), (100_000, Int32(3)), (1, Int32(0)), (1, Int32(23))])
    func theWriterRefusesSettingsOutOfRange(threads: Int, level: Int32) throws {
        let s = try TemporaryDirectory("bounds"); defer { s.remove() }
        var writer = PackWriter()
        writer.threads = threads
        writer.compressionLevel = level
        let expected = threads != 1
            ? "threads must be from 1 to \(SettingBounds.threads.upperBound) (\(SettingBounds.threadsReason)), got \(threads)"
            : "compression level must be from 1 to 19, got \(level)"
        let metadata = PackMetadata(assetPackID: "p", downloadPolicy: .onDemand, platforms: [.iOS], language: nil)
        do {
            _ = try writer.write(metadata: metadata, files: [], to: s.file("p.pack"))
            Issue.record("threads \(threads), level \(level) were accepted")
        } catch {
            #expect("\(error)" == expected)
        }
        #expect(!s.exists("p.pack"))
    }
}
