import Foundation
import Testing
@testable import AssetPackServer

/// The TLS folder holds private keys, so it may not be the served repository or lie inside it.
@Suite struct TLSFolderPlacementTests {
    @Test func refusesTheRepositoryAndAnyFolderInsideIt() throws {
        let repo = try TestRepository()
        for folder in [repo.directory, repo.directory + "/tls", repo.directory + "/packs/../tls", repo.directory + "/a/b"] {
            #expect {
                try TLSDirectory.prepare(at: folder, host: "127.0.0.1", serving: repo.directory)
            } throws: { error in
                guard case TLSError.insideRepository(let f, let r) = error else { return false }
                return f == folder && r == repo.directory && "\(error)".contains("inside the repository")
            }
        }
        // Nothing was created before the refusal.
        #expect(!FileManager.default.fileExists(atPath: repo.directory + "/tls"))
        #expect(!FileManager.default.fileExists(atPath: repo.directory + "/a"))
    }

    @Test func refusesAFolderThatReachesTheRepositoryThroughASymbolicLink() throws {
        let repo = try TestRepository()
        let link = repo.root.appendingPathComponent("served").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: repo.directory)
        #expect(throws: TLSError.self) {
            try TLSDirectory.prepare(at: link + "/tls", host: "127.0.0.1", serving: repo.directory)
        }
        #expect(!FileManager.default.fileExists(atPath: repo.directory + "/tls"))
    }

    @Test func acceptsTheDefaultFolderBesideTheRepositoryAndASiblingWithASharedPrefix() throws {
        let repo = try TestRepository()
        let beside = TLSDirectory.defaultPath(forRepository: repo.directory)
        #expect(beside == URL(fileURLWithPath: repo.directory).deletingLastPathComponent().appendingPathComponent(".assetpack-tls").path)
        let tls = try TLSDirectory.prepare(at: beside, host: "127.0.0.1", serving: repo.directory)
        #expect(FileManager.default.fileExists(atPath: tls.authorityPath))
        // "repo-tls" starts with the repository's path but is not inside it.
        let sibling = repo.directory + "-tls"
        _ = try TLSDirectory.prepare(at: sibling, host: "127.0.0.1", serving: repo.directory)
        #expect(FileManager.default.fileExists(atPath: sibling + "/ca.pem"))
    }
}
