import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Frames two device variants share and their default lacks are stored once too, served by
/// nginx: a BC7 default, and `astc` and `astc-8GiB` variants that carry the same 1.5 MB of ASTC
/// textures (`astc-8GiB` adds a high-resolution file). `astc`'s file stores the ASTC frames and
/// takes `shared.bin` from the default's (pack format 4); `astc-8GiB`'s stores only its extra file
/// and takes the ASTC frames from `astc`'s file and `shared.bin` from the default's (pack format
/// 5). Each device installs its variant byte for byte from those files, and a switch between the
/// two by update fetches about what differs: the extra file one way, nothing but the index the
/// other.
@Suite(.serialized) struct VariantSharedFramesTests {
    static let gib: UInt64 = 1 << 30
    static let shared = patternBytes(500_000, seed: 90)
    static let bc7 = patternBytes(300_000, seed: 91)
    static let astc = patternBytes(1_500_000, seed: 92)
    static let hires = patternBytes(200_000, seed: 93)

    struct Hosted {
        let repo: TestRepository
        let nginx: NginxServer

        init() throws {
            repo = try TestRepository("variant-shared")
            try repo.put("Tex", files: ["shared.bin": shared, "tex.bin": bc7])
            try repo.put("Tex", variant: ["textureFormat": "astc"], variantName: "astc", files: ["shared.bin": shared, "tex.bin": astc])
            try repo.put("Tex", variant: ["textureFormat": "astc", "minimumMemory": "8GiB"], variantName: "astc-8GiB",
                         files: ["shared.bin": shared, "tex.bin": astc, "hires.bin": hires])
            try repo.publish()
            nginx = try NginxServer(root: repo.path, accessLog: true)
        }

        /// Body bytes nginx sent for pack files since the log had `since` lines, by path.
        func packBytes(since: Int) -> [String: UInt64] { nginx.bodyBytes(since: since, under: "/packs/") }

        func manager(_ root: String, memory: UInt64) throws -> AssetPackManager {
            try repo.manager(root: repo.dir.file(root), urls: [nginx.url("/")]) {
                $0.textureFormats = [.astc]
                $0.memory = memory
                $0.architecture = "arm64"
            }
        }
    }

