@testable import AssetPacks
import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Updates of a paid (sealed) pack by patch: the patch table is sealed like the index, the
/// client opens it with the key it already holds and fetches the same patches as for an
/// unsealed pack; a sealed table that does not open, or a plaintext one offered for the sealed
/// pack, is refused and the update completes from full frames (what the client does with any
/// patch table it cannot use).
extension PaidPackInstallTests {
    /// v1 of `Paid`: a 3 MiB file; v2 rewrites twelve 16-byte records scattered over it.
    static func patchVersions() -> (v1: [String: [UInt8]], v2: [String: [UInt8]]) {
        let v1 = ["level/map.bin": patternBytes(3 << 20, seed: 21), "level/names.txt": textBytes(20_000, seed: 22)]
        var v2 = v1
        for k in 0..<12 { v2["level/map.bin"]!.replaceSubrange(k * 250_000 + 7..<k * 250_000 + 23, with: patternBytes(16, seed: UInt64(300 + k))) }
        return (v1, v2)
    }

    /// Installs v1 of the sealed pack, publishes v2 with its sealed patch; returns v2's entry.
    func sealedV2Published(_ f: Fixture) async throws -> CatalogPack {
        let manager = try manager(f, token: "tok-good")
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Paid"))
        try f.repo.put("Paid", files: Self.patchVersions().v2)
        try f.repo.publishReport(now: Date()) { $0.keyStorePath = f.repo.dir.file("keys.json") }
        return try #require(try f.repo.catalog().pack(withID: "Paid"))
    }

    /// The chunks of v2 that v1 lacks, and the bytes of their full (sealed) frames.
    func addedChunks(_ f: Fixture, _ entry: CatalogPack) throws -> (digests: [SHA256Digest], frameBytes: UInt64) {
        let key = try #require(try ContentKeyStore.load(f.repo.dir.file("keys.json")).currentKey(of: "Paid"))
        let retired = try #require(try f.repo.catalog().retired.first { $0.id == "Paid" && $0.path.hasSuffix(".pack") })
        let old = try PackReader(path: "\(f.repo.path)/\(retired.path)", keys: [key])
        let new = try PackReader(path: "\(f.repo.path)/\(entry.path)", keys: [key])
        let oldDigests = Set(old.index.chunks.map(\.digest))
        let added = new.index.chunks.filter { !oldDigests.contains($0.digest) }
        return (added.map(\.digest), added.reduce(0) { $0 + UInt64($1.compressedSize) })
    }

    /// Replaces v2's patch file with `change`'s bytes (its table now ending the file) and
    /// re-signs the catalog with the new table's figures, as a publisher could: only the client's
    /// own checks stand between it and the table.
    func replacePatch(_ f: Fixture, _ entry: CatalogPack, _ change: ([UInt8], CatalogPatch, ContentKey) throws -> [UInt8]) throws {
        let patch = try #require(entry.patches?.first)
        let key = try #require(try ContentKeyStore.load(f.repo.dir.file("keys.json")).currentKey(of: "Paid"))
        let bytes = try change(try #require(f.repo.contents(patch.path)), patch, key)
        try f.repo.place(patch.path, bytes)
        var catalog = try f.repo.catalog()
        let k = try #require(catalog.packs.firstIndex { $0.id == "Paid" })
        let table = Array(bytes[Int(patch.table.offset)...])
        catalog.packs[k].patches![0].table = CatalogIndexLocation(offset: patch.table.offset, length: UInt64(table.count), sha256: SHA256Digest.hash(table))
        catalog.packs[k].patches![0].size = UInt64(bytes.count)
        catalog.packs[k].patches![0].sha256 = SHA256Digest.hash(bytes)
        try f.repo.place("catalog.json", try f.repo.key.signedCatalog(catalog))
    }

    /// Updates to v2 and checks the files; returns the bytes fetched and the requests for the
    /// patch file.
    func updateToV2(_ f: Fixture, _ entry: CatalogPack) async throws -> (fetched: UInt64, patchRequests: [LoggedRequest]) {
        let before = f.server.packRequests().count
        let manager = try manager(f, token: "tok-good")
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.description) == ["Paid v2"])
        for (path, bytes) in Self.patchVersions().v2 { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        #expect(f.root.stagingEntries.isEmpty)
        let patchPath = try #require(entry.patches?.first?.path)
        return (await manager.fetchedBytes, f.server.packRequests().dropFirst(before).filter { $0.path == "/" + patchPath })
    }

