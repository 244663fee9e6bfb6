import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// The file at `path` in the merged namespace of installed packs, memory-mapped. With
    /// `searchingInAssetPackWithID`, only that pack is searched. When several installed
    /// localized variants hold the path, the user's languages choose.
    public func contents(at path: String, searchingInAssetPackWithID id: String? = nil) throws -> Data {
        let file = try resolve(path, in: id)
        do { return try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped) } catch {
            throw AssetPackManagerError.storage("cannot read \(file): \(error.localizedDescription)")
        }
    }

    /// An open read-only file descriptor for `path`; the caller closes it.
    public func descriptor(for path: String, searchingInAssetPackWithID id: String? = nil) throws -> Int32 {
        let file = try resolve(path, in: id)
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AssetPackManagerError.storage("cannot open \(file): \(String(cString: strerror(errno)))") }
        return fd
    }

    /// The file URL of `path` in the merged namespace.
    public func url(for path: String, searchingInAssetPackWithID id: String? = nil) throws -> URL {
        URL(fileURLWithPath: try resolve(path, in: id))
    }

    /// Every path in the merged namespace with the installed packs that hold it.
    public func namespace() throws -> [(path: String, packIDs: [String])] {
        var out: [(path: String, packIDs: [String])] = []
        for (path, id) in try store.paths() {
            if out.last?.path == path { out[out.count - 1].packIDs.append(id) } else { out.append((path, [id])) }
        }
        return out
    }

    private func resolve(_ path: String, in id: String?) throws -> String {
        let key = PackPath.normalizedSelector(path)
        guard PackPath.problemWithStoredPath(key) == nil else { throw AssetPackManagerError.fileNotFound(at: path) }
        var holders = try store.packs(holding: key)
        if let id { holders = holders.filter { $0 == id } }
        let candidates = try holders.compactMap { try store.installedPack($0) }
        guard let pack = languages.best(candidates, language: { $0.language }) else { throw AssetPackManagerError.fileNotFound(at: path) }
        try store.touch(pack.id, at: configuration.now())
        return layout.absolute(pack.directory) + "/" + key
    }
}
