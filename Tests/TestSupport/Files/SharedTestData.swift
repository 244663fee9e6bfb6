import Foundation

/// The shared test vectors (`shared/testdata/<set>`) that live beside the checkout, not in it:
/// CI lays `shared/` next to the clone (`../shared`), a worktree sits one folder deeper. The
/// first `shared/testdata/<set>` found walking up from the package root is the one.
public enum SharedTestData {
    /// The absolute path of `file` in the vector set `set` (e.g. "apple-archive"); throws when
    /// the set is nowhere above the checkout.
    public static func path(_ file: String, in set: String) throws -> String {
        var directory = DocumentedBlock.packageRoot
        for _ in 0..<4 {
            let folder = directory.appendingPathComponent("shared/testdata/\(set)")
            if FileManager.default.fileExists(atPath: folder.path) { return folder.appendingPathComponent(file).path }
            directory.deleteLastPathComponent()
        }
        throw TestSupportError("shared/testdata/\(set) was not found beside the checkout (\(DocumentedBlock.packageRoot.path)) or above it")
    }
}
