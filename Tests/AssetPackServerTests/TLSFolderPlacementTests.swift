import Foundation
import TestRepositories
import TestSupport
import Testing
@testable import AssetPackServer

/// The TLS folder holds private keys, so it may not be the served repository or lie inside it.
@Suite struct TLSFolderPlacementTests {
    @Test func refusesTheRepositoryAndAnyFolderInsideIt() throws {
        let repo = try TestRepository.servingBytes()
        for folder in [repo.path, repo.path + "/tls", repo.path + "/packs/../tls", repo.path + "/a/b"] {
            #expect {
                try TLSDirectory.prepare(at: folder, host: "127.0.0.1", serving: repo.path)
            } throws: { error in
                guard case TLSError.insideRepository(let f, let r) = error else { return false }
                return f == folder && r == repo.path && "\(error)".contains("inside the repository")
            }
        }
        // Nothing was created before the refusal.
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/tls"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/a"))
    }

    @Test func refusesAFolderThatReachesTheRepositoryThroughASymbolicLink() throws {
        let repo = try TestRepository.servingBytes()
        let link = repo.dir.file("served")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: repo.path)
        #expect(throws: TLSError.self) {
            try TLSDirectory.prepare(at: link + "/tls", host: "127.0.0.1", serving: repo.path)
        }
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/tls"))
    }

    @Test func acceptsTheDefaultFolderBesideTheRepositoryAndASiblingWithASharedPrefix() throws {
        let repo = try TestRepository.servingBytes()
        let beside = TLSDirectory.defaultPath(forRepository: repo.path)
        #expect(beside == URL(fileURLWithPath: repo.path).deletingLastPathComponent().appendingPathComponent(".assetpack-tls").path)
        let tls = try TLSDirectory.prepare(at: beside, host: "127.0.0.1", serving: repo.path)
        #expect(FileManager.default.fileExists(atPath: tls.authorityPath))
        // "repo-tls" starts with the repository's path but is not inside it.
        let sibling = repo.path + "-tls"
        _ = try TLSDirectory.prepare(at: sibling, host: "127.0.0.1", serving: repo.path)
        #expect(FileManager.default.fileExists(atPath: sibling + "/ca.pem"))
    }
}
