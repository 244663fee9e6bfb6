@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A storage root on a 2 MiB tmpfs: an update that does not fit fails with a clear storage
/// error, its staging folder goes, and the installed version stays readable.
@Suite struct FullDiskTests {
    /// Mounts a tmpfs of `size` at `path` for `body`, and always unmounts it. Records an issue
    /// (the test must not pass silently) when this process cannot mount.
    func withSmallDisk(at path: String, size: String, _ body: () async throws -> Void) async throws {
        guard geteuid() == 0 else {
            Issue.record("the full-disk test needs root to mount a tmpfs (CI runs as root); it did not run")
            return
        }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=0755") == 0 else {
            Issue.record("cannot mount a tmpfs at \(path): \(String(cString: strerror(errno))); the full-disk test did not run")
            return
        }
        defer {
            if umount2(path, 0) != 0 { umount2(path, Int32(MNT_DETACH)) }
        }
        try await body()
    }

    @Test func updateThatDoesNotFitFailsCleanlyAndKeepsThePreviousVersion() async throws {
        let repo = try TestRepository()
        let small = ["pack.bin": patternBytes(100_000, seed: 51), "readme.txt": text("version 1\n")]
        try repo.put("Pack", files: small)
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("disk"))
        try await withSmallDisk(at: root.path, size: "2m") {
            try await repo.install("Pack", root: root.path, server: server)

            // Version 2 is 3 MB of incompressible bytes: more than the disk holds.
            try repo.put("Pack", files: ["pack.bin": patternBytes(3_000_000, seed: 52), "readme.txt": text("version 2\n")])
            try repo.publish()
            do {
                let updating = try repo.manager(root: root.path, server: server)
                let v2 = try await updating.catalogPack(withID: "Pack")
                #expect(v2.version == 2)
                let error = await managerError { try await updating.ensureLocalAvailability(of: v2, requireLatestVersion: true) }
                guard case .storage(let why)? = error else { Issue.record("expected a storage error, got \(String(describing: error))"); return }
                #expect(why.lowercased().contains("no space"), "\(why)")
                // Nothing of version 2 is left; version 1 is intact and readable.
                #expect(root.stagingEntries.isEmpty, "staging: \(root.stagingEntries)")
                #expect(try root.store().pendingDownload("Pack") == nil)
                #expect(root.installedVersions("Pack").count == 1)
                for (path, bytes) in small { #expect(try updating.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
                #expect(await updating.localStatus(ofAssetPackWithID: "Pack") == [.downloaded, .updateAvailable, .outOfDate])
            }
            // The space is free again: a small pack still installs.
            try repo.put("Small", files: ["small.txt": text("fits\n", repeating: 1000)])
            try repo.publish()
            let later = try repo.manager(root: root.path, server: server)
            try await later.ensureLocalAvailability(of: later.catalogPack(withID: "Small"))
            #expect(try later.contents(at: "small.txt") == Data(text("fits\n", repeating: 1000)))
        }
    }
}
