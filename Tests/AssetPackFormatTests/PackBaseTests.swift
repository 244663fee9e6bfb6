import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport
import TestRepositories

/// Pack files with bases (format versions 4 and 5): a device variant's file that takes the frames
/// it shares with its group's default from the default's file (version 4), and those it shares
/// with a variant published before it from that variant's file (version 5). Read with its bases
/// it gives every file byte for byte; without them, or with another file, or with a base frame
/// out of range, the read fails naming the base, the region and the offset.
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
        let result = try #require(try PackRebaser.rebase(plain, onto: [candidate(base)], to: dir.file("astc-based.pack")))
        return (base, dir.file("astc-based.pack"), plain, result)
    }

    @Test func aVariantReadWithItsBaseHoldsEveryFileAndStoresOnlyItsOwnFrames() throws {
        let dir = try TemporaryDirectory()
        let (base, variant, plain, result) = try makePair(dir)
        let reader = try PackReader(path: variant)
        let original = try PackReader(path: plain)
        #expect(reader.trailer.formatVersion == 4 && reader.index.formatVersion == 4)
        #expect(reader.index.bases.count == 1 && result.bases == [SHA256Digest.hash(readFile(base))])
        let pinned = try #require(reader.index.bases.first)
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
                && text.contains(reader.index.bases[0].sha256.hex)
        }
    }

    @Test func aBaseFrameOutsideTheBaseFileIsRefusedNamingItsOffset() throws {
        let dir = try TemporaryDirectory()
        let (_, variant, _, _) = try makePair(dir)
        let pinned = try #require(try PackReader(path: variant).index.bases.first)
        rewriteIndexModel(of: variant) { index in index.chunks[0].offset = pinned.size - 70 }
        let message = try #require({ () -> String? in
            do { _ = try PackReader(path: variant); return nil } catch { return "\(error)" }
        }())
        #expect(message.contains("malformed chunk table at byte") && message.contains("base chunk 0 lies at bytes \(pinned.size - 70)"), "\(message)")
    }

    @Test func aBaseRecordClaimingMoreChunksThanTheTableIsRefused() throws {
        let dir = try TemporaryDirectory()
        let (_, variant, _, _) = try makePair(dir)
        rewriteIndexModel(of: variant) { index in index.bases[0].chunkCount = index.chunks.count + 1 }
        #expect { _ = try PackReader(path: variant) } throws: { "\($0)".contains("the base records name") }
    }

    /// A pack file as a candidate base: its path, SHA-256 and size.
    func candidate(_ path: String) -> PackRebaser.Candidate {
        PackRebaser.Candidate(path: path, sha256: SHA256Digest.hash(readFile(path)), size: UInt64(readFile(path).count))
    }

    static let astcTextures = patternBytes(700_000, seed: 83)

    /// A default (BC7) and two variants that share the ASTC textures the default lacks: `astc`
    /// (on the default alone: version 4) and `astc-8GiB` (on the default and `astc`: version 5).
    func makeGroup(_ dir: TemporaryDirectory) throws -> (base: String, astc: String, big: String, bigPlain: String, result: PackRebaser.Result) {
        try dir.write("default/shared.bin", Self.shared)
        try dir.write("default/tex.bin", patternBytes(150_000, seed: 81))
        for folder in ["astc", "big"] {
            try dir.write("\(folder)/shared.bin", Self.shared)
            try dir.write("\(folder)/tex.bin", Self.astcTextures)
        }
        try dir.write("big/extra.bin", patternBytes(120_000, seed: 84))
        let manifest = { (folder: String) in
            #"{ "assetPackID": "Tex", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "\#(folder)" } ], "platforms": ["iOS"] }"#
        }
        let base = try packManifest(manifest("default"), in: dir, output: "default.pack").0
        let astcPlain = try packManifest(manifest("astc"), in: dir, output: "astc-plain.pack").0
        let bigPlain = try packManifest(manifest("big"), in: dir, output: "big-plain.pack").0
        _ = try #require(try PackRebaser.rebase(astcPlain, onto: [candidate(base)], to: dir.file("astc.pack")))
        let result = try #require(try PackRebaser.rebase(bigPlain, onto: [candidate(base), candidate(dir.file("astc.pack"))], to: dir.file("big.pack")))
        return (base, dir.file("astc.pack"), dir.file("big.pack"), bigPlain, result)
    }

    @Test func aVariantTakesWhatAnEarlierVariantStoresFromItsFileAndWhatTheDefaultStoresFromTheDefaults() throws {
        let dir = try TemporaryDirectory()
        let (base, astc, big, bigPlain, result) = try makeGroup(dir)
        let reader = try PackReader(path: big)
        let original = try PackReader(path: bigPlain)
        #expect(reader.trailer.formatVersion == 5 && reader.index.formatVersion == 5)
        #expect(result.bases == [SHA256Digest.hash(readFile(base)), SHA256Digest.hash(readFile(astc))])
        #expect(reader.index.bases.map(\.size) == [UInt64(readFile(base).count), UInt64(readFile(astc).count)])
        // Only `extra.bin` is its own: the ASTC textures lie in astc's file, `shared.bin` in the default's.
        #expect(reader.fileSize < 160_000 && original.fileSize > 1_700_000, "\(reader.fileSize) \(original.fileSize)")
        #expect(try PackIndex.decode(reader.index.encoded(), indexOffset: reader.trailer.indexOffset) == reader.index)
        // Both bases are needed, in any order; one alone leaves the other's frames unread.
        try reader.attachBase(path: astc)
        #expect(try reader.contents(of: "big/tex.bin") == Self.astcTextures)
        #expect { _ = try reader.contents(of: "big/shared.bin") } throws: { "\($0)".contains("base file 0") && "\($0)".contains(reader.index.bases[0].sha256.hex) }
        try reader.attachBase(path: base)
        #expect(try reader.contents(of: "big/shared.bin") == Self.shared)
        #expect(try reader.contents(of: "big/extra.bin") == original.contents(of: "big/extra.bin"))
        // A file of the group it does not name is refused, naming the bases it does.
        #expect { try reader.attachBase(path: bigPlain) } throws: { "\($0)".contains("it is none of them") }
    }

    @Test func aFrameAnEarlierVariantTakesFromTheDefaultIsTakenFromTheDefaultToo() throws {
        // astc's file does not store `shared.bin`: the later variant cannot take it from there.
        let dir = try TemporaryDirectory()
        let (_, astc, big, _, _) = try makeGroup(dir)
        let astcIndex = try PackReader(path: astc).index
        let bigIndex = try PackReader(path: big).index
        let sharedDigests = Set(astcIndex.chunks[0..<astcIndex.baseChunkCount].map(\.digest))
        let fromAstc = Set(bigIndex.chunks[bigIndex.bases[0].chunkCount..<bigIndex.baseChunkCount].map(\.digest))
        #expect(!sharedDigests.isEmpty && sharedDigests.isDisjoint(with: fromAstc))
        #expect(bigIndex.chunks[0..<bigIndex.bases[0].chunkCount].map(\.digest).sorted { $0.hex < $1.hex } == sharedDigests.sorted { $0.hex < $1.hex })
    }

    @Test func aBaseListNamingOneFileTwiceOrNoneIsRefused() throws {
        let dir = try TemporaryDirectory()
        let (_, _, big, _, _) = try makeGroup(dir)
        let copy = dir.file("copy.pack")
        try Data(readFile(big)).write(to: URL(fileURLWithPath: copy))
        rewriteIndexModel(of: big) { index in index.bases[1].sha256 = index.bases[0].sha256 }
        #expect { _ = try PackReader(path: big) } throws: { "\($0)".contains("base file 1 is base file 0 again") }
        rewriteIndexModel(of: copy) { index in index.bases[1].chunkCount = 0 }
        #expect { _ = try PackReader(path: copy) } throws: { "\($0)".contains("0 chunks of base file 1") }
    }

    @Test func aLaterBaseFrameBeforeItsBasesHeaderIsRefusedNamingTheBase() throws {
        let dir = try TemporaryDirectory()
        let (_, _, big, _, _) = try makeGroup(dir)
        let first = try PackReader(path: big).index.bases[0].chunkCount
        rewriteIndexModel(of: big) { index in index.chunks[first].offset = 8 }
        #expect { _ = try PackReader(path: big) } throws: { "\($0)".contains("base chunk \(first) lies at bytes 8+") && "\($0)".contains("of base file 1") }
    }
}
