@testable import AssetPacks
import AssetPackTransport
import TestRepositories

extension TestRepository {
    /// A manager for `root` that downloads from `urls` with this repository's key, quick retries
    /// and English as the user's language; `configure` changes anything else. One manager per
    /// root at a time: release the previous one of a root (end its scope) before making the next.
    func manager(root: String, urls: [String], _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) throws -> AssetPackManager {
        var configuration = AssetPackManager.Configuration(repositoryURLs: urls, publicKey: publicKey, storageRoot: root,
                                                           preferredLanguages: ["en"], retryPolicy: .quick,
                                                           storageLockTimeout: .seconds(10))
        // Small packs in several parts, so that every test goes through parallel assembly
        // (processes of the CLI keep the default: one part below 32 MiB).
        configuration.parallelDownloads = .init(parts: 3, minimumInstallSize: 0)
        configure(&configuration)
        return try AssetPackManager(configuration: configuration)
    }

    func manager(root: String, server: TestServer, _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) throws -> AssetPackManager {
        try manager(root: root, urls: [server.url], configure)
    }

    /// Installs pack `id` into `root` from `server` with a manager of its own, released when
    /// this returns, so that the next manager of the root can start.
    func install(_ id: String, root: String, server: TestServer) async throws {
        let manager = try manager(root: root, server: server)
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: id))
    }
}

extension RetryPolicy {
    /// Retries enough to ride out injected faults, with pauses of a few milliseconds.
    static let quick = RetryPolicy(maxAttempts: 6, initialDelay: .milliseconds(2), maxDelay: .milliseconds(20))
}
