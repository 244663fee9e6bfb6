@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `status(relativeTo:)` and `localStatus` as a pack goes from available to installed, out of
/// date, updated and obsolete.
@Suite struct StatusLifecycleTests {
    @Test func statusFollowsThePackThroughPublishes() async throws {
        let repo = try TestRepository()
        try repo.put("Maps", files: ["maps/a.txt": text("map A v1\n", repeating: 100), "maps/b.bin": patternBytes(50_000, seed: 3)])
        try repo.put("Other", files: ["other.txt": text("other\n")])
        try repo.publish()
        let server = try repo.serve()
        let root = repo.dir.file("root")

        let v1: AssetPack
        do {
            let first = try repo.manager(root: root, server: server)
            v1 = try await first.catalogPack(withID: "Maps")
            #expect(v1.version == 1)
            #expect(try await first.status(relativeTo: v1) == .downloadAvailable)
            #expect(await first.localStatus(ofAssetPackWithID: "Maps") == .downloadAvailable)
            try await first.ensureLocalAvailability(of: v1)
            #expect(try await first.status(relativeTo: v1) == [.downloaded, .upToDate])
            #expect(await first.localStatus(ofAssetPackWithID: "Maps") == [.downloaded, .upToDate])
        }

        // A new version is published: a manager that reads the new catalog sees the update.
        try repo.put("Maps", files: ["maps/a.txt": text("map A v2\n", repeating: 100), "maps/b.bin": patternBytes(50_000, seed: 3)])
        try repo.publish()
        do {
            let second = try repo.manager(root: root, server: server)
            let v2 = try await second.catalogPack(withID: "Maps")
            #expect(v2.version == 2)
            #expect(await second.localStatus(ofAssetPackWithID: "Maps") == [.downloaded, .updateAvailable, .outOfDate])
            #expect(try await second.status(relativeTo: v2) == [.downloaded, .updateAvailable, .outOfDate])
            #expect(try await second.status(relativeTo: v1) == [.downloaded, .upToDate])
            // Without requireLatestVersion an installed pack is good enough; with it, it updates.
            try await second.ensureLocalAvailability(of: v2)
            #expect(try second.contents(at: "maps/a.txt") == Data(text("map A v1\n", repeating: 100)))
            try await second.ensureLocalAvailability(of: v2, requireLatestVersion: true)
            #expect(try second.contents(at: "maps/a.txt") == Data(text("map A v2\n", repeating: 100)))
            #expect(await second.localStatus(ofAssetPackWithID: "Maps") == [.downloaded, .upToDate])
        }

        // The pack is dropped from the catalog: installed but obsolete.
        repo.drop("Maps")
        try repo.publish()
        let third = try repo.manager(root: root, server: server)
        // localStatus never fetches (as Apple's): it goes by the catalog last accepted until one
        // is fetched again.
        #expect(await third.localStatus(ofAssetPackWithID: "Maps") == [.downloaded, .upToDate])
        _ = try await third.catalogPacks
        #expect(await third.localStatus(ofAssetPackWithID: "Maps") == [.downloaded, .obsolete])
        let notFound = await managerError { _ = try await third.catalogPack(withID: "Maps") }
        #expect(notFound.map { if case .assetPackNotFound = $0 { true } else { false } } == true)
        // Reading it still works until it is removed.
        #expect(try third.contents(at: "maps/b.bin") == Data(patternBytes(50_000, seed: 3)))
        try await third.remove(assetPackWithID: "Maps")
        // Known neither to the catalog nor to the device: no status (Apple's does not throw).
        #expect(await third.localStatus(ofAssetPackWithID: "Maps") == [])
    }

    @Test func statusUpdatesForSeveralPacks() async throws {
        let repo = try TestRepository()
        for i in 1...3 { try repo.put("Pack\(i)", files: ["p\(i).bin": patternBytes(200_000, seed: UInt64(i))]) }
        try repo.publish()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        let all = UpdateCollector(manager.statusUpdates)
        let packs = try await Set(manager.catalogPacks)
        let one = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Pack1"))
        try await manager.ensureLocalAvailability(of: packs)
        #expect(await one.ended().map(\.kind).last == "finished")
        #expect(await one.ended().allSatisfy { $0.assetPack.id == "Pack1" })
        let updates = await all.stop()
        for i in 1...3 {
            let kinds = updates.filter { $0.assetPack.id == "Pack\(i)" }.map(\.kind)
            #expect(kinds.first == "began" && kinds.last == "finished" && kinds.contains("downloading"), "Pack\(i): \(kinds)")
        }
        for pack in packs { #expect(try await manager.status(relativeTo: pack) == [.downloaded, .upToDate]) }
    }
}
