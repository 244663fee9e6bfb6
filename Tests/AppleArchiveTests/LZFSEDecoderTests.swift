@testable import AppleArchive
import Testing
import TestSupport

/// Our decoder against streams the reference encoder wrote, Apple's own stream, and streams of
/// every block kind put together.
@Suite struct LZFSEDecoderTests {
    static let sizes = [0, 1, 7, 8, 100, 1000, 4095, 4096, 4097, 10_000, 65_536, 1 << 20]

    /// Decodes `stream` into a destination of exactly `count` bytes.
    static func decode(_ stream: [UInt8], count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let written = try stream.withUnsafeBytes { source in
            try out.withUnsafeMutableBytes { try LZFSE.decode(source, into: $0) }
        }
        return Array(out.prefix(written))
    }

    static func magic(_ stream: [UInt8]) -> String { String(decoding: stream.prefix(4), as: UTF8.self) }

    @Test func decodesWhatTheReferenceEncoderWrites() throws {
        var inputs: [[UInt8]] = []
        for kind in LZFSESamples.Kind.allCases {
            for (index, size) in Self.sizes.enumerated() {
                for seed in [UInt64(1), 2] { inputs.append(LZFSESamples.bytes(kind, count: size, seed: seed &* 100 &+ UInt64(index))) }
            }
        }
        inputs.append(LZFSESamples.bytes(.mixed, count: 5 << 20, seed: 9))
        inputs.append(LZFSESamples.bytes(.text, count: 5 << 20, seed: 10))
        let streams = try ReferenceLZFSE.compress(inputs)
        var kinds: Set<String> = []
        for (input, stream) in zip(inputs, streams) {
            let decoded = try Self.decode(stream, count: input.count)
            #expect(decoded == input, "\(input.count) bytes, stream \(Self.magic(stream))")
            kinds.insert(Self.magic(stream))
        }
        #expect(kinds == ["bvx2", "bvxn", "bvx-"])
    }

    @Test func referenceStreamsUseLZVNForSmallInputsAndV2ForLargeOnes() throws {
        let inputs = [LZFSESamples.bytes(.text, count: 1000, seed: 3), LZFSESamples.bytes(.text, count: 4095, seed: 3),
                      LZFSESamples.bytes(.text, count: 4096, seed: 3), LZFSESamples.bytes(.json, count: 1 << 20, seed: 3)]
        let streams = try ReferenceLZFSE.compress(inputs)
        #expect(streams.map(Self.magic) == ["bvxn", "bvxn", "bvx2", "bvx2"])
        // A megabyte of JSON needs more than one bvx2 block (at most 10,000 matches each).
        let blocks = try LZFSEBlockWalk.magics(streams[3])
        #expect(blocks.count > 2 && blocks.dropLast().allSatisfy { $0 == "bvx2" } && blocks.last == "bvx$")
        for (input, stream) in zip(inputs, streams) { #expect(try Self.decode(stream, count: input.count) == input) }
    }

    @Test func decodesApplesOwnStreamFromTheSparkleArchive() throws {
        let archive = try SharedTestData.bytes("apple-archive/SparkleTestCodeSignApp.aar")
        let expected = try SharedTestData.bytes("apple-archive/SparkleTestCodeSignApp.raw.aa")
        func bigEndian64(_ at: Int) -> Int { archive[at..<at + 8].reduce(0) { $0 << 8 | Int($1) } }
        #expect(String(decoding: archive.prefix(4), as: UTF8.self) == "pbze")
        let rawSize = bigEndian64(12), compressedSize = bigEndian64(20)
        #expect(rawSize == 2_506_564 && compressedSize == 632_827)
        let stream = Array(archive[28..<28 + compressedSize])
        #expect(Self.magic(stream) == "bvx2")
        #expect(try Self.decode(stream, count: rawSize) == expected)
    }

    @Test func decodesStreamsMixingEveryBlockKind() throws {
        let parts = [LZFSESamples.bytes(.text, count: 1500, seed: 4), LZFSESamples.bytes(.json, count: 100_000, seed: 4),
                     LZFSESamples.bytes(.random, count: 3000, seed: 4), LZFSESamples.bytes(.binary, count: 50_000, seed: 4)]
        let streams = try ReferenceLZFSE.compress(parts)
        #expect(streams.map(Self.magic) == ["bvxn", "bvx2", "bvx-", "bvx2"])
        // Each stream without its bvx$, one after the other, plus the second as bvx1 blocks.
        var combined: [UInt8] = []
        for stream in streams { combined += stream.dropLast(4) }
        combined += try LZFSEBlockWalk.asV1(streams[1]).dropLast(4)
        combined += Array("bvx$".utf8)
        let decoded = try Self.decode(combined, count: parts.reduce(0) { $0 + $1.count } + parts[1].count)
        #expect(decoded == parts.joined() + parts[1])
        #expect(try LZFSEBlockWalk.magics(combined).contains("bvx1"))
    }

    @Test func reportsTheWrittenCountWhenTheDestinationIsLarger() throws {
        let input = LZFSESamples.bytes(.text, count: 20_000, seed: 5)
        let stream = try ReferenceLZFSE.compress([input])[0]
        var out = [UInt8](repeating: 0xaa, count: 30_000)
        let written = try stream.withUnsafeBytes { source in try out.withUnsafeMutableBytes { try LZFSE.decode(source, into: $0) } }
        #expect(written == input.count)
        #expect(Array(out.prefix(written)) == input)
    }
}

/// Walks the blocks of a stream by their headers, for the tests.
enum LZFSEBlockWalk {
    static func u32(_ bytes: [UInt8], _ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }

