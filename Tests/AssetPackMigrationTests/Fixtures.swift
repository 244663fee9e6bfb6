import Foundation

/// Paths of the fixture trees for the migration tests.
enum Fixtures {
    static let root: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    }()
    static var odr: String { root + "/ODR" }
    static var gameApp: String { odr + "/GameApp" }
    static var steamScripts: String { root + "/Steam/scripts" }
    static var steamContent: String { root + "/Steam/content" }

    static func bytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

    /// The bytes of every regular file below `folder` (or of the file itself), counted independently of the audit.
    static func diskBytes(_ path: String) -> UInt64 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return 0 }
        if !isDirectory.boolValue { return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0 }
        var total: UInt64 = 0
        for p in FileManager.default.subpaths(atPath: path) ?? [] { total += isDir(path + "/" + p) ? 0 : diskBytes(path + "/" + p) }
        return total
    }

    private static func isDir(_ p: String) -> Bool {
        var d: ObjCBool = false
        return FileManager.default.fileExists(atPath: p, isDirectory: &d) && d.boolValue
    }
}
