import Foundation

/// One walk over the audited folder: every regular file with its size (from `stat`, never read),
/// and the Xcode projects and asset catalogs found. Paths are relative to the root, `/`-separated.
public struct ProjectTree: Sendable {
    /// The absolute, normalized root.
    public var root: String
    public var fileSizes: [String: UInt64] = [:]
    public var xcodeProjects: [String] = []
    public var assetCatalogs: [String] = []

    /// Folders never worth descending into: build output, VCS data, package caches.
    static let skippedFolders: Set<String> = [".git", ".svn", ".hg", ".build", "DerivedData", "build", "node_modules", "xcuserdata", ".swiftpm"]

    public init(root: String) {
        self.root = PathText.absolute(root)
        let url = URL(fileURLWithPath: self.root, isDirectory: true)
        let keys: [URLResourceKey] = [.isDirectoryKey, .isRegularFileKey, .fileSizeKey, .isSymbolicLinkKey]
        guard let e = FileManager.default.enumerator(at: url, includingPropertiesForKeys: keys) else { return }
        let prefixCount = self.root == "/" ? 1 : self.root.count + 1
        while let item = e.nextObject() as? URL {
            let path = PathText.normalize(item.path)
            guard path.count > prefixCount - 1 else { continue }
            let relative = String(path.dropFirst(prefixCount))
            let name = item.lastPathComponent
            guard let values = try? item.resourceValues(forKeys: Set(keys)) else { continue }
            if values.isSymbolicLink == true { continue }
            if values.isDirectory == true {
                if Self.skippedFolders.contains(name) { e.skipDescendants(); continue }
                if name.hasSuffix(".xcodeproj") { xcodeProjects.append(relative) }
                if name.hasSuffix(".xcassets") { assetCatalogs.append(relative) }
                continue
            }
            if values.isRegularFile == true { fileSizes[relative] = UInt64(values.fileSize ?? 0) }
        }
        xcodeProjects.sort()
        assetCatalogs.sort()
    }

    /// Relative paths of files whose extension is in `extensions`, sorted.
    public func files(withExtensions extensions: Set<String>) -> [String] {
        fileSizes.keys.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }

    /// The bytes of a file, or of every file below a folder.
    public func bytes(at relative: String) -> UInt64 {
        if let size = fileSizes[relative] { return size }
        let prefix = relative == "." ? "" : relative + "/"
        return fileSizes.reduce(0) { $1.key.hasPrefix(prefix) ? $0 + $1.value : $0 }
    }

    /// Whether a relative path names a walked file or a folder holding walked files.
    public func exists(_ relative: String) -> Bool {
        if fileSizes[relative] != nil { return true }
        let prefix = relative + "/"
        return fileSizes.keys.contains { $0.hasPrefix(prefix) } || FileManager.default.fileExists(atPath: absolute(relative))
    }

    public func absolute(_ relative: String) -> String { PathText.join(root, relative) }

    public func relative(_ absolute: String) -> String { PathText.relative(PathText.normalize(absolute), to: root) }
}
