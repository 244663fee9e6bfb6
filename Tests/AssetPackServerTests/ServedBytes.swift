import Foundation
import TestRepositories
import TestSupport
import Testing

/// What the server tests serve: a stub catalog and two packs of known bytes placed in a
/// `TestRepository` as they are (the server serves bytes, whatever they hold), and
/// `secret.txt` beside the repository folder, which no request may reach.
extension TestRepository {
    static let stubCatalog = Array("{\"version\": 1, \"packs\": []}\n".utf8)

    static func servingBytes(packSize: Int = 300_000) throws -> TestRepository {
        let repo = try TestRepository("server")
        let pack = patternBytes(packSize, seed: 1)
        try repo.place("catalog.json", stubCatalog)
        try repo.place("packs/big.pack", pack)
        try repo.place("packs/small.pack", Array(pack.prefix(1000)))
        try repo.dir.write("secret.txt", "top secret\n")
        return repo
    }

    /// packs/big.pack as placed.
    var pack: [UInt8] { contents("packs/big.pack") ?? [] }
    /// packs/small.pack as placed.
    var smallPack: [UInt8] { contents("packs/small.pack") ?? [] }

    /// Checks a response to `GET /catalog.json`: the bytes, the JSON type, the short cache life.
    func expectCatalog(_ r: RawResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 200, sourceLocation: sourceLocation)
        #expect(r.body == Self.stubCatalog, sourceLocation: sourceLocation)
        #expect(r.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
        #expect(r.header("Cache-Control") == "public, max-age=60", sourceLocation: sourceLocation)
    }
}
