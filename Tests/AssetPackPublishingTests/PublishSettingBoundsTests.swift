import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `Publisher` holds `keep` and the writer's threads to the ranges the command line does, with the
/// same sentence, and writes nothing when one is out of range.
@Suite struct PublishSettingBoundsTests {
    @Test(arguments: [(0, 1), (1001, 1), (2, 0), (2, 100_000)])
    func outOfRangeSettingsAreRefusedBeforeAnyWrite(keep: Int, threads: Int) throws {
        let ws = try workspace()
        try ws.put("Alpha", files: ["a.bin": patternBytes(1000, seed: 3)])
        let options = ws.options {
            $0.keep = keep
            $0.writer.threads = threads
        }
        let expected = keep != 2
            ? "keep must be from 1 to 1000 (the current version counts), got \(keep)"
            : "threads must be from 1 to \(SettingBounds.threads.upperBound) (\(SettingBounds.threadsReason)), got \(threads)"
        do {
            _ = try Publisher(key: testKey, options: options).publish(manifests: ["\(ws.dir.path)/Alpha.json"])
            Issue.record("keep \(keep), threads \(threads) were accepted")
        } catch {
            #expect("\(error)" == expected)
        }
        #expect(!FileManager.default.fileExists(atPath: ws.path))
    }
}
