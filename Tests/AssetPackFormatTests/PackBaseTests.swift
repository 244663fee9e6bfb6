import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport
import TestRepositories

/// Pack files with a base (format version 4): a device variant's file that takes the frames it
/// shares with its group's default from the default's file. Read with its base it gives every
/// file byte for byte; without it, or with another file, or with a base frame out of range, the
/// read fails naming the base, the region and the offset.
@Suite struct PackBaseTests {
    static let shared = patternBytes(900_000, seed: 80)

    /// A default and a variant that share `shared.bin`; the variant rebased onto the default.
    func makePair(_ dir: TemporaryDirectory) throws -> (base: String, variant: String, plain: String, result: PackRebaser.Result) {
        try dir.write("default/shared.bin", Self.shared)
        try dir.write("default/tex.bin", patternBytes(150_000, seed: 81))
        try dir.write("astc/shared.bin", Self.shared)
        try dir.write("astc/tex.bin", patternBytes(150_000, seed: 82))
        let manifest = { (folder: String) in
            #"{ "assetPackID": "Tex", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "\#(folder)" } ], "platforms": ["iOS"] }"#
        }
        let base = try packManifest(manifest("default"), in: dir, output: "default.pack").0
        let plain = try packManifest(manifest("astc"), in: dir, output: "astc.pack").0
        let baseSize = UInt64(readFile(base).count)
        let result = try #require(try PackRebaser.rebase(plain, onto: base, baseSHA256: SHA256Digest.hash(readFile(base)), baseSize: baseSize,
                                                         to: dir.file("astc-based.pack")))
        return (base, dir.file("astc-based.pack"), plain, result)
    }

    @Test func aVariantReadWithItsBaseHoldsEveryFileAndStoresOnlyItsOwnFrames() throws {
        let dir = try TemporaryDirectory()
        let (base, variant, plain, result) = try makePair(dir)
        let reader = try PackReader(path: variant)
        let original = try PackReader(path: plain)
        #expect(reader.trailer.formatVersion == 4 && reader.index.formatVersion == 4)
        let pinned = try #require(reader.index.base)
        #expect(pinned.chunkCount == result.sharedChunks && pinned.chunkCount > 0)
        #expect(pinned.sha256 == SHA256Digest.hash(readFile(base)))
        // The shared file's frames are not in the variant's file.
        #expect(reader.fileSize + result.sharedBytes == original.fileSize + (reader.trailer.indexLength - original.trailer.indexLength))
        #expect(reader.fileSize < 200_000)
        #expect(reader.index.files == original.index.files)
        #expect(try PackIndex.decode(reader.index.encoded(), indexOffset: reader.trailer.indexOffset) == reader.index)
        // Without its base, a shared chunk cannot be read, and the error says which file to give.
        #expect { _ = try reader.contents(of: "astc/shared.bin") } throws: { "\($0)".contains("base file") && "\($0)".contains(pinned.sha256.hex) }
        try reader.attachBase(path: base)
        #expect(try reader.contents(of: "astc/shared.bin") == Self.shared)
        #expect(try reader.contents(of: "astc/tex.bin") == original.contents(of: "astc/tex.bin"))
    }

    @Test func anotherBaseIsRefusedNamingBothDigests() throws {
        let dir = try TemporaryDirectory()
        let (_, variant, plain, _) = try makePair(dir)
        let reader = try PackReader(path: variant)
        #expect { try reader.attachBase(path: plain) } throws: { error in
            let text = "\(error)"
            return text.contains("the base is not that file") && text.contains(SHA256Digest.hash(readFile(plain)).hex)
                && text.contains(reader.index.base!.sha256.hex)
        }
    }

    @Test func aBaseFrameOutsideTheBaseFileIsRefusedNamingItsOffset() throws {
        let dir = try TemporaryDirectory()
        let (_, variant, _, _) = try makePair(dir)
        let pinned = try #require(try PackReader(path: variant).index.base)
        rewriteIndexModel(of: variant) { index in index.chunks[0].offset = pinned.size - 70 }
        let message = try #require({ () -> String? in
            do { _ = try PackReader(path: variant); return nil } catch { return "\(error)" }
        }())
        #expect(message.contains("malformed chunk table at byte") && message.contains("base chunk 0 lies at bytes \(pinned.size - 70)"), "\(message)")
    }

    @Test func aBaseRecordClaimingMoreChunksThanTheTableIsRefused() throws {
        let dir = try TemporaryDirectory()
        let (_, variant, _, _) = try makePair(dir)
        rewriteIndexModel(of: variant) { index in index.base!.chunkCount = index.chunks.count + 1 }
        #expect { _ = try PackReader(path: variant) } throws: { "\($0)".contains("the base record names") }
    }
}
