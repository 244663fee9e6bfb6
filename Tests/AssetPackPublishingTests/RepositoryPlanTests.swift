import AssetPackFormat
@testable import AssetPackPublishing
import Testing

/// `RepositoryPlan` on its own: a pure function of the old catalog and the packs just built.
@Suite struct RepositoryPlanTests {
    /// A built pack whose content is `content` (its digest and content-addressed path follow).
    func built(_ id: String, _ content: String, version: Int = 0) -> CatalogPack {
        let digest = SHA256Digest.hash(Array("\(id)/\(content)".utf8))
        return CatalogPack(id: id, version: version, downloadPolicy: .onDemand, language: nil, platforms: [.iOS],
                           downloadSize: 100, installSize: 200, path: "packs/\(id)/\(digest.hex).pack", size: 100,
                           sha256: digest, digest: digest, index: CatalogIndexLocation(offset: 80, length: 20, sha256: digest),
                           chunking: .default)
    }

    /// The catalog a plan describes, as the publisher writes it.
    func catalog(_ plan: RepositoryPlan, version: Int) -> Catalog {
        Catalog(version: version, published: .init(timeIntervalSince1970: 0), expires: .init(timeIntervalSince1970: 1),
                packs: plan.packs, retired: plan.retired, removed: plan.removed)
    }

