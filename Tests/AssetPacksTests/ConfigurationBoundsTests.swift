@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The manager holds `parallelDownloads.parts` to the range `--parts` allows, with the same sentence.
@Suite struct ConfigurationBoundsTests {
    @Test(arguments: [17, 100_000])
    func tooManyPartsIsAnInvalidConfiguration(parts: Int) async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.txt": text("pack\n")])
        try repo.publish()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let error = await managerError { _ = try repo.manager(root: root, server: server) { $0.parallelDownloads = .init(parts: parts, minimumInstallSize: 0) } }
        #expect(error?.description == "invalid configuration: parallelDownloads.parts must be from 1 to 16, got \(parts)", "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: root))
    }
}
