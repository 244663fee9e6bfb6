import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport
import TestRepositories

/// Sealed (paid) packs at the byte level: AES-256-GCM frames under deterministic nonces, the
/// sealed index, and every way a sealed pack can be opened wrongly or be tampered with.
@Suite struct SealedPackTests {
    let manifest = """
    { "assetPackID": "Paid", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "src" } ], "platforms": ["iOS"] }
    """

    func makePack(_ dir: TemporaryDirectory, key: ContentKey, output: String = "out.pack") throws -> String {
        try dir.write("src/secret-level-names.bin", patternBytes(700_000, seed: 5))
        try dir.write("src/notes.txt", textBytes(300_000, seed: 6))
        return try packManifest(manifest, in: dir, output: output) { $0.sealing = key; $0.threads = 2 }.0
    }

    @Test func sealedFramesAreDeterministicAndAuthenticated() throws {
        let key = ContentKey.generate(), other = ContentKey.generate()
        let plain = patternBytes(10_000, seed: 1)
        let sealed = SealedFrame.seal(plain, purpose: .chunk, key: key)
        #expect(sealed.count == plain.count + SealedFrame.overhead)
        // The same plaintext under the same key: the same bytes (unchanged chunks stay put).
        #expect(SealedFrame.seal(plain, purpose: .chunk, key: key) == sealed)
        // Another plaintext: another nonce.
        var changed = plain
        changed[5000] ^= 1
        #expect(Array(SealedFrame.seal(changed, purpose: .chunk, key: key).prefix(12)) != Array(sealed.prefix(12)))
        #expect(try SealedFrame.open(sealed, purpose: .chunk, key: key) == plain)
        #expect(throws: SealedFrame.Failure.authenticationFailed) { try SealedFrame.open(sealed, purpose: .chunk, key: other) }
        #expect(throws: SealedFrame.Failure.authenticationFailed) { try SealedFrame.open(sealed, purpose: .patch, key: key) }
        for position in [0, 12, 5000, sealed.count - 1] {
            var tampered = sealed
            tampered[position] ^= 0x40
            #expect(throws: SealedFrame.Failure.authenticationFailed) { try SealedFrame.open(tampered, purpose: .chunk, key: key) }
        }
        #expect(throws: SealedFrame.Failure.tooShort(27)) { try SealedFrame.open(Array(sealed.prefix(27)), purpose: .chunk, key: key) }
    }

