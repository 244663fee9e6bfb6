import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Device variants store what they share once, served by nginx: a group of four variants and a
/// default whose large `shared.bin` is the same in all five. The variants' pack files hold only
/// their own frames and take the shared ones from the default's file (pack format version 4), so
/// the repository holds about the shared file once plus each variant's own; each device still
/// installs its variant byte for byte, fetching about its variant's size, from its variant's file
/// and the default's; a switch and a progressive read take the shared frames from the default's
/// file; a variant whose base is not the default's file is refused.
@Suite(.serialized) struct DeviceVariantStorageTests {
    static let gib: UInt64 = 1 << 30
    static let shared = patternBytes(2_000_000, seed: 70)
    static let names = ["default", "astc", "astc-6GiB", "bc7-x86_64", "etc2"]
    static func texture(_ variant: String) -> [UInt8] { patternBytes(200_000, seed: 71 + UInt64(names.firstIndex(of: variant)!)) }
    static var variants: [(String, [String: Any])] { [
        ("astc", ["textureFormat": "astc"]), ("astc-6GiB", ["textureFormat": "astc", "minimumMemory": "6GiB"]),
        ("bc7-x86_64", ["textureFormat": "bc7", "architectures": ["x86_64"]]), ("etc2", ["textureFormat": "etc2"]),
    ] }

    struct Hosted {
        let repo: TestRepository
        let nginx: NginxServer

        init(defaultTexture: [UInt8] = texture("default")) throws {
            repo = try TestRepository("variant-storage")
            try Self.put(repo, defaultTexture: defaultTexture)
            try repo.publish()
            nginx = try NginxServer(root: repo.path, accessLog: true)
        }

        static func put(_ repo: TestRepository, defaultTexture: [UInt8]) throws {
            try repo.put("Tex", files: ["shared.bin": shared, "tex.bin": defaultTexture])
            for (name, variant) in variants {
                try repo.put("Tex", variant: variant, variantName: name, files: ["shared.bin": shared, "tex.bin": texture(name)])
            }
        }

        /// Body bytes nginx sent for pack files since the log had `since` lines, by path.
        func packBytes(since: Int) -> [String: UInt64] { nginx.bodyBytes(since: since, under: "/packs/") }

        func manager(_ root: String, formats: [TextureFormat], memory: UInt64 = 4 * gib, architecture: String = "arm64") throws -> AssetPackManager {
            try repo.manager(root: repo.dir.file(root), urls: [nginx.url("/")]) {
                $0.textureFormats = formats
                $0.memory = memory
                $0.architecture = architecture
            }
        }
    }

