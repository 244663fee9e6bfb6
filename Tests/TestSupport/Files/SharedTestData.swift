import Foundation

/// The shared test data that lies beside the checkout (`../shared/testdata`, or further up when
/// the checkout is nested, as a worktree is).
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

    /// The absolute path of `file` in the vector set `set` (such as "apple-archive").
    public static func path(_ file: String, in set: String) throws -> String {
        ((try folder() as NSString).appendingPathComponent(set) as NSString).appendingPathComponent(file)
    }

    /// The bytes of `relative` (such as `apple-archive/SparkleTestCodeSignApp.aar`) in that folder.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        let path = (try folder() as NSString).appendingPathComponent(relative)
        guard let data = FileManager.default.contents(atPath: path) else { throw TestSupportError("cannot read \(path)") }
        return [UInt8](data)
    }
}
