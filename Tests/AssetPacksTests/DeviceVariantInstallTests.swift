import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Device variants end to end, served by nginx: a group of four variants and a default, and
/// clients of different capabilities. Each installs and reads its own variant's bytes and
/// fetches about its variant's size from the server (counted in nginx's access log), not the
/// group's; a capability that changes switches the variant at the next update, fetching only
/// what the variants do not share.
@Suite(.serialized) struct DeviceVariantInstallTests {
    static let gib: UInt64 = 1 << 30
    static let shared = patternBytes(600_000, seed: 50)
    static let seeds: [String: UInt64] = ["default": 60, "astc": 61, "astc-6GiB": 62, "bc7-x86_64": 63, "etc2": 64]
    static func texture(_ variant: String) -> [UInt8] { patternBytes(500_000, seed: seeds[variant]!) }

    struct Hosted {
        let repo: TestRepository
        let nginx: NginxServer

        init() throws {
            repo = try TestRepository("variants")
            try repo.put("Tex", files: ["shared.json": shared, "tex.bin": texture("default")])
            let variants: [(String, [String: Any])] = [
                ("astc", ["textureFormat": "astc"]), ("astc-6GiB", ["textureFormat": "astc", "minimumMemory": "6GiB"]),
                ("bc7-x86_64", ["textureFormat": "bc7", "architectures": ["x86_64"]]), ("etc2", ["textureFormat": "etc2"]),
            ]
            for (name, variant) in variants {
                try repo.put("Tex", variant: variant, variantName: name, files: ["shared.json": shared, "tex.bin": texture(name)])
            }
            try repo.publish()
            nginx = try NginxServer(root: repo.path, accessLog: true)
        }

        /// Body bytes nginx sent for pack files since the log had `since` lines, by path.
        func packBytes(since: Int) -> [String: UInt64] { nginx.bodyBytes(since: since, under: "/packs/") }

        func manager(_ root: String, formats: [TextureFormat], memory: UInt64, architecture: String) throws -> AssetPackManager {
            try repo.manager(root: repo.dir.file(root), urls: [nginx.url("/")]) {
                $0.textureFormats = formats
                $0.memory = memory
                $0.architecture = architecture
            }
        }
    }

    struct Device: Sendable, CustomTestStringConvertible {
        var formats: [TextureFormat]; var memory: UInt64; var architecture: String; var expected: String
        var testDescription: String { expected }
    }

    @Test func eachDeviceFetchesAndReadsItsVariantAlone() async throws {
        let hosted = try Hosted()
        let catalog = try hosted.repo.catalog()
        let entry = try #require(catalog.pack(withID: "Tex"))
        let group = entry.variantPaths
        let devices = [
            Device(formats: [.astc, .etc2], memory: 8 * Self.gib, architecture: "arm64", expected: "astc-6GiB"),
            Device(formats: [.astc], memory: 4 * Self.gib, architecture: "arm64", expected: "astc"),
            Device(formats: [.bc7, .dxt], memory: 16 * Self.gib, architecture: "x86_64", expected: "bc7-x86_64"),
            Device(formats: [.etc2], memory: 2 * Self.gib, architecture: "arm64", expected: "etc2"),
            Device(formats: [.pvrtc], memory: 2 * Self.gib, architecture: "arm64", expected: "default"),
        ]
        for (k, device) in devices.enumerated() {
            let before = hosted.nginx.accessLog().count
            let manager = try hosted.manager("root-\(k)", formats: device.formats, memory: device.memory, architecture: device.architecture)
            let pack = try await manager.catalogPack(withID: "Tex")
            #expect(pack.variant?.name == device.expected)
            try await manager.ensureLocalAvailability(of: pack)
            #expect(try manager.contents(at: "tex.bin") == Data(Self.texture(device.expected)), "\(device.expected)")
            #expect(try manager.contents(at: "shared.json") == Data(Self.shared))
            #expect(await manager.installedVariant(ofAssetPackWithID: "Tex") == device.expected)
            // Only the chosen variant's file was asked for (and the default's, which holds the
            // frames the group shares: shared.json), and about its size was sent.
            let chosen = device.expected == "default" ? entry.path : try #require(entry.variants?.first { $0.conditions.name == device.expected }?.path)
            let sent = hosted.packBytes(since: before)
            #expect(Set(sent.keys) == Set([chosen, entry.path]), "\(device.expected): \(sent)")
            let variantSize = UInt64(pack.downloadSize)
            let total = sent.values.reduce(0, +)
            #expect(total >= variantSize * 9 / 10 && total <= variantSize + 64 * 1024, "\(device.expected): \(total) bytes for a \(variantSize)-byte variant")
            #expect(group.count == 5)
        }
    }