    @Test func aSealedPackOpensOnlyWithItsKeyAndHidesItsNames() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let path = try makePack(dir, key: key)
        let bytes = readFile(path)
        // Neither file names nor the plaintext are in the file.
        #expect(!bytes.contains(subsequence: Array("secret-level-names".utf8)))
        #expect(!bytes.contains(subsequence: Array(textBytes(300_000, seed: 6).prefix(64))))
        #expect(throws: PackError.contentKeyRequired(keyID: key.keyID)) { try PackReader(path: path) }
        #expect(throws: PackError.contentKeyRequired(keyID: key.keyID)) { try PackReader(path: path, keys: [ContentKey.generate()]) }
        let reader = try PackReader(path: path, keys: [key])
        #expect(reader.keyID == key.keyID)
        #expect(reader.index.isSealed)
        #expect(try reader.contents(of: "src/notes.txt") == textBytes(300_000, seed: 6))
        #expect(try reader.contents(of: "src/secret-level-names.bin") == patternBytes(700_000, seed: 5))
        // The opened index is stored by clients as version 3 and reads back only as opened.
        #expect(try PackIndex.decode(reader.index.encoded(), indexOffset: reader.trailer.indexOffset, opened: true) == reader.index)
    }

    @Test func anIndexThatClaimsPlaintextForASealedPackIsRefused() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let reader = try PackReader(path: try makePack(dir, key: key), keys: [key])
        // The opened (version 3) index stored in plaintext where the sealed one belongs.
        let plaintext = reader.index.encoded()
        #expect {
            try PackIndex.decode(plaintext, indexOffset: reader.trailer.indexOffset)
        } throws: { "\($0)".contains("declares version 3 (a sealed pack) but is stored in plaintext") }
        #expect {
            try SealedIndex.decode(plaintext, indexOffset: reader.trailer.indexOffset)
        } throws: { "\($0)".contains("its index is not: a sealed pack's index is never stored in plaintext") }
    }

    @Test func aTamperedSealedFrameFailsAuthenticationNamingTheChunk() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let path = try makePack(dir, key: key)
        var bytes = readFile(path)
        bytes[PackLayout.headerSize + 100] ^= 0x01
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let reader = try PackReader(path: path, keys: [key])
        #expect {
            try reader.chunk(0, using: ZstdDecompressor())
        } throws: { error in
            let text = "\(error)"
            return text.contains("chunk 0") && text.contains("AES-256-GCM authentication failed")
        }
        // A tampered sealed index is refused before any chunk is read.
        var index = readFile(path)
        index[Int(reader.trailer.indexOffset) + SealedIndex.headerSize + 20] ^= 0x01
        _ = FileManager.default.createFile(atPath: path, contents: Data(index))
        #expect { try PackReader(path: path, keys: [key]) } throws: { "\($0)".contains("index digest mismatch") }
    }

    /// One decompressor opens every sealed frame into the same scratch buffer: frames of every
    /// size in any order open to their chunks, and a tampered frame between two good ones is
    /// refused without leaving anything behind that the next frame could be mistaken for.
    @Test func oneDecompressorOpensFramesOfEverySizeAndStillRefusesATamperedOne() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let reader = try PackReader(path: try makePack(dir, key: key), keys: [key])
        let file = readFile(reader.path)
        let decompressor = ZstdDecompressor()
        let order = reader.index.chunks.indices.sorted { (reader.index.chunks[$0].compressedSize, $0) > (reader.index.chunks[$1].compressedSize, $1) }
        let smallestFirst = Array(order.reversed())
        #expect(order.count >= 2)
        for c in smallestFirst + order {
            let entry = reader.index.chunks[c]
            let frame = Array(file[Int(entry.offset)..<Int(entry.offset) + Int(entry.compressedSize)])
            #expect(SHA256Digest.hash(try ChunkVerifier.open(frame, entry: entry, chunkIndex: c, index: reader.index, decompressor: decompressor)) == entry.digest)
            var tampered = frame
            tampered[tampered.count / 2] ^= 0x10
            #expect { try ChunkVerifier.open(tampered, entry: entry, chunkIndex: c, index: reader.index, decompressor: decompressor) } throws: {
                "\($0)".contains("chunk \(c)") && "\($0)".contains("AES-256-GCM authentication failed")
            }
        }
    }

    /// GCM's keystream alone deciphers what `open` opens, at every length around a block.
    @Test func decipheringGivesWhatOpeningGives() throws {
        let key = ContentKey.generate()
        for length in [1, 15, 16, 17, 31, 4095, 4096, 100_003] {
            let sealed = SealedFrame.seal(patternBytes(length, seed: UInt64(length)), purpose: .chunk, key: key)
            var out = [UInt8](repeating: 0, count: length)
            let n = try sealed.withUnsafeBytes { f in try out.withUnsafeMutableBytes { try SealedFrame.decipher(f, purpose: .chunk, key: key, into: $0) } }
            #expect(n == length)
            #expect(out == (try SealedFrame.open(sealed, purpose: .chunk, key: key)))
        }
    }

    /// A client checks a sealed chunk by its digest alone, and so refuses every changed frame
    /// as `verify` does; the error still says the frame failed GCM authentication. A frame
    /// whose tag alone was changed still gives the chunk's bytes (the digest vouches for them),
    /// which `verify` refuses.
    @Test func aClientChecksSealedChunksByDigestAndNamesTheChangedFrame() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let reader = try PackReader(path: try makePack(dir, key: key), keys: [key])
        let file = readFile(reader.path)
        let chunks = reader.index.chunks
        #expect(chunks.count >= 2)
        func frame(_ c: Int) -> [UInt8] { Array(file[Int(chunks[c].offset)..<Int(chunks[c].offset) + Int(chunks[c].compressedSize)]) }
        let d = ZstdDecompressor()
        for c in chunks.indices {
            let good = frame(c)
            #expect(SHA256Digest.hash(try ChunkVerifier.open(good, entry: chunks[c], chunkIndex: c, index: reader.index, decompressor: d, sealedCheck: .digest)) == chunks[c].digest)
            for position in [0, SealedFrame.nonceSize, good.count / 2, good.count - SealedFrame.tagSize - 1] {
                var changed = good
                changed[position] ^= 0x04
                #expect { try ChunkVerifier.open(changed, entry: chunks[c], chunkIndex: c, index: reader.index, decompressor: d, sealedCheck: .digest) } throws: {
                    "\($0)".contains("chunk \(c)") && "\($0)".contains("AES-256-GCM authentication failed")
                }
            }
            var tag = good
            tag[tag.count - 1] ^= 0x04
            #expect(SHA256Digest.hash(try ChunkVerifier.open(tag, entry: chunks[c], chunkIndex: c, index: reader.index, decompressor: d, sealedCheck: .digest)) == chunks[c].digest)
            #expect { try ChunkVerifier.open(tag, entry: chunks[c], chunkIndex: c, index: reader.index, decompressor: d) } throws: {
                "\($0)".contains("AES-256-GCM authentication failed")
            }
            // Another chunk's frame, intact and sealed with the same key: its tag verifies, its
            // bytes are not this chunk's.
            let other = frame((c + 1) % chunks.count)
            if other != good {
                #expect { try ChunkVerifier.open(other, entry: chunks[c], chunkIndex: c, index: reader.index, decompressor: d, sealedCheck: .digest) } throws: {
                    "\($0)".contains("chunk \(c)") && !"\($0)".contains("authentication failed")
                }
            }
        }
    }

    @Test func unchangedChunksStayByteIdenticalAcrossVersions() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let v1 = try PackReader(path: try makePack(dir, key: key, output: "v1.pack"), keys: [key])
        try dir.write("src/zz-new.bin", patternBytes(200_000, seed: 9))
        let v2 = try PackReader(path: try packManifest(manifest, in: dir, output: "v2.pack") { $0.sealing = key; $0.threads = 2 }.0, keys: [key])
        let f1 = readFile(v1.path), f2 = readFile(v2.path)
        func frame(_ r: PackReader, _ f: [UInt8], _ c: Int) -> [UInt8] {
            let e = r.index.chunks[c]
            return Array(f[Int(e.offset)..<Int(e.offset) + Int(e.compressedSize)])
        }
        var shared = 0
        for (c, entry) in v1.index.chunks.enumerated() {
            guard let d = v2.index.chunks.firstIndex(where: { $0.digest == entry.digest }) else { continue }
            #expect(frame(v1, f1, c) == frame(v2, f2, d))
            shared += 1
        }
        #expect(shared == v1.index.chunks.count)
    }

    @Test func aKeyStoreThatOthersMayReadIsRefused() throws {
        let dir = try TemporaryDirectory()
        var store = ContentKeyStore()
        store.setCurrent(ContentKey.generate(), of: "Paid")
        let path = dir.file("keys.json")
        try store.save(to: path)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(try ContentKeyStore.load(path) == store)
        chmod(path, 0o644)
        #expect { try ContentKeyStore.load(path) } throws: { "\($0)".contains("has mode 0644, so others may read the content keys; it must be 0600") }
        #expect { try store.save(to: path) } throws: { "\($0)".contains("has mode 0644") }
        symlink(path, dir.file("link.json"))
        #expect { try ContentKeyStore.load(dir.file("link.json")) } throws: { "\($0)".contains("not a regular file") }
    }
}

extension [UInt8] {
    fileprivate func contains(subsequence s: [UInt8]) -> Bool {
        guard s.count <= count else { return false }
        let first = s[0]
        var i = 0
        while i + s.count <= count {
            if self[i] == first, self[i..<i + s.count].elementsEqual(s) { return true }
            i += 1
        }
        return false
    }
}
