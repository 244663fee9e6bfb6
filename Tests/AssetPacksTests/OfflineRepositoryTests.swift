import AssetPackFormat
@testable import AssetPacks
import AssetPackTransport
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A repository as a folder (a copy on a USB stick or a share), named by a `file://` URL: the
/// same signature, expiry and rollback checks as over HTTP, chunks read in place, and the faults
/// of a copy that is missing things.
@Suite struct OfflineRepositoryTests {
    func repository() throws -> TestRepository {
        let repo = try TestRepository("offline")
        try repo.put("Pack", files: ["a.bin": patternBytes(400_000, seed: 81), "b.txt": text("offline\n")])
        try repo.publish()
        return repo
    }

    /// A copy of the repository folder elsewhere (the stick), as a file:// URL.
    func stick(of repo: TestRepository, at name: String = "usb stick") throws -> (path: String, url: String) {
        let path = repo.dir.file(name)
        try FileManager.default.copyItem(atPath: repo.path, toPath: path)
        return (path, FileTransport.url(forPath: path))
    }

    @Test func installsFromAFolderWithTheSameChecks() async throws {
        let repo = try repository()
        let stick = try stick(of: repo)
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [stick.url]) { $0.allowedDomains = ["cdn.example.com"] }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        #expect(try manager.contents(at: "a.bin") == Data(patternBytes(400_000, seed: 81)))
        #expect(try manager.contents(at: "b.txt") == Data(text("offline\n")))

        // Another publisher's catalog on the stick is refused as from any server.
        let other = try TestRepository("other")
        try other.put("Pack", files: ["b.txt": text("forged\n")])
        try other.publish()
        try FileManager.default.removeItem(atPath: stick.path + "/catalog.json")
        try FileManager.default.copyItem(atPath: other.path + "/catalog.json", toPath: stick.path + "/catalog.json")
        let fresh = try repo.manager(root: repo.dir.file("root2"), urls: [stick.url])
        let error = await managerError { _ = try await fresh.catalogPack(withID: "Pack") }
        #expect(error?.description.contains("catalog refused") == true, "\(String(describing: error))")
    }

    @Test func aMissingOrTruncatedPackFileIsAClearErrorAndAnotherMirrorTakesOver() async throws {
        let repo = try repository()
        let pack = try #require(try repo.catalog().pack(withID: "Pack"))
        let missing = try stick(of: repo, at: "missing")
        try FileManager.default.removeItem(atPath: missing.path + "/" + pack.path)
        let truncated = try stick(of: repo, at: "truncated")
        #expect(truncate(truncated.path + "/" + pack.path, off_t(pack.size / 2)) == 0)

        for (label, stick) in [("missing", missing), ("truncated", truncated)] {
            let manager = try repo.manager(root: repo.dir.file("root-\(label)"), urls: [stick.url]) { $0.retryPolicy = .never }
            let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack")) }
            let message = try #require(error, "\(label)").description
            #expect(message.contains(pack.path), "\(label): \(message)")
            #expect(try StorageRoot(path: repo.dir.file("root-\(label)")).installedDirectory("Pack") == nil, "\(label)")
        }
        // The stick lacks the pack; the network mirror after it has it.
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root-both"), urls: [missing.url, server.url])
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        #expect(try manager.contents(at: "a.bin") == Data(patternBytes(400_000, seed: 81)))
    }

    @Test func anExpiredCatalogOnAStickSaysHowToPublishMedia() async throws {
        let repo = try TestRepository("expired")
        try repo.put("Pack", files: ["b.txt": text("old\n")])
        try repo.publish(expiresIn: 600, now: Date().addingTimeInterval(-3600))
        let stick = try stick(of: repo)
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [stick.url])
        let error = await managerError { _ = try await manager.catalogPack(withID: "Pack") }
        let message = try #require(error).description
        #expect(message.contains("expired") && message.contains("--expires"), "\(message)")
    }

    @Test func aServerCannotRedirectToALocalFile() async throws {
        let repo = try repository()
        let stick = try stick(of: repo)
        let nginx = try NginxServer(root: repo.path, locations: "location = /catalog.json { return 302 \(stick.url)/catalog.json; }")
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [nginx.url("/")]) { $0.retryPolicy = .never }
        let error = await managerError { _ = try await manager.catalogPack(withID: "Pack") }
        let message = try #require(error).description
        #expect(message.contains("redirect to a local file is refused"), "\(message)")
    }
}