    @Test func aSealedPacksPatchTableNamesNoNewChunkAndItsUpdateFetchesWhatAPlainOneDoes() async throws {
        let (v1, v2) = Self.patchVersions()
        let f = try fixture(files: v1)
        let entry = try await sealedV2Published(f)
        let patch = try #require(entry.patches?.first)
        let file = Data(try #require(f.repo.contents(patch.path)))
        // Nothing in the published patch file names a chunk of v2 that v1 lacks.
        let added = try addedChunks(f, entry).digests
        #expect(!added.isEmpty)
        for digest in added { #expect(file.range(of: Data(digest.bytes)) == nil, "chunk \(digest.hex.prefix(16))… in plaintext") }
        #expect(file.range(of: Data(PatchLayout.tableMagic)) == nil)

        // The same versions unsealed, updated side by side.
        let plain = try TestRepository("plain-patch")
        try plain.put("Paid", files: v1)
        try plain.publish()
        let plainServer = try plain.serve()
        let plainRoot = plain.dir.file("root")
        do {
            let first = try plain.manager(root: plainRoot, server: plainServer)
            try await first.ensureLocalAvailability(of: first.catalogPack(withID: "Paid"))
        }
        try plain.put("Paid", files: v2)
        let plainEntry = try #require(try plain.publish().pack(withID: "Paid"))
        let plainPatch = try #require(plainEntry.patches?.first)
        let plainManager = try plain.manager(root: plainRoot, server: plainServer)
        _ = try await plainManager.installUpdates()
        let plainFetched = await plainManager.fetchedBytes

        let (sealedFetched, patchRequests) = try await updateToV2(f, entry)
        // The table and the patch frames came from the patch file, as for the plain pack.
        #expect(patchRequests.count >= 2)
        #expect(plainServer.packRequests().contains { $0.path == "/" + plainPatch.path })
        // Each sealed frame is 28 bytes longer, the sealed index and table 76 each.
        #expect(sealedFetched <= plainFetched + 2048, "sealed update fetched \(sealedFetched) bytes, the plain one \(plainFetched)")
        #expect(sealedFetched * 20 < entry.downloadSize, "the sealed update fetched \(sealedFetched) of \(entry.downloadSize) bytes")
    }

    @Test func aTamperedSealedPatchTableIsRefusedAndTheUpdateCompletesFromFullFrames() async throws {
        let f = try fixture(files: Self.patchVersions().v1)
        let entry = try await sealedV2Published(f)
        try replacePatch(f, entry) { bytes, patch, _ in
            var tampered = bytes
            tampered[Int(patch.table.offset) + SealedPatchTable.headerSize + 40] ^= 0x01
            return tampered
        }
        let (fetched, patchRequests) = try await updateToV2(f, entry)
        // Only the table was fetched from the patch file; the changed chunks came as full frames.
        #expect(patchRequests.count == 1)
        let full = try addedChunks(f, entry).frameBytes
        #expect(fetched >= full, "fetched \(fetched) bytes, the changed chunks' full frames are \(full)")
    }

    @Test func aPlaintextPatchTableOfferedForASealedPackIsRefused() async throws {
        for claimed in [false, true] {
            let f = try fixture(files: Self.patchVersions().v1)
            let entry = try await sealedV2Published(f)
            try replacePatch(f, entry) { bytes, patch, key in
                // The genuine table, opened and stored in plaintext (as version 1, or as the
                // version 2 it declares).
                var table = try PatchTable.decode(Array(bytes[Int(patch.table.offset)...]), tableOffset: patch.table.offset, contentKey: key)
                table.isSealed = claimed
                return Array(bytes[..<Int(patch.table.offset)]) + table.encoded()
            }
            let (fetched, patchRequests) = try await updateToV2(f, entry)
            #expect(patchRequests.count == 1, "claimed sealed: \(claimed)")
            let full = try addedChunks(f, entry).frameBytes
            #expect(fetched >= full, "claimed sealed: \(claimed): fetched \(fetched) bytes, the changed chunks' full frames are \(full)")
        }
    }
}
