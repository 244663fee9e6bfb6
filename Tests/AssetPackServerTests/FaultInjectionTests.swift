import Foundation
import TestRepositories
import Testing
@testable import AssetPackServer

@Suite struct FaultInjectionTests {
    private func faults(_ change: (inout FaultConfiguration) -> Void) -> FaultConfiguration {
        var f = FaultConfiguration()
        f.seed = 42
        change(&f)
        return f
    }

    @Test func failRateAnswers503ForPacksOnly() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve(faults: faults { $0.failRate = 1 })
        let c = try RawHTTPConnection(port: server.port)
        let pack = try c.request("/packs/small.pack")
        #expect(pack.status == 503)
        #expect(pack.header("Retry-After") == "1")
        #expect(try c.request("/catalog.json").body == TestRepository.stubCatalog)
        #expect(server.accessLog(containing: "fault=fail").contains("\" 503 "))
    }

    @Test func faultCatalogExtendsFaultsToTheCatalog() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve(faults: faults { $0.failRate = 1; $0.includeCatalog = true })
        #expect(try RawHTTPConnection(port: server.port).request("/catalog.json").status == 503)
    }

    @Test func seedMakesFaultsReproducible() throws {
        let repo = try TestRepository.servingBytes()
        func statuses(seed: UInt64) throws -> [Int] {
            let server = try repo.serve(faults: faults { $0.failRate = 0.5; $0.seed = seed })
            let c = try RawHTTPConnection(port: server.port)
            return try (0..<24).map { _ in try c.request("/packs/small.pack").status }
        }
        let first = try statuses(seed: 7)
        #expect(first.contains(503) && first.contains(200))
        #expect(try statuses(seed: 7) == first)
    }

    @Test func latencyDelaysTheResponse() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve(faults: faults { $0.latencyMilliseconds = 300 })
        let c = try RawHTTPConnection(port: server.port)
        let start = Date()
        let r = try c.request("/packs/small.pack")
        #expect(Date().timeIntervalSince(start) >= 0.3)
        #expect(r.body == repo.smallPack)
    }

    @Test func bandwidthThrottlesTheBody() throws {
        let repo = try TestRepository.servingBytes(packSize: 60_000)
        let server = try repo.serve(faults: faults { $0.bandwidthBytesPerSecond = 100_000 })
        let c = try RawHTTPConnection(port: server.port)
        let start = Date()
        let r = try c.request("/packs/big.pack")
        // 60 000 bytes at 100 000 B/s cannot arrive in less than 0.6 s.
        #expect(Date().timeIntervalSince(start) >= 0.55)
        #expect(r.body == repo.pack)
    }

    @Test func dropAfterClosesTheConnectionMidBody() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve(faults: faults { $0.dropAfterBytes = 1000 })
        let c = try RawHTTPConnection(port: server.port)
        let r = try c.request("/packs/big.pack")
        #expect(r.header("Content-Length") == String(repo.pack.count))
        #expect(r.endedEarly)
        #expect(r.body == Array(repo.pack.prefix(1000)))
        #expect(c.isClosedByPeer())
        // A range shorter than the limit is untouched.
        let short = try RawHTTPConnection(port: server.port).request("/packs/big.pack", headers: ["Range": "bytes=0-99"])
        #expect(!short.endedEarly && short.body == Array(repo.pack.prefix(100)))
    }

    @Test func truncateRateEndsBodiesEarly() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve(faults: faults { $0.truncateRate = 1 })
        for _ in 0..<3 {
            let c = try RawHTTPConnection(port: server.port)
            let r = try c.request("/packs/big.pack", headers: ["Range": "bytes=1000-"])
            #expect(r.status == 206)
            #expect(r.endedEarly)
            #expect(r.body.count < repo.pack.count - 1000)
            #expect(r.body == Array(repo.pack[1000..<(1000 + r.body.count)]))
        }
    }

    @Test func corruptRateFlipsOneByte() throws {
        let repo = try TestRepository.servingBytes()
        let pack = repo.pack
        func corruptedOffsets() throws -> [Int] {
            let server = try repo.serve(faults: faults { $0.corruptRate = 1 })
            let c = try RawHTTPConnection(port: server.port)
            return try (0..<3).map { _ in
                let r = try c.request("/packs/big.pack")
                #expect(r.status == 200 && r.body.count == pack.count && !r.endedEarly)
                let differing = r.body.indices.filter { r.body[$0] != pack[$0] }
                #expect(differing.count == 1)
                if let i = differing.first { #expect(r.body[i] == pack[i] ^ 0xFF) }
                return differing.first ?? -1
            }
        }
        let offsets = try corruptedOffsets()
        #expect(try corruptedOffsets() == offsets)  // same seed, same corruption
        // Multipart bodies are corrupted too, and the catalog is left alone.
        let server = try repo.serve(faults: faults { $0.corruptRate = 1 })
        let c = try RawHTTPConnection(port: server.port)
        #expect(try c.request("/catalog.json").body == TestRepository.stubCatalog)
    }
}
