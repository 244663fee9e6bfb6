import AssetPackFormat
import AssetPackServer
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A crowd of clients installing the same pack from one server at the same moment, each into a
/// storage root of its own: every one ends with the pack installed byte for byte, and the
/// server answered every request it was sent (no refusal, no error status).
@Suite struct CrowdInstallTests {
    static let clients = 100
    static let files = ["big.bin": patternBytes(300_000, seed: 41), "small.json": Array(#"{"level": 1}"#.utf8),
                        "text/notes.txt": text("a line of notes\n", repeating: 4_000)]

    @Test func hundredClientsInstallAtOnceByteExact() async throws {
        let repo = try TestRepository("crowd")
        try repo.put("Pack", files: Self.files)
        _ = try repo.publish()
        let server = try repo.serve(faults: FaultConfiguration())
        let managers = try (0..<Self.clients).map { try repo.manager(root: repo.dir.file("roots/\($0)"), server: server) }
        // The managers are made first, so that the installs start together and overlap.
        let failures = await withTaskGroup(of: String?.self) { group in
            for (k, manager) in managers.enumerated() {
                group.addTask {
                    do {
                        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
                        for (path, bytes) in Self.files where try manager.contents(at: FilePath(path)) != Data(bytes) {
                            return "client \(k): \(path) differs"
                        }
                        return nil
                    } catch { return "client \(k): \(error)" }
                }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.count) of \(Self.clients) clients failed: \(Array(failures.prefix(5)))")
        let requests = server.requests()
        #expect(requests.filter { $0.path.hasPrefix("/packs/") }.count >= Self.clients, "every client fetched the pack")
        let statuses = Set(requests.map(\.status))
        #expect(statuses.isSubset(of: [200, 206, 304]), "statuses: \(statuses.sorted())")
    }
}
