import Foundation

/// The shared test vectors (`shared/testdata/<set>`) that live beside the checkout, not in it:
/// CI lays `shared/` next to the clone (`../shared`), a worktree sits one folder deeper. The
/// first `shared/testdata` found walking up from the package root is the one.
public enum SharedTestData {
    /// The `shared/testdata` folder: the first one found going up from the package root.
    public static func folder() throws -> String {
        var directory = DocumentedBlock.packageRoot
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("shared/testdata").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
                return candidate
            }
            directory = directory.deletingLastPathComponent()
        }
        throw TestSupportError("no shared/testdata above \(DocumentedBlock.packageRoot.path)")
    }

    /// The absolute path of `file` in the vector set `set` (e.g. "apple-archive"); throws when
    /// the set is nowhere above the checkout.
    public static func path(_ file: String, in set: String) throws -> String {
        let folder = (try folder() as NSString).appendingPathComponent(set)
        guard FileManager.default.fileExists(atPath: folder) else { throw TestSupportError("\(folder) does not exist") }
        return (folder as NSString).appendingPathComponent(file)
    }

    /// The bytes of `relative` (such as `apple-archive/SparkleTestCodeSignApp.aar`) in that folder.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        let path = (try folder() as NSString).appendingPathComponent(relative)
        guard let data = FileManager.default.contents(atPath: path) else { throw TestSupportError("cannot read \(path)") }
        return [UInt8](data)
    }
}
