import Foundation
import TestSupport

/// The Apple-made archive in shared/testdata/apple-archive (Sparkle's test app, see its
/// PROVENANCE.md) and its ground truth, the same tree as a tar.
enum SparkleSample {
    static func path(_ suffix: String) throws -> String { try SharedTestData.path("SparkleTestCodeSignApp.\(suffix)", in: "apple-archive") }

    /// The tar's tree, extracted by the system's tar into `folder`.
    static func tarTree(in folder: TemporaryDirectory) throws -> TreeSnapshot {
        let target = folder.file("tar")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let result = try ChildProcess.runBlocking("/usr/bin/env", ["tar", "-xf", try path("tar"), "-C", target])
        guard result.status == 0 else { throw TreeError("tar failed: \(result.stderr)") }
        return try TreeSnapshot(target)
    }
}
