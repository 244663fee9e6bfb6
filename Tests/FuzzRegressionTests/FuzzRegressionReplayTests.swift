import Foundation
import Testing

/// Replays every input kept under `FuzzRegressions/<target>/` — crashes the fuzzers found,
/// minimized, after the bug was fixed — through the same `FuzzTarget.run` the libFuzzer entry
/// point calls, so that CI checks them without building the fuzzers (`scripts/fuzz.sh`).
@Suite struct FuzzRegressionReplayTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzRegressions")

    /// Small inputs every target must take without trapping (empty, one byte, cut-off syntax).
    static let smallInputs: [[UInt8]] = [[], [0], [0xFF], Array("{".utf8), Array("\"\\u".utf8), Array("/%\n bytes=0-".utf8)]

    @Test("every kept fuzz input replays without a crash", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        let folder = Self.regressions.appendingPathComponent(target.rawValue)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        for name in names {
            target.run(Array(try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        for input in Self.smallInputs { target.run(input) }
    }

    @Test("every folder of kept inputs names a fuzz target")
    func foldersNameTargets() throws {
        let entries = try FileManager.default.contentsOfDirectory(atPath: Self.regressions.path)
        var isFolder: ObjCBool = false
        let folders = entries.filter {
            FileManager.default.fileExists(atPath: Self.regressions.appendingPathComponent($0).path, isDirectory: &isFolder) && isFolder.boolValue
        }
        let unknown = folders.filter { FuzzTarget(rawValue: $0) == nil }
        #expect(unknown.isEmpty, "folders under FuzzRegressions that name no target: \(unknown)")
    }
}
