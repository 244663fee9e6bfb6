import Foundation
import TestRepositories
import TestSupport
import Testing
@testable import AssetPackServer

/// A Range header must never make the server send more than the file: overlapping ranges are
/// merged, sets adding up to more than the file or holding more than 16 ranges get the whole
/// file once (200), as nginx answers them.
@Suite struct RangeAmplificationTests {
    @Test func sixtyFourWholeFileRangesGetTheFileOnce() throws {
        let repo = try TestRepository.servingBytes(packSize: 372_000)
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let header = "bytes=" + Array(repeating: "0-", count: 64).joined(separator: ",")
        let r = try c.request("/packs/big.pack", headers: ["Range": header])
        #expect(r.status == 200)
        #expect(r.header("Content-Length") == String(repo.pack.count))
        #expect(r.body == repo.pack)
        #expect(server.accessLog(containing: "\" 200 ").contains("\"GET /packs/big.pack HTTP/1.1\" 200 \(repo.pack.count)"))
        // The connection carries on.
        #expect(try c.request("/catalog.json").body == TestRepository.stubCatalog)
    }

    @Test func overlappingRangesAreSentOnceAsOnePart() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let n = repo.pack.count
        let r = try c.request("/packs/big.pack", headers: ["Range": "bytes=0-99,50-149,100-199"])
        #expect(r.status == 206)
        #expect(r.header("Content-Range") == "bytes 0-199/\(n)")
        #expect(r.body == Array(repo.pack[0..<200]))
        // Overlaps merge, the rest stays multipart, in ascending order.
        let multi = try c.request("/packs/big.pack", headers: ["Range": "bytes=5000-5099,0-9,5050-5199"])
        #expect(multi.status == 206)
        let type = try #require(multi.header("Content-Type"))
        let parts = MultipartParts(body: multi.body, boundary: String(type.dropFirst("multipart/byteranges; boundary=".count)))
        #expect(parts.map(\.contentRange) == ["bytes 0-9/\(n)", "bytes 5000-5199/\(n)"])
        #expect(parts.map(\.body) == [Array(repo.pack[0..<10]), Array(repo.pack[5000..<5200])])
    }

    @Test func setsLargerThanTheFileOrTooManyRangesGetTheWholeFile() throws {
        let repo = try TestRepository.servingBytes(packSize: 10_000)
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        for header in ["bytes=0-,0-", "bytes=0-5999,4000-", "bytes=" + (0..<17).map { "\($0 * 100)-\($0 * 100 + 9)" }.joined(separator: ",")] {
            let r = try c.request("/packs/big.pack", headers: ["Range": header])
            #expect(r.status == 200, "\(header)")
            #expect(r.body == repo.pack, "\(header)")
        }
        // Sixteen small ranges are still served as asked.
        let sixteen = "bytes=" + (0..<16).map { "\($0 * 100)-\($0 * 100 + 9)" }.joined(separator: ",")
        let r = try c.request("/packs/big.pack", headers: ["Range": sixteen])
        #expect(r.status == 206)
        let type = try #require(r.header("Content-Type"))
        let parts = MultipartParts(body: r.body, boundary: String(type.dropFirst("multipart/byteranges; boundary=".count)))
        #expect(parts.map(\.body) == (0..<16).map { Array(repo.pack[($0 * 100)..<($0 * 100 + 10)]) })
    }
}