    /// The magic of each block, in order.
    static func magics(_ stream: [UInt8]) throws -> [String] {
        var names: [String] = []
        var position = 0
        while true {
            let name = String(decoding: stream[position..<position + 4], as: UTF8.self)
            names.append(name)
            switch name {
            case "bvx$": return names
            case "bvx-": position += 8 + u32(stream, position + 4)
            case "bvxn": position += 12 + u32(stream, position + 8)
            case "bvx1": position += 772 + u32(stream, position + 20) + u32(stream, position + 24)
            case "bvx2":
                let header = try stream.withUnsafeBytes { try LZFSEBlockHeader.readV2($0, at: position) }
                position += header.headerSize + header.literalPayloadSize + header.lmdPayloadSize
            default: throw TestSupportError("unknown block \(name) at \(position)")
            }
        }
    }

    /// The same stream with each `bvx2` header rewritten in the `bvx1` layout (772 bytes,
    /// frequency counts in full).
    static func asV1(_ stream: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var position = 0
        while String(decoding: stream[position..<position + 4], as: UTF8.self) == "bvx2" {
            let h = try stream.withUnsafeBytes { try LZFSEBlockHeader.readV2($0, at: position) }
            func put32(_ value: Int) { out += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
            func put16(_ value: Int) { out += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
            out += Array("bvx1".utf8)
            for value in [h.rawByteCount, h.literalPayloadSize + h.lmdPayloadSize, h.literalCount, h.matchCount,
                          h.literalPayloadSize, h.lmdPayloadSize, h.literalFinalBits] { put32(value) }
            for value in [h.literalStates.0, h.literalStates.1, h.literalStates.2, h.literalStates.3] { put16(value) }
            put32(h.lmdFinalBits)
            for value in [h.literalLengthState, h.matchLengthState, h.distanceState] { put16(value) }
            for count in h.frequencies { put16(Int(count)) }
            out += [0, 0]
            let payload = position + h.headerSize
            let end = payload + h.literalPayloadSize + h.lmdPayloadSize
            out += stream[payload..<end]
            position = end
        }
        return out + stream[position...]
    }
}
