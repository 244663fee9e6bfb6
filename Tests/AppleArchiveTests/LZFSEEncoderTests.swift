@testable import AppleArchive
import Testing
import TestSupport

/// Our encoder against the reference decoder and the reference encoder's sizes.
@Suite struct LZFSEEncoderTests {
    static func encode(_ input: [UInt8]) -> [UInt8] { input.withUnsafeBytes { LZFSE.encode($0) } }

    @Test func theReferenceDecoderReadsWhatWeWrite() throws {
        var inputs: [[UInt8]] = []
        for kind in LZFSESamples.Kind.allCases {
            // The reference binding reports an error for any stream of no bytes (its own too);
            // the empty stream is checked byte for byte in the next test.
            for (index, size) in LZFSEDecoderTests.sizes.enumerated() where size > 0 {
                for seed in [UInt64(3), 4] { inputs.append(LZFSESamples.bytes(kind, count: size, seed: seed &* 100 &+ UInt64(index))) }
            }
        }
        inputs.append(LZFSESamples.bytes(.mixed, count: 5 << 20, seed: 11))
        inputs.append(LZFSESamples.bytes(.zeros, count: 5 << 20, seed: 0))
        let streams = inputs.map(Self.encode)
        let decoded = try ReferenceLZFSE.decompress(streams)
        var kinds: Set<String> = []
        for (index, input) in inputs.enumerated() {
            #expect(decoded[index] == input, "\(input.count) bytes, stream \(LZFSEDecoderTests.magic(streams[index]))")
            #expect(try LZFSEDecoderTests.decode(streams[index], count: input.count) == input)
            kinds.insert(LZFSEDecoderTests.magic(streams[index]))
        }
        #expect(kinds == ["bvx2", "bvxn", "bvx-"])
    }

    @Test func smallInputsGetLZVNLargeOnesV2BlocksAndIncompressibleOnesAreStored() throws {
        let text = LZFSESamples.bytes(.text, count: 1 << 20, seed: 6)
        #expect(LZFSEDecoderTests.magic(Self.encode(Array(text.prefix(4095)))) == "bvxn")
        #expect(LZFSEDecoderTests.magic(Self.encode(Array(text.prefix(4096)))) == "bvx2")
        #expect(Self.encode([]) == Array("bvx-".utf8) + [0, 0, 0, 0] + Array("bvx$".utf8))
        let random = LZFSESamples.bytes(.random, count: 100_000, seed: 6)
        let stored = Self.encode(random)
        #expect(LZFSEDecoderTests.magic(stored) == "bvx-" && stored.count == random.count + 12)
        // A megabyte of text is several bvx2 blocks (at most 10,000 matches each).
        let blocks = try LZFSEBlockWalk.magics(Self.encode(text))
        #expect(blocks.count > 2 && blocks.dropLast().allSatisfy { $0 == "bvx2" } && blocks.last == "bvx$")
    }

    /// Incompressible stretches become `bvx-` blocks between `bvx2` ones (a run of them one
    /// block), and text after them still matches the text before: both decoders agree.
    @Test func incompressibleStretchesAreStoredMidStream() throws {
        let text = LZFSESamples.bytes(.text, count: 150_000, seed: 21)
        let random = LZFSESamples.bytes(.random, count: 200_000, seed: 21)
        let input = text + random + text + random + Array(text.prefix(60_000))
        let stream = Self.encode(input)
        let blocks = try LZFSEBlockWalk.magics(stream)
        let stored = blocks.indices.filter { blocks[$0] == "bvx-" }
        #expect(stored.count == 2, "blocks: \(blocks)")
        #expect(stored.allSatisfy { $0 > 0 && blocks[$0 - 1] == "bvx2" && blocks[$0 + 1] == "bvx2" }, "blocks: \(blocks)")
        // The second copy of the text is coded as matches into the first: far below its size.
        #expect(stream.count < 2 * random.count + text.count)
        #expect(try ReferenceLZFSE.decompress([stream]) == [input])
        #expect(try LZFSEDecoderTests.decode(stream, count: input.count) == input)
    }

    @Test func encodingIsDeterministic() {
        let input = LZFSESamples.bytes(.mixed, count: 300_000, seed: 8)
        #expect(Self.encode(input) == Self.encode(input))
    }

    @Test func sizesStayWithinTenPercentOfTheReferenceEncoder() throws {
        let kinds: [LZFSESamples.Kind] = [.text, .json, .binary, .mixed, .repetitive, .random]
        let inputs = kinds.flatMap { kind in [3000, 1 << 20].map { LZFSESamples.bytes(kind, count: $0, seed: 12) } }
        let reference = try ReferenceLZFSE.compress(inputs)
        for (index, input) in inputs.enumerated() {
            let ours = Self.encode(input).count
            #expect(Double(ours) <= 1.10 * Double(reference[index].count),
                    "\(kinds[index / 2]) \(input.count) bytes: ours \(ours), reference \(reference[index].count)")
        }
    }
}
