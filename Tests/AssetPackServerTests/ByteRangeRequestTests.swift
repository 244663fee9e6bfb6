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
}
