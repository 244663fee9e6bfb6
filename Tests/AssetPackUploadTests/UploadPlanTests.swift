import AssetPackUpload
import Foundation
import TestSupport
import Testing

@Suite struct UploadPlanTests {
    func repository() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("plan")
        try dir.write("catalog.json", Array("{}".utf8))
        try dir.write("packs/b/22.pack", [2, 2])
        try dir.write("packs/a/11.pack", [1])
        try dir.write("packs/Z.pack", [9])
        try dir.write("catalog.json.sig", [7])
        return dir
    }

    @Test func packFilesFirstThenTopLevelFilesThenCatalogLast() throws {
        let dir = try repository()
        let plan = try UploadPlan(directory: dir.path, location: S3Location(parsing: "s3://bucket/repo/v1/"))
        #expect(plan.items.map(\.relativePath) == ["packs/Z.pack", "packs/a/11.pack", "packs/b/22.pack", "catalog.json.sig", "catalog.json"])
        #expect(plan.items.map(\.key).last == "repo/v1/catalog.json")
        let pack = try #require(plan.items.first { $0.relativePath == "packs/b/22.pack" })
        #expect(pack.contentType == "application/octet-stream")
        #expect(pack.cacheControl == "public, max-age=31536000, immutable")
        #expect(pack.isImmutable && pack.size == 2)
        let catalog = try #require(plan.items.last)
        #expect(catalog.contentType == "application/json")
        #expect(catalog.cacheControl == "public, max-age=60")
        #expect(!catalog.isImmutable)
        #expect(plan.items.first { $0.relativePath == "catalog.json.sig" }?.isImmutable == false)
    }

    @Test func rootsGoFirstRootBeforeTheCatalogAndTheTimestampLast() throws {
        let dir = try repository()
        try dir.write("roots/1.root.json", Array("{}".utf8))
        try dir.write("roots/2.root.json", Array("{}".utf8))
        try dir.write("root.json", Array("{}".utf8))
        try dir.write("timestamp.json", Array("{}".utf8))
        let plan = try UploadPlan(directory: dir.path, location: S3Location(bucket: "bucket"))
        #expect(plan.items.map(\.relativePath) == ["packs/Z.pack", "packs/a/11.pack", "packs/b/22.pack", "roots/1.root.json", "roots/2.root.json",
                                                    "catalog.json.sig", "root.json", "catalog.json", "timestamp.json"])
        // The timestamp, which names the catalog by hash, is a stage of its own after the catalog's.
        #expect(plan.stages.map { $0.map(\.relativePath) }.suffix(2) == [["catalog.json"], ["timestamp.json"]])
        #expect(plan.items.first { $0.relativePath == "roots/2.root.json" }?.isImmutable == true)
        #expect(plan.items.first { $0.relativePath == "timestamp.json" }?.cacheControl == "public, max-age=60")
    }

    /// Packs (and the immutable histories), then every channel's catalog, then the default
    /// catalog, then the timestamp: no catalog names a file not yet up, and the timestamp names
    /// catalogs already there. A channel's catalog is mutable, never cached for ever.
    @Test func channelCatalogsGoAfterThePacksAndBeforeTheCatalog() throws {
        let dir = try repository()
        try dir.write("channels/beta/catalog.json", Array("{}".utf8))
        try dir.write("channels/beta/history/1.catalog.json", Array("{}".utf8))
        try dir.write("channels/rc/catalog.json", Array("{}".utf8))
        try dir.write("history/1.catalog.json", Array("{}".utf8))
        try dir.write("timestamp.json", Array("{}".utf8))
        let plan = try UploadPlan(directory: dir.path, location: S3Location(bucket: "bucket"))
        #expect(plan.stages.map { $0.map(\.relativePath) } == [
            ["channels/beta/history/1.catalog.json", "history/1.catalog.json", "packs/Z.pack", "packs/a/11.pack", "packs/b/22.pack"],
            ["catalog.json.sig"], ["channels/beta/catalog.json", "channels/rc/catalog.json"], ["catalog.json"], ["timestamp.json"],
        ])
        let beta = try #require(plan.items.first { $0.relativePath == "channels/beta/catalog.json" })
        #expect(!beta.isImmutable && beta.cacheControl == "public, max-age=60" && beta.contentType == "application/json")
        #expect(plan.items.first { $0.relativePath == "history/1.catalog.json" }?.isImmutable == true)
    }

    /// Apple's files keep their names when they change: never immutable, always sent, archives
    /// with the packs and the download manifests that name them after.
    @Test func appleFilesAreRevalidatedAndTheirManifestsGoAfterTheArchives() throws {
        let dir = try repository()
        try dir.write("apple/assets/Levels", [1, 2, 3])
        try dir.write("apple/manifest.json", Array("{}".utf8))
        try dir.write("apple/manifests/ios.json", Array("{}".utf8))
        try dir.write("channels/beta/apple/assets/Levels", [4])
        try dir.write("channels/beta/apple/manifest.json", Array("{}".utf8))
        let plan = try UploadPlan(directory: dir.path, location: S3Location(bucket: "bucket"))
        #expect(plan.stages.map { $0.map(\.relativePath) }.prefix(2) == [
            ["apple/assets/Levels", "channels/beta/apple/assets/Levels", "packs/Z.pack", "packs/a/11.pack", "packs/b/22.pack"],
            ["apple/manifest.json", "apple/manifests/ios.json", "catalog.json.sig", "channels/beta/apple/manifest.json"],
        ])
        for item in plan.items where item.relativePath.contains("apple/") {
            #expect(!item.isImmutable && item.cacheControl == "public, no-cache", "\(item.relativePath)")
            #expect(item.contentType == (item.relativePath.hasSuffix(".json") ? "application/json" : "application/octet-stream"))
        }
    }

    @Test func emptyPrefixUsesRelativePathsAsKeys() throws {
        let dir = try repository()
        let plan = try UploadPlan(directory: dir.path, location: S3Location(parsing: "s3://bucket"))
        #expect(plan.items.last?.key == "catalog.json")
        #expect(plan.items.first?.key == "packs/Z.pack")
    }

    @Test func refusesSymlinksToFilesAndFolders() throws {
        let outside = try TemporaryDirectory("outside")
        let secret = try outside.write("secret", [1, 2, 3])
        let dir = try repository()
        try FileManager.default.createSymbolicLink(atPath: dir.file("packs/leak.pack"), withDestinationPath: secret)
        #expect { try UploadPlan(directory: dir.path, location: S3Location(bucket: "bucket")) } throws: { error in
            "\(error)".contains("packs/leak.pack") && "\(error)".contains("symbolic link")
        }
        let other = try repository()
        try FileManager.default.createSymbolicLink(atPath: other.file("packs/more"), withDestinationPath: outside.path)
        #expect { try UploadPlan(directory: other.path, location: S3Location(bucket: "bucket")) } throws: { error in
            "\(error)".contains("packs/more") && "\(error)".contains("symbolic link")
        }
    }

    @Test func refusesAFolderWithoutCatalog() throws {
        let dir = try TemporaryDirectory("nocatalog")
        try dir.write("packs/a.pack", [1])
        #expect { try UploadPlan(directory: dir.path, location: S3Location(bucket: "bucket")) } throws: { error in
            "\(error)".contains("catalog.json")
        }
        #expect(throws: UploadError.self) { try UploadPlan(directory: dir.file("missing"), location: S3Location(bucket: "bucket")) }
    }

    @Test func destinationsAreValidated() throws {
        #expect(try S3Location(parsing: "s3://my-bucket/a//b/").prefix == "a/b")
        #expect(throws: UploadError.self) { try S3Location(parsing: "https://bucket/x") }
        #expect(throws: UploadError.self) { try S3Location(parsing: "s3://") }
        #expect(throws: UploadError.self) { try S3Location(parsing: "s3://Upper_Case/x") }
        #expect(throws: UploadError.self) { try S3Location(parsing: "s3://bucket/../x") }
    }
}