    @Test func aChangedCapabilitySwitchesVariantByUpdateFetchingOnlyWhatDiffers() async throws {
        let hosted = try Hosted()
        let entry = try #require(try hosted.repo.catalog().pack(withID: "Tex"))
        do {
            let manager = try hosted.manager("root", formats: [.astc], memory: 4 * Self.gib, architecture: "arm64")
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Tex"))
            #expect(try manager.contents(at: "tex.bin") == Data(Self.texture("astc")))
        }
        // The device now reports more memory: the 6 GiB tier is chosen, and the update that
        // follows switches to it by delta (shared.json is not fetched again).
        let before = hosted.nginx.accessLog().count
        let manager = try hosted.manager("root", formats: [.astc], memory: 8 * Self.gib, architecture: "arm64")
        #expect(await manager.localStatus(ofAssetPackWithID: "Tex").contains(.updateAvailable))
        let result = try await manager.installUpdates()
        #expect(result.updated.map(\.id) == ["Tex"])
        #expect(try manager.contents(at: "tex.bin") == Data(Self.texture("astc-6GiB")))
        #expect(try manager.contents(at: "shared.json") == Data(Self.shared))
        #expect(await manager.installedVariant(ofAssetPackWithID: "Tex") == "astc-6GiB")
        #expect(await manager.localStatus(ofAssetPackWithID: "Tex").contains(.upToDate))
        let target = try #require(entry.variants?.first { $0.conditions.name == "astc-6GiB" })
        let sent = hosted.packBytes(since: before)
        #expect(Array(sent.keys) == [target.path], "\(sent)")
        let total = sent.values.reduce(0, +)
        // The new texture (500 kB of incompressible bytes) and the index; not the 600 kB shared.
        #expect(total >= 500_000 && total < 500_000 + 100_000, "\(total) bytes for a switch whose files differ by 500 kB (the variant is \(target.size))")
        // Nothing changes without a capability change: the next update fetches nothing.
        let after = hosted.nginx.accessLog().count
        #expect(try await manager.installUpdates().updated.isEmpty)
        #expect(hosted.packBytes(since: after).isEmpty)
    }

    @Test func progressiveReadsTakeTheDevicesVariant() async throws {
        let hosted = try Hosted()
        let entry = try #require(try hosted.repo.catalog().pack(withID: "Tex"))
        let bc7 = try #require(entry.variants?.first { $0.conditions.name == "bc7-x86_64" })
        let before = hosted.nginx.accessLog().count
        let manager = try hosted.manager("root", formats: [.bc7], memory: 8 * Self.gib, architecture: "x86_64")
        // A file of a pack not installed, read ahead of its download: the BC7 variant's bytes,
        // from its file alone.
        let data = try await manager.contents(at: "tex.bin", searchingInAssetPackWithID: "Tex", access: .progressive)
        #expect(data == Data(Self.texture("bc7-x86_64")))
        let sent = hosted.packBytes(since: before)
        #expect(Array(sent.keys) == [bc7.path], "\(sent)")
        #expect(sent.values.reduce(0, +) < 500_000 + 100_000, "\(sent)")
    }
}
