import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// The installed version of the pack (Apple's `localVersion(ofAssetPackWithID:)`), without
    /// touching the network; `assetPackNotFound(withID:)` when none is installed.
    public nonisolated func localVersion(ofAssetPackWithID id: String) throws -> Int {
        try requireConfigured()
        if let agent {
            let description = try agent.connection.assetPackNow(withID: id)
            guard description.assetPackStatus.contains(.downloaded) else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
            return description.installedVersion ?? description.version
        }
        guard let local, let installed = try local.store.installedPack(id) else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
        return installed.version
    }

    /// The bytes the installed pack takes on this device, counted over its files (Apple's
    /// `localSize(ofAssetPackWithID:calculationMethod:)`): `.logical` adds the files' sizes,
    /// `.allocated` the blocks the file system gave them. `assetPackNotFound(withID:)` when the
    /// pack is not installed. Reads every file's metadata: a pack of many files takes a while.
    public func localSize(ofAssetPackWithID id: String, calculationMethod: SizeCalculationMethod) async throws -> Int64 {
        try requireConfigured()
        let files: [String]
        if let agent {
            guard try await agent.connection.assetPack(withID: id).assetPackStatus.contains(.downloaded) else {
                throw AssetPackManagerError.assetPackNotFound(withID: id)
            }
            let connection = agent.connection
            let paths = try await agent.namespace().filter { $0.packIDs.contains(id) }.map(\.path)
            files = try await offload { try paths.map { try connection.urlNow(for: $0, searchingInAssetPackWithID: id).path } }
        } else {
            guard let installed = try store.installedPack(id) else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
            let directory = layout.absolute(try layout.checkedInstallDirectory(installed.directory, id: id))
            let paths = try store.namespaceEntries().filter { $0.packIDs.contains(id) }.map(\.path)
            files = paths.map { (directory as NSString).appendingPathComponent($0) }
        }
        return try await offload {
            var total: Int64 = 0
            for file in files {
                var st = stat()
                // lstat: a link planted in the folder is counted as itself, never followed.
                guard lstat(file, &st) == 0 else {
                    throw AssetPackManagerError.storage("cannot read the size of \(file): \(String(cString: strerror(errno)))")
                }
                total += calculationMethod == .logical ? Int64(st.st_size) : Int64(st.st_blocks) * 512
            }
            return total
        }
    }
}