    @Test func aFirstPublishAddsEveryPackAtVersionOneInIDOrder() {
        let plan = RepositoryPlan(old: nil, built: [built("Beta", "b"), built("Alpha", "a")], catalogVersion: 1, keep: 2)
        #expect(plan.packs.map(\.id) == ["Alpha", "Beta"])
        #expect(plan.packs.map(\.version) == [1, 1])
        #expect(plan.changes == [PackChange(id: "Alpha", kind: .added, previousVersion: nil, version: 1),
                                 PackChange(id: "Beta", kind: .added, previousVersion: nil, version: 1)])
        #expect(plan.retired.isEmpty && plan.removed.isEmpty && plan.deletions.isEmpty)
    }

    @Test func anUnchangedPackKeepsItsEntryAndVersion() {
        let first = RepositoryPlan(old: nil, built: [built("Alpha", "a")], catalogVersion: 1, keep: 2)
        let old = catalog(first, version: 1)
        let plan = RepositoryPlan(old: old, built: [built("Alpha", "a", version: 99)], catalogVersion: 2, keep: 2)
        #expect(plan.packs == old.packs)
        #expect(plan.changes == [PackChange(id: "Alpha", kind: .unchanged, previousVersion: 1, version: 1)])
        #expect(plan.retired.isEmpty && plan.deletions.isEmpty)
    }

    @Test func anUpdateRetiresThePreviousFileWhileKeepAllowsIt() {
        let v1 = built("Alpha", "a1"), v2 = built("Alpha", "a2")
        let old = catalog(RepositoryPlan(old: nil, built: [v1], catalogVersion: 1, keep: 2), version: 1)
        let plan = RepositoryPlan(old: old, built: [v2], catalogVersion: 2, keep: 2)
        #expect(plan.packs.map(\.version) == [2])
        #expect(plan.packs.first?.path == v2.path)
        #expect(plan.changes == [PackChange(id: "Alpha", kind: .updated, previousVersion: 1, version: 2)])
        #expect(plan.retired == [RetiredPackFile(id: "Alpha", version: 1, path: v1.path, size: v1.size, sha256: v1.sha256, retiredIn: 2)])
        #expect(plan.deletions.isEmpty)

        // keep 1: no earlier file stays; the previous one is deleted at once.
        let strict = RepositoryPlan(old: old, built: [v2], catalogVersion: 2, keep: 1)
        #expect(strict.retired.isEmpty)
        #expect(strict.deletions == [v1.path])
    }

    @Test func aBaseStaysWhileAKeptVariantFileTakesFramesFromIt() {
        let current = built("Alpha", "a5", version: 5)
        let base = built("Alpha", "a1"), variant = built("Alpha", "v3"), other = built("Alpha", "a2")
        var file = RetiredPackFile(id: "Alpha", version: 3, path: variant.path, size: 50, sha256: variant.sha256, retiredIn: 4,
                                   variant: VariantConditions(textureFormat: "astc"))
        file.base = base.path
        let old = Catalog(version: 4, published: .init(timeIntervalSince1970: 0), expires: .init(timeIntervalSince1970: 1), packs: [current],
                          retired: [RetiredPackFile(id: "Alpha", version: 1, path: base.path, size: 100, sha256: base.sha256, retiredIn: 2),
                                    RetiredPackFile(id: "Alpha", version: 2, path: other.path, size: 100, sha256: other.sha256, retiredIn: 3), file],
                          removed: [])
        // keep 2 keeps version 3 alone; version 1's file stays as the base of version 3's variant file, version 2's goes.
        let plan = RepositoryPlan(old: old, built: [current], catalogVersion: 5, keep: 2)
        #expect(Set(plan.retired.map(\.path)) == [base.path, variant.path])
        #expect(plan.deletions == [other.path])
        #expect(RepositoryCatalogs.referencedPaths(catalog(plan, version: 5)).contains(base.path))
    }

    @Test func everyBaseOfAKeptVariantFileStaysWhileItDoes() {
        // Version 3's astc-8GiB file took frames from the default's file of version 1 and from
        // the astc file of version 2 (pack format 5); keep 2 keeps version 3 alone otherwise.
        let current = built("Alpha", "a5", version: 5)
        let base = built("Alpha", "a1"), astc = built("Alpha", "v2"), big = built("Alpha", "v3"), other = built("Alpha", "a2")
        var bigFile = RetiredPackFile(id: "Alpha", version: 3, path: big.path, size: 50, sha256: big.sha256, retiredIn: 4,
                                      variant: VariantConditions(textureFormat: "astc", minimumMemory: 8 << 30))
        bigFile.bases = [base.path, astc.path]
        let old = Catalog(version: 4, published: .init(timeIntervalSince1970: 0), expires: .init(timeIntervalSince1970: 1), packs: [current],
                          retired: [RetiredPackFile(id: "Alpha", version: 1, path: base.path, size: 100, sha256: base.sha256, retiredIn: 2),
                                    RetiredPackFile(id: "Alpha", version: 2, path: other.path, size: 100, sha256: other.sha256, retiredIn: 3),
                                    RetiredPackFile(id: "Alpha", version: 2, path: astc.path, size: 60, sha256: astc.sha256, retiredIn: 3,
                                                    variant: VariantConditions(textureFormat: "astc")),
                                    bigFile],
                          removed: [])
        let plan = RepositoryPlan(old: old, built: [current], catalogVersion: 5, keep: 2)
        #expect(Set(plan.retired.map(\.path)) == [base.path, astc.path, big.path])
        #expect(plan.deletions == [other.path])
        let referenced = RepositoryCatalogs.referencedPaths(catalog(plan, version: 5))
        #expect(referenced.contains(base.path) && referenced.contains(astc.path))
    }

    @Test func keepBoundsHowManyEarlierFilesStay() {
        let versions = (1...4).map { built("Alpha", "a\($0)") }
        var old: Catalog?
        var plan = RepositoryPlan(old: nil, built: [], catalogVersion: 0, keep: 3)
        for (i, pack) in versions.enumerated() {
            plan = RepositoryPlan(old: old, built: [pack], catalogVersion: i + 1, keep: 3)
            old = catalog(plan, version: i + 1)
        }
        // Version 4 is current; 3 and 2 stay; 1 was deleted by the fourth publish.
        #expect(plan.packs.map(\.version) == [4])
        #expect(plan.retired.map(\.version) == [2, 3])
        #expect(plan.retired.map(\.path) == [versions[1].path, versions[2].path])
        #expect(plan.deletions == [versions[0].path])
    }

    @Test func aPackThatLeavesIsRemovedAndItsFileOutlivesItByKeepMinusOnePublishes() {
        let alpha = built("Alpha", "a"), beta = built("Beta", "b")
        let first = catalog(RepositoryPlan(old: nil, built: [alpha, beta], catalogVersion: 1, keep: 2), version: 1)
        let second = RepositoryPlan(old: first, built: [alpha], catalogVersion: 2, keep: 2)
        #expect(second.packs.map(\.id) == ["Alpha"])
        #expect(second.changes == [PackChange(id: "Alpha", kind: .unchanged, previousVersion: 1, version: 1),
                                   PackChange(id: "Beta", kind: .removed, previousVersion: 1, version: nil)])
        #expect(second.removed == [RemovedPack(id: "Beta", version: 1, removedIn: 2)])
        #expect(second.retired.map(\.path) == [beta.path])
        #expect(second.deletions.isEmpty)

        // One publish later the file goes; the removal stays on record.
        let third = RepositoryPlan(old: catalog(second, version: 2), built: [alpha], catalogVersion: 3, keep: 2)
        #expect(third.retired.isEmpty)
        #expect(third.deletions == [beta.path])
        #expect(third.removed == [RemovedPack(id: "Beta", version: 1, removedIn: 2)])
        #expect(third.changes.map(\.kind) == [.unchanged])
    }

    @Test func aPackThatComesBackContinuesItsVersions() {
        let v1 = built("Beta", "b1"), v2 = built("Beta", "b2"), v3 = built("Beta", "b3")
        var old = catalog(RepositoryPlan(old: nil, built: [v1], catalogVersion: 1, keep: 2), version: 1)
        old = catalog(RepositoryPlan(old: old, built: [v2], catalogVersion: 2, keep: 2), version: 2)
        old = catalog(RepositoryPlan(old: old, built: [], catalogVersion: 3, keep: 2), version: 3)
        #expect(old.packs.isEmpty && old.removed == [RemovedPack(id: "Beta", version: 2, removedIn: 3)])

        let back = RepositoryPlan(old: old, built: [v3], catalogVersion: 4, keep: 2)
        #expect(back.packs.map(\.version) == [3])
        #expect(back.changes == [PackChange(id: "Beta", kind: .added, previousVersion: nil, version: 3)])
        #expect(back.removed.isEmpty)
    }

    @Test func contentChangedBackMakesTheRetiredFileCurrentAgain() {
        let a = built("Alpha", "a"), b = built("Alpha", "b")
        var old = catalog(RepositoryPlan(old: nil, built: [a], catalogVersion: 1, keep: 3), version: 1)
        old = catalog(RepositoryPlan(old: old, built: [b], catalogVersion: 2, keep: 3), version: 2)
        #expect(old.retired.map(\.path) == [a.path])

        let plan = RepositoryPlan(old: old, built: [a], catalogVersion: 3, keep: 3)
        #expect(plan.packs.map(\.version) == [3])
        #expect(plan.packs.first?.path == a.path)
        // a's file is current again: neither retired nor deleted; b's is retired.
        #expect(plan.retired.map(\.path) == [b.path])
        #expect(plan.deletions.isEmpty)
    }
}
