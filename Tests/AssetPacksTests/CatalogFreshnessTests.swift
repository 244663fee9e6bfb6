@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A long-lived manager fetches the catalog again once the one it holds is older than
/// `catalogMaxAge` (by its clock), shares that fetch among concurrent callers, and goes on with
/// the one it holds when the repository cannot be reached.
@Suite struct CatalogFreshnessTests {
    @Test func theCatalogIsFetchedAgainOnceOlderThanTheMaximumAge() async throws {
        let repo = try TestRepository()
        func publish(_ n: Int) throws {
            try repo.put("Pack", files: ["pack.txt": text("version \(n)\n", repeating: 10)])
            try repo.publish()
        }
        try publish(1)
        let server = try repo.serve()
        let clock = TestClock()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.now = { clock.now() } }
        #expect(manager.configuration.catalogMaxAge == .seconds(15 * 60))
        let catalogFetches = { server.requests().filter { $0.path == "/catalog.json" }.count }
        func version() async throws -> Int { try await manager.catalogPack(withID: "Pack").version }

        #expect(try await version() == 1)
        #expect(catalogFetches() == 1)

        // Within the maximum age the held catalog serves, without asking the repository.
        try publish(2)
        clock.advance(by: 10 * 60)
        #expect(try await version() == 1)
        #expect(catalogFetches() == 1)

        // Past it, the next call fetches the new catalog (no checkForUpdates needed).
        clock.advance(by: 6 * 60)
        #expect(try await version() == 2)
        #expect(catalogFetches() == 2)
        #expect(try await version() == 2)
        #expect(catalogFetches() == 2)

        // Callers that find the catalog old at the same time share one fetch.
        try publish(3)
        clock.advance(by: 16 * 60)
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await version() } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(versions == Array(repeating: 3, count: 8))
        #expect(catalogFetches() == 3)

        // Offline past the age: the catalog held (and stored) goes on serving.
        server.stop()
        clock.advance(by: 16 * 60)
        #expect(try await version() == 3)
    }
}