    /// The pack files in the repository's `packs/Tex/` folder and their sizes.
    static func storedBytes(_ repo: TestRepository) throws -> UInt64 {
        let folder = "\(repo.path)/packs/Tex"
        return try FileManager.default.contentsOfDirectory(atPath: folder).reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: "\(folder)/\($1)")[.size] as? NSNumber)?.uint64Value ?? 0)
        }
    }

    @Test func theSharedFileIsStoredOnceAndEachDeviceGetsItsVariant() async throws {
        let hosted = try Hosted()
        let entry = try #require(try hosted.repo.catalog().pack(withID: "Tex"))
        let variants = try #require(entry.variants)
        #expect(variants.count == 4)
        // The repository: the 2 MB shared file once (in the default's file), and each file's own
        // 200 kB texture; not the shared file five times (10 MB).
        let stored = try Self.storedBytes(hosted.repo)
        let own = UInt64(Self.texture("default").count)
        let once = UInt64(Self.shared.count) + 5 * own
        #expect(stored >= once && stored <= once + 5 * 16_384, "\(stored) bytes stored for \(once) bytes of distinct content")
        #expect(stored == entry.size + variants.reduce(0) { $0 + $1.size })
        for v in variants {
            #expect(v.base == entry.path, "\(v.conditions.name)")
            #expect(v.size < own + 16_384, "\(v.conditions.name): \(v.size) bytes")
            // What a device fetches is the variant's whole content: its file and the shared frames.
            #expect(v.downloadSize >= UInt64(Self.shared.count) + own && v.downloadSize <= v.size + entry.size, "\(v.conditions.name)")
        }
        let devices: [(String, [TextureFormat], UInt64, String)] = [
            ("astc-6GiB", [.astc], 8 * Self.gib, "arm64"), ("astc", [.astc], 4 * Self.gib, "arm64"),
            ("bc7-x86_64", [.bc7], 16 * Self.gib, "x86_64"), ("etc2", [.etc2], 2 * Self.gib, "arm64"),
            ("default", [.pvrtc], 2 * Self.gib, "arm64"),
        ]
        for (k, (name, formats, memory, architecture)) in devices.enumerated() {
            let before = hosted.nginx.accessLog().count
            let manager = try hosted.manager("root-\(k)", formats: formats, memory: memory, architecture: architecture)
            let pack = try await manager.catalogPack(withID: "Tex")
            #expect(pack.variant?.name == name)
            try await manager.ensureLocalAvailability(of: pack)
            #expect(try manager.contents(at: "tex.bin") == Data(Self.texture(name)), "\(name)")
            #expect(try manager.contents(at: "shared.bin") == Data(Self.shared), "\(name)")
            let sent = hosted.packBytes(since: before)
            let chosen = name == "default" ? entry.path : try #require(variants.first { $0.conditions.name == name }?.path)
            #expect(Set(sent.keys) == Set([chosen, entry.path]), "\(name): \(sent)")
            // The shared frames came from the default's file; about the variant's size in all.
            let total = sent.values.reduce(0, +)
            #expect(total >= UInt64(Self.shared.count) + own && total <= pack.downloadSize + 64 * 1024, "\(name): \(total) bytes, \(sent)")
            if name != "default" { #expect((sent[entry.path] ?? 0) >= UInt64(Self.shared.count), "\(name): \(sent)") }
        }
    }

    @Test func aSwitchAndAProgressiveReadTakeTheSharedFramesFromTheDefaultsFile() async throws {
        let hosted = try Hosted()
        let entry = try #require(try hosted.repo.catalog().pack(withID: "Tex"))
        let bc7 = try #require(entry.variants?.first { $0.conditions.name == "bc7-x86_64" })
        // A progressive read of the shared file, the pack not installed: the variant's index from
        // its file, the shared file's frames from the default's file, and about its size.
        var before = hosted.nginx.accessLog().count
        let reader = try hosted.manager("reader", formats: [.bc7], memory: 8 * Self.gib, architecture: "x86_64")
        let data = try await reader.contents(at: "shared.bin", searchingInAssetPackWithID: "Tex", access: .progressive)
        #expect(data == Data(Self.shared))
        var sent = hosted.packBytes(since: before)
        #expect(Set(sent.keys) == [bc7.path, entry.path], "\(sent)")
        #expect(sent[bc7.path] == bc7.index.length, "\(sent)")
        #expect(sent.values.reduce(0, +) < UInt64(Self.shared.count) + 100_000, "\(sent)")
        // Installed as ASTC, then switched to BC7 by an update: only BC7's own texture moves.
        do {
            let manager = try hosted.manager("root", formats: [.astc])
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Tex"))
        }
        before = hosted.nginx.accessLog().count
        let manager = try hosted.manager("root", formats: [.bc7], memory: 8 * Self.gib, architecture: "x86_64")
        #expect(try await manager.installUpdates().updated.map(\.id) == ["Tex"])
        #expect(try manager.contents(at: "tex.bin") == Data(Self.texture("bc7-x86_64")))
        #expect(try manager.contents(at: "shared.bin") == Data(Self.shared))
        sent = hosted.packBytes(since: before)
        #expect(Array(sent.keys) == [bc7.path], "\(sent)")
        #expect(sent.values.reduce(0, +) < 200_000 + 50_000, "\(sent)")
    }

    @Test func aVariantWhoseBaseIsNotTheDefaultsFileIsRefused() async throws {
        let hosted = try Hosted()
        let first = try #require(try hosted.repo.catalog().pack(withID: "Tex"))
        let oldASTC = try #require(first.variants?.first { $0.conditions.name == "astc" })
        // The default changes: every variant's file is made again against the new default, and
        // the old ones stay retired in the repository.
        try Hosted.put(hosted.repo, defaultTexture: patternBytes(200_000, seed: 99))
        var catalog = try hosted.repo.publish()
        var entry = try #require(catalog.pack(withID: "Tex"))
        #expect(entry.variants?.first { $0.conditions.name == "astc" }?.digest != oldASTC.digest)
        #expect(catalog.retired.contains { $0.path == first.path })
        #expect(catalog.retired.contains { $0.path == oldASTC.path && $0.base == first.path })
        // A signed catalog that lists the old ASTC file (its index pins the old default) under
        // the new default: a client refuses it before fetching a frame, naming both digests.
        var forged = oldASTC
        forged.base = entry.path
        entry.variants = entry.variants!.map { $0.conditions.name == "astc" ? forged : $0 }
        catalog.packs = catalog.packs.map { $0.id == "Tex" ? entry : $0 }
        catalog.version += 1
        _ = try hosted.repo.place("catalog.json", try hosted.repo.key.signedCatalog(catalog))
        let before = hosted.nginx.accessLog().count
        let manager = try hosted.manager("root", formats: [.astc])
        await #expect {
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Tex"))
        } throws: { error in
            let text = "\(error)"
            return text.contains(first.sha256.hex) && text.contains(entry.sha256.hex) && text.contains("the base is not that file")
        }
        // Its index was read; no frame of either file was.
        let sent = hosted.packBytes(since: before)
        #expect(Array(sent.keys) == [oldASTC.path], "\(sent)")
        #expect(sent.values.reduce(0, +) == oldASTC.index.length, "\(sent)")
    }
}
