@testable import AssetPackPackaging
import Testing
@testable import AssetPackFormat
import TestSupport

@Suite struct FastCDCTests {
    let params = ChunkingParameters(minimumSize: 2048, averageSize: 8192, maximumSize: 32768)

    func chunks(_ data: [UInt8]) -> [[UInt8]] { FastCDC(params).chunks(of: data) }

    @Test func chunkSizesStayWithinBoundsAndNearTheAverage() {
        let data = patternBytes(2 << 20, seed: 7)
        let c = chunks(data)
        #expect(c.dropLast().allSatisfy { $0.count >= params.minimumSize && $0.count <= params.maximumSize })
        #expect(c.flatMap { $0 } == data)
        let mean = data.count / c.count
        #expect(mean > params.averageSize / 2 && mean < params.averageSize * 2, "mean \(mean)")
    }

    @Test func insertingBytesMovesOnlyNearbyCuts() {
        let data = patternBytes(1 << 20, seed: 11)
        var edited = data
        edited.insert(contentsOf: [1, 2, 3, 4, 5, 6, 7], at: 300_000)
        let before = Set(chunks(data)), after = chunks(edited)
        let shared = after.filter { before.contains($0) }.count
        // Only the chunk holding the insertion (and perhaps its neighbour) may change.
        #expect(after.count - shared <= 3, "\(after.count - shared) of \(after.count) chunks changed")
    }

    @Test func isDeterministic() {
        let data = textBytes(500_000, seed: 3)
        #expect(chunks(data).map(\.count) == chunks(data).map(\.count))
    }

    @Test func gearTableIsFixed() {
        // Cut points are part of the format's behaviour: the table must never change.
        #expect(GearTable.values.count == 256)
        #expect(SHA256Digest.hash(GearTable.values.withUnsafeBytes { Array($0) }).hex.prefix(16) == gearTableDigestPrefix)
    }

    @Test(arguments: [(64, 128, 256, true), (100, 256, 1024, true), (64, 100, 256, false), (256, 128, 1024, false), (64, 128, 32 << 20, false)])
    func validatesParameters(min: Int, avg: Int, max: Int, valid: Bool) {
        #expect((ChunkingParameters(minimumSize: min, averageSize: avg, maximumSize: max).problem == nil) == valid)
    }
}

/// Recorded once from the SplitMix64 rule in GearTable.swift (seed 0x4173736574506163).
let gearTableDigestPrefix = "05ae0e5ea5b5ca04"
