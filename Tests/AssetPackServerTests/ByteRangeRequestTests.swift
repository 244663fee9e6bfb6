import Testing
@testable import AssetPackServer

@Suite struct ByteRangeRequestTests {
    @Test func singleSuffixAndOpenEndedRanges() {
        #expect(ByteRangeRequest(header: "bytes=0-99", length: 1000) == .ranges([0...99]))
        #expect(ByteRangeRequest(header: "bytes=900-", length: 1000) == .ranges([900...999]))
        #expect(ByteRangeRequest(header: "bytes=-100", length: 1000) == .ranges([900...999]))
        #expect(ByteRangeRequest(header: "bytes=-5000", length: 1000) == .ranges([0...999]))
        #expect(ByteRangeRequest(header: "bytes=990-5000", length: 1000) == .ranges([990...999]))
        #expect(ByteRangeRequest(header: " bytes=0-0 , 5-9", length: 1000) == .ranges([0...0, 5...9]))
    }

    @Test func unsatisfiableRanges() {
        #expect(ByteRangeRequest(header: "bytes=1000-", length: 1000) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=-0", length: 1000) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=0-10", length: 0) == .unsatisfiable)
        // One satisfiable range among unsatisfiable ones is served.
        #expect(ByteRangeRequest(header: "bytes=2000-3000, 10-19", length: 1000) == .ranges([10...19]))
    }

    @Test func malformedOrAbsentRangesServeTheWholeFile() {
        for header in [nil, "", "bytes=", "bytes=a-b", "bytes=5-1", "bytes=--1", "items=0-1", "bytes=1-2-3", "bytes=+1-2", "bytes=99999999999999999999-"] {
            #expect(ByteRangeRequest(header: header, length: 1000) == .whole, "\(header ?? "nil")")
        }
        let many = "bytes=" + (0...ByteRangeRequest.maximumRangeCount).map { "\($0)-\($0)" }.joined(separator: ",")
        #expect(ByteRangeRequest(header: many, length: 1000) == .whole)
    }

    @Test func overlappingAndAdjacentRangesAreMergedInOrder() {
        #expect(ByteRangeRequest(header: "bytes=0-99,50-149", length: 1000) == .ranges([0...149]))
        #expect(ByteRangeRequest(header: "bytes=0-9,10-19", length: 1000) == .ranges([0...19]))
        #expect(ByteRangeRequest(header: "bytes=500-599,0-9", length: 1000) == .ranges([0...9, 500...599]))
        #expect(ByteRangeRequest(header: "bytes=-10,0-9,995-", length: 1000) == .ranges([0...9, 990...999]))
        #expect(ByteRangeRequest(header: "bytes=100-199,150-160,0-0", length: 1000) == .ranges([0...0, 100...199]))
    }

    @Test func setsThatWouldOutgrowTheFileAreIgnored() {
        // The amplification request: 64 copies of the whole file.
        let amplifying = "bytes=" + Array(repeating: "0-", count: 64).joined(separator: ",")
        #expect(ByteRangeRequest(header: amplifying, length: 372_000) == .whole)
        // Under the count limit but adding up to more than the file, as nginx judges it.
        #expect(ByteRangeRequest(header: "bytes=0-,0-", length: 1000) == .whole)
        #expect(ByteRangeRequest(header: "bytes=0-599,400-999", length: 1000) == .whole)
        // Exactly the file is fine, split or not.
        #expect(ByteRangeRequest(header: "bytes=0-", length: 1000) == .ranges([0...999]))
        #expect(ByteRangeRequest(header: "bytes=0-499,500-999", length: 1000) == .ranges([0...999]))
    }

    @Test func atMostSixteenRangeSpecs() {
        #expect(ByteRangeRequest.maximumRangeCount == 16)
        let sixteen = "bytes=" + (0..<16).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        let expected: [ClosedRange<UInt64>] = (0..<16).map { (i: Int) -> ClosedRange<UInt64> in UInt64(i * 10)...UInt64(i * 10 + 1) }
        #expect(ByteRangeRequest(header: sixteen, length: 1000) == .ranges(expected))
        let seventeen = "bytes=" + (0..<17).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        #expect(ByteRangeRequest(header: seventeen, length: 1000) == .whole)
    }

    /// Found by the http fuzzer: on a representation near 2^64 bytes (a sparse file) the sizes of
    /// a few whole-file ranges overflowed their sum and trapped the server.
    @Test func rangeSetsOfHugeFilesDoNotOverflow() {
        #expect(ByteRangeRequest(header: "bytes=0-,0-", length: .max) == .whole)
        #expect(ByteRangeRequest(header: "bytes=0-,0-,0-", length: 1 << 63) == .whole)
        #expect(ByteRangeRequest(header: "bytes=0-", length: .max) == .ranges([0...(.max - 1)]))
    }
}
