@testable import AppleArchive
import Testing
import TestSupport

/// Streams cut short, damaged or forged: each one is an LZFSEError naming the block and its
/// offset, never a crash, and nothing is written beyond the destination.
@Suite struct LZFSEHostileInputTests {
    /// Decodes `stream` into `capacity` bytes, returning the error if there is one.
    static func failure(_ stream: [UInt8], capacity: Int) -> LZFSEError? {
        var out = [UInt8](repeating: 0, count: capacity)
        do {
            let written = try stream.withUnsafeBytes { source in try out.withUnsafeMutableBytes { try LZFSE.decode(source, into: $0) } }
            #expect(written <= capacity)
            return nil
        } catch let error as LZFSEError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    static func samples() throws -> [[UInt8]] {
        let inputs = [LZFSESamples.bytes(.text, count: 600, seed: 1), LZFSESamples.bytes(.json, count: 20_000, seed: 1),
                      LZFSESamples.bytes(.random, count: 300, seed: 1)]
        let streams = try ReferenceLZFSE.compress(inputs)
        #expect(streams.map(LZFSEDecoderTests.magic) == ["bvxn", "bvx2", "bvx-"])
        return streams + [try LZFSEBlockWalk.asV1(streams[1])]
    }

    @Test func everyTruncationIsAnError() throws {
        for stream in try Self.samples() {
            for length in 0..<stream.count {
                let error = Self.failure(Array(stream.prefix(length)), capacity: 1 << 16)
                #expect(error != nil, "prefix of \(length) of \(stream.count) bytes decoded")
            }
        }
    }

    @Test func corruptedBytesNeverCrashOrOverrun() throws {
        var generator = SeededGenerator(seed: 7)
        var errors = 0, trials = 0
        for stream in try Self.samples() {
            for offset in 0..<stream.count where offset < 64 || offset % 7 == 0 {
                var damaged = stream
                damaged[offset] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                if Self.failure(damaged, capacity: 1 << 16) != nil { errors += 1 }
                trials += 1
            }
        }
        // Damage to headers and codes is caught; damage to a stored or literal byte just changes the output.
        #expect(errors > trials / 4)
    }

    @Test func frequencyCountsThatDoNotSumToTheStateCountAreRefused() throws {
        var stream = try LZFSEBlockWalk.asV1(Self.samples()[1])
        // The first L count (at byte 50 of a bvx1 header) one higher.
        stream[50] &+= 1
        let error = try #require(Self.failure(stream, capacity: 1 << 16))
        #expect(error.block == "bvx1" && error.offset == 0 && error.reason.contains("L table"))
    }

    @Test func aHugeLiteralCountIsRefused() throws {
        var stream = try Self.samples()[1]
        // Word 0 of the bvx2 header: the literal count is its low 20 bits.
        stream[8] = 0xff; stream[9] = 0xff; stream[10] |= 0x0f
        let error = try #require(Self.failure(stream, capacity: 1 << 16))
        #expect(error.block == "bvx2" && error.reason.contains("literal count"))
    }

    @Test func aDistanceBeforeTheStartIsRefused() {
        // bvxn: literal-only "abc" (0xe3), then a small-distance match of 3 bytes, 5 back; end of stream.
        let payload: [UInt8] = [0xe3, 0x61, 0x62, 0x63, 0x00, 0x05] + [0x06, 0, 0, 0, 0, 0, 0, 0]
        let stored = Array("bvx-".utf8) + Self.le32(0)
        let stream = stored + Array("bvxn".utf8) + Self.le32(6) + Self.le32(payload.count) + payload + Array("bvx$".utf8)
        let error = Self.failure(stream, capacity: 100)
        #expect(error?.block == "bvxn" && error?.offset == 8 && error?.reason.contains("5 bytes back") == true)
        // The same match 3 back decodes.
        var fixed = stream
        fixed[8 + 12 + 5] = 3
        #expect(Self.failure(fixed, capacity: 100) == nil)
    }

    @Test func outputBeyondTheDestinationIsAnError() throws {
        let inputs = [LZFSESamples.bytes(.text, count: 600, seed: 2), LZFSESamples.bytes(.json, count: 20_000, seed: 2),
                      LZFSESamples.bytes(.random, count: 300, seed: 2)]
        for (input, stream) in zip(inputs, try ReferenceLZFSE.compress(inputs)) {
            #expect(Self.failure(stream, capacity: input.count) == nil)
            let error = try #require(Self.failure(stream, capacity: input.count - 1))
            #expect(error.reason.contains("exceeds the destination"))
        }
    }

    @Test func lyingCountsAndUnknownBlocksAreRefused() {
        let stored = Array("bvx-".utf8) + Self.le32(10) + Array("short".utf8)
        #expect(Self.failure(stored, capacity: 100)?.reason.contains("remain in the stream") == true)
        let unknown = Array("bvx-".utf8) + Self.le32(0) + Array("bvx9".utf8)
        let error = Self.failure(unknown, capacity: 100)
        #expect(error?.block == "62767839" && error?.offset == 8)
        let noEnd = Array("bvx-".utf8) + Self.le32(2) + [1, 2]
        #expect(Self.failure(noEnd, capacity: 100)?.reason.contains("without a bvx$") == true)
        // bvxn whose header promises more bytes than its opcodes make.
        let payload: [UInt8] = [0xe2, 0x61, 0x62, 0x06, 0, 0, 0, 0, 0, 0, 0]
        let lzvn = Array("bvxn".utf8) + Self.le32(3) + Self.le32(payload.count) + payload + Array("bvx$".utf8)
        #expect(Self.failure(lzvn, capacity: 100)?.reason.contains("its header says 3") == true)
    }
}
