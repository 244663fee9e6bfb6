import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Limits apply before a byte moves: allowances (compressed sizes), install sizes (uncompressed
/// sizes), the shouldDownload hook and the domain allow-list, redirects included.
@Suite struct DownloadLimitTests {
    /// An on-demand pack that compresses well (install size ≫ download size) and an essential one.
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Text", files: ["text.txt": text("compressible line\n", repeating: 20_000)])
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.bin": patternBytes(100_000, seed: 41)])
        try repo.publish()
        return repo
    }

    func allowanceError(_ error: AssetPackManagerError?) -> (what: String, needed: UInt64, limit: UInt64)? {
        if case .allowanceExceeded(let what, let needed, let limit)? = error { return (what, needed, limit) }
        return nil
    }

    /// The allowance error of the one pack a batch failed for.
    func allowanceError(_ error: (any Error)?) -> (what: String, needed: UInt64, limit: UInt64)? {
        if let batch = error as? AssetPackManager.LocalAvailabilityError, batch.failures.count == 1 {
            return allowanceError(batch.failures.first?.value as? AssetPackManagerError)
        }
        return allowanceError(error as? AssetPackManagerError)
    }

    @Test func downloadAllowanceCountsCompressedBytes() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let text = try repo.catalog().pack(withID: "Text")!
        #expect(text.installSize > 10 * text.downloadSize)
        // Room for the install size of nothing else, but the compressed bytes are over by one.
        do {
            let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.downloadAllowance = text.downloadSize - 1 }
            let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Text")) }
            let refusal = try #require(allowanceError(error))
            #expect(refusal.what.contains("download allowance") && refusal.needed == text.downloadSize && refusal.limit == text.downloadSize - 1)
            #expect(server.packRequests().isEmpty)
            #expect(await manager.fetchedBytes == 0)
        }
        // Exactly the pack's size is allowed.
        let enough = try repo.manager(root: repo.dir.file("root"), server: server) { $0.downloadAllowance = text.downloadSize }
        try await enough.ensureLocalAvailability(of: enough.catalogPack(withID: "Text"))
    }

    @Test func maxInstallSizeCountsUncompressedBytes() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let text = try repo.catalog().pack(withID: "Text")!
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) {
            $0.downloadAllowance = text.downloadSize * 2
            $0.maxInstallSize = text.installSize - 1
        }
        let updates = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Text"))
        let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Text")) }
        let refusal = try #require(allowanceError(error))
        #expect(refusal.what.contains("install size") && refusal.needed == text.installSize)
        #expect(server.packRequests().isEmpty)
        #expect(await manager.fetchedBytes == 0)
        #expect(await updates.ended().map(\.kind) == ["failed"])
        #expect(StorageRoot(path: repo.dir.file("root")).stagingEntries.isEmpty)
    }

    @Test func essentialLimitsApplyToTheInstallStep() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let core = try repo.catalog().pack(withID: "Core")!
        for limit in [\AssetPackManager.Configuration.essentialDownloadAllowance, \.essentialMaxInstallSize] {
            let root = repo.dir.file("root-\(limit.hashValue)")
            let manager = try repo.manager(root: root, server: server) { $0[keyPath: limit] = 1000 }
            var error: (any Error)?
            do { try await manager.handleInstallationEvent(.firstInstallation) } catch let e { error = e }
            let refusal = try #require(allowanceError(error))
            #expect(refusal.what.hasPrefix("Core: essential") && refusal.limit == 1000, "\(refusal.what)")
            #expect(!manager.assetPackIsAvailableLocally(withID: "Core"))
        }
        #expect(server.packRequests().isEmpty)
        // The essential limits do not apply to on-demand packs.
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.essentialDownloadAllowance = 1000 }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Text"))
        #expect(core.downloadSize > 1000)
    }

    @Test func packsDownloadingTogetherShareTheAllowance() async throws {
        let repo = try TestRepository()
        let policy = DownloadPolicy.essential(installationEventTypes: [.firstInstallation])
        for id in ["One", "Two", "Three"] { try repo.put(id, policy: policy, files: ["\(id).bin": patternBytes(200_000, seed: UInt64(id.count))]) }
        let catalog = try repo.publish()
        let server = try repo.serve()
        let allowance = catalog.packs.map(\.downloadSize).max()! * 2
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.essentialDownloadAllowance = allowance }
        let error = await #expect(throws: AssetPackManager.LocalAvailabilityError.self) { try await manager.handleInstallationEvent(.firstInstallation) }
        guard let error else { return }
        #expect(error.successes.count == 2 && error.failures.count == 1)
        #expect(allowanceError(error.failures.first?.value as? AssetPackManagerError) != nil)
        #expect(error.successes.reduce(0) { $0 + UInt64($1.downloadSize) } <= allowance)
        #expect(await manager.fetchedBytes <= allowance)
    }

    @Test func shouldDownloadDeclines() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let asked = AskedPacks()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.shouldDownload = { asked.add($0); return false } }
        let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Text")) }
        #expect(error.map { if case .downloadDeclined(assetPackID: "Text") = $0 { true } else { false } } == true)
        #expect(asked.ids == ["Text"])
        #expect(server.packRequests().isEmpty)
        #expect(await manager.fetchedBytes == 0)
    }

    @Test func repositoryHostOutsideTheAllowListIsRefusedAtInit() throws {
        let repo = try repository()
        let server = try repo.serve()
        let url = "http://localhost:\(server.server.port)/"
        #expect(throws: AssetPackManagerError.self) {
            _ = try repo.manager(root: repo.dir.file("root"), urls: [url]) { $0.allowedDomains = ["127.0.0.1"] }
        }
        do {
            _ = try repo.manager(root: repo.dir.file("root"), urls: [url]) { $0.allowedDomains = ["*.example.com"] }
            Issue.record("localhost is not a subdomain of example.com")
        } catch let AssetPackManagerError.domainNotAllowed(host, refused) {
            #expect(host == "localhost" && refused == url)
        }
        #expect(server.requests().isEmpty)
    }

    @Test func allowListPatterns() {
        let list = DomainAllowList(["cdn.example.com", "*.assets.example.org"])
        #expect(list.allows(host: "cdn.example.com") && list.allows(host: "CDN.Example.com"))
        #expect(!list.allows(host: "example.com") && !list.allows(host: "evil-cdn.example.com"))
        #expect(list.allows(host: "eu.assets.example.org") && list.allows(host: "a.b.assets.example.org"))
        #expect(!list.allows(host: "assets.example.org") && !list.allows(host: "xassets.example.org"))
        #expect(DomainAllowList([]).allows(host: "anything.invalid"))
    }

    @Test func redirectToAHostOutsideTheAllowListIsRefused() async throws {
        let repo = try repository()
        // nginx serves the catalog and sends pack requests to another server, named "localhost".
        let target = try repo.serve()
        let nginx = try NginxServer(root: repo.path, locations: "location /packs/ { return 302 http://localhost:\(target.server.port)$request_uri; }")
        defer { nginx.stop() }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, urls: [nginx.url("/")]) { $0.allowedDomains = ["127.0.0.1"] }
        let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Text")) }
        guard case .domainNotAllowed(let host, let url)? = error else { Issue.record("expected domainNotAllowed, got \(String(describing: error))"); return }
        #expect(host == "localhost" && url.hasPrefix("http://localhost:\(target.server.port)/packs/Text/"))
        #expect(target.requests().isEmpty)
        #expect(root.stagingEntries.isEmpty)
        #expect(try root.store().pendingDownload("Text") == nil)

        // Without the list the same redirect is followed and the pack installs.
        let open = try repo.manager(root: repo.dir.file("open"), urls: [nginx.url("/")])
        try await open.ensureLocalAvailability(of: open.catalogPack(withID: "Text"))
        #expect(try open.contents(at: "text.txt") == Data(text("compressible line\n", repeating: 20_000)))
        #expect(!target.packRequests().isEmpty)
    }

    @Test func redirectWithinTheAllowListIsFollowed() async throws {
        let repo = try repository()
        let nginx = try NginxServer(root: repo.path, locations: """
            location /packs/ { return 302 /mirror$request_uri; }
            location /mirror/ { alias \(repo.path)/; }
            """)
        defer { nginx.stop() }
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [nginx.url("/")]) { $0.allowedDomains = ["127.0.0.1"] }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Text"))
        #expect(try manager.contents(at: "text.txt") == Data(text("compressible line\n", repeating: 20_000)))
    }
}

/// The packs a shouldDownload hook was asked about.
final class AskedPacks: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ pack: AssetPack) { lock.withLock { list.append(pack.id) } }
    var ids: [String] { lock.withLock { list } }
}