    @Test func framesTwoVariantsShareAreStoredOnceAndFetchedFromTheFileThatHoldsThem() async throws {
        let hosted = try Hosted()
        let entry = try #require(try hosted.repo.catalog().pack(withID: "Tex"))
        let small = try #require(entry.variants?.first { $0.conditions.name == "astc" })
        let big = try #require(entry.variants?.first { $0.conditions.name == "astc-8GiB" })
        #expect(small.base == entry.path && small.bases == nil)
        #expect(big.base == nil && big.bases == [entry.path, small.path])
        #expect(try PackReader(path: "\(hosted.repo.path)/\(big.path)").index.formatVersion == 5)
        // On disk: each distinct file once (the ASTC textures in astc's file alone), not the
        // 1.5 MB of ASTC textures twice.
        let folder = "\(hosted.repo.path)/packs/Tex"
        let stored = try FileManager.default.contentsOfDirectory(atPath: folder).reduce(UInt64(0)) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: "\(folder)/\($1)")[.size] as? NSNumber)?.uint64Value ?? 0)
        }
        let distinct = UInt64(Self.shared.count + Self.bc7.count + Self.astc.count + Self.hires.count)
        #expect(stored >= distinct && stored <= distinct + 3 * 16_384, "\(stored) bytes stored for \(distinct) bytes of distinct content")
        #expect(big.size < UInt64(Self.hires.count) + 16_384, "\(big.size)")
        #expect(big.downloadSize >= distinct - UInt64(Self.bc7.count), "\(big.downloadSize)")

        // A device with 16 GiB installs astc-8GiB: its own frames from its file, the ASTC ones
        // from astc's, the shared ones from the default's, each once.
        var before = hosted.nginx.accessLog().count
        let large = try hosted.manager("large", memory: 16 * Self.gib)
        let pack = try await large.catalogPack(withID: "Tex")
        #expect(pack.variant?.name == "astc-8GiB")
        try await large.ensureLocalAvailability(of: pack)
        #expect(try large.contents(at: "tex.bin") == Data(Self.astc))
        #expect(try large.contents(at: "hires.bin") == Data(Self.hires))
        #expect(try large.contents(at: "shared.bin") == Data(Self.shared))
        var sent = hosted.packBytes(since: before)
        #expect(Set(sent.keys) == [big.path, small.path, entry.path], "\(sent)")
        #expect((sent[small.path] ?? 0) >= UInt64(Self.astc.count) && (sent[small.path] ?? 0) < UInt64(Self.astc.count) + 70_000, "\(sent)")
        #expect((sent[entry.path] ?? 0) >= UInt64(Self.shared.count) && (sent[entry.path] ?? 0) < UInt64(Self.shared.count) + 70_000, "\(sent)")
        #expect(sent.values.reduce(0, +) <= big.downloadSize + 64 * 1024, "\(sent)")

        // A device with 4 GiB installs astc, from astc's file and the default's.
        // (One manager holds a root at a time: each step's manager ends with its scope.)
        before = hosted.nginx.accessLog().count
        do {
            let device = try hosted.manager("device", memory: 4 * Self.gib)
            try await device.ensureLocalAvailability(of: device.catalogPack(withID: "Tex"))
            #expect(try device.contents(at: "tex.bin") == Data(Self.astc))
            #expect(throws: (any Error).self) { try device.contents(at: "hires.bin") }
        }
        sent = hosted.packBytes(since: before)
        #expect(Set(sent.keys) == [small.path, entry.path], "\(sent)")

        // It gains memory: the switch to astc-8GiB fetches the high-resolution file and the index,
        // not the ASTC textures it holds already.
        before = hosted.nginx.accessLog().count
        do {
            let grown = try hosted.manager("device", memory: 16 * Self.gib)
            #expect(try await grown.installUpdates().updated.map(\.id) == ["Tex"])
            #expect(try grown.contents(at: "hires.bin") == Data(Self.hires))
            #expect(try grown.contents(at: "tex.bin") == Data(Self.astc))
        }
        sent = hosted.packBytes(since: before)
        #expect(Array(sent.keys) == [big.path], "\(sent)")
        #expect(sent.values.reduce(0, +) < UInt64(Self.hires.count) + 20_000, "\(sent)")

        // And back: every chunk of astc is installed already; only its index moves.
        before = hosted.nginx.accessLog().count
        do {
            let shrunk = try hosted.manager("device", memory: 4 * Self.gib)
            #expect(try await shrunk.installUpdates().updated.map(\.id) == ["Tex"])
            #expect(try shrunk.contents(at: "tex.bin") == Data(Self.astc))
            #expect(throws: (any Error).self) { try shrunk.contents(at: "hires.bin") }
        }
        sent = hosted.packBytes(since: before)
        #expect(sent.keys.allSatisfy { $0 == small.path } && sent.values.reduce(0, +) == small.index.length, "\(sent)")
    }

    @Test func aProgressiveReadTakesTheFramesFromTheEarlierVariantsFile() async throws {
        let hosted = try Hosted()
        let entry = try #require(try hosted.repo.catalog().pack(withID: "Tex"))
        let small = try #require(entry.variants?.first { $0.conditions.name == "astc" })
        let big = try #require(entry.variants?.first { $0.conditions.name == "astc-8GiB" })
        let before = hosted.nginx.accessLog().count
        let reader = try hosted.manager("reader", memory: 16 * Self.gib)
        let data = try await reader.contents(at: "tex.bin", searchingInAssetPackWithID: "Tex", access: .progressive)
        #expect(data == Data(Self.astc))
        let sent = hosted.packBytes(since: before)
        #expect(Set(sent.keys) == [big.path, small.path], "\(sent)")
        #expect(sent[big.path] == big.index.length, "\(sent)")
        #expect(sent.values.reduce(0, +) < UInt64(Self.astc.count) + 100_000, "\(sent)")
    }

    @Test func aVariantWhoseBasesTheCatalogNamesOutOfOrderIsRefused() async throws {
        let hosted = try Hosted()
        var catalog = try hosted.repo.catalog()
        var entry = try #require(catalog.pack(withID: "Tex"))
        // The two bases swapped: each is a file of the group, but not the one the index pins in
        // that place. A client refuses before fetching a frame.
        entry.variants = entry.variants!.map { v in
            var v = v
            if let bases = v.bases { v.bases = bases.reversed() }
            return v
        }
        catalog.packs = catalog.packs.map { $0.id == "Tex" ? entry : $0 }
        catalog.version += 1
        _ = try hosted.repo.place("catalog.json", try hosted.repo.key.signedCatalog(catalog))
        let big = try #require(entry.variants?.first { $0.conditions.name == "astc-8GiB" })
        let before = hosted.nginx.accessLog().count
        let manager = try hosted.manager("root", memory: 16 * Self.gib)
        await #expect {
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Tex"))
        } throws: { "\($0)".contains("the base is not that file") }
        let sent = hosted.packBytes(since: before)
        #expect(Array(sent.keys) == [big.path] && sent.values.reduce(0, +) == big.index.length, "\(sent)")
    }
}
