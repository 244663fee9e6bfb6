import Foundation
import TestRepositories
import Testing
@testable import AssetPackServer

@Suite struct ServerHTTPTests {
    @Test func servesFilesWithTypesCacheHeadersAndKeepAlive() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let catalog = try c.request("/catalog.json")
        repo.expectCatalog(catalog)
        #expect(catalog.header("ETag")?.hasPrefix("\"") == true)
        #expect(catalog.header("Last-Modified").flatMap(HTTPDate.parse) != nil)
        // Same connection: keep-alive.
        let pack = try c.request("/packs/big.pack")
        #expect(pack.status == 200)
        #expect(pack.body == repo.pack)
        #expect(pack.header("Content-Type") == "application/octet-stream")
        #expect(pack.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(pack.header("Accept-Ranges") == "bytes")
        #expect(pack.header("Connection")?.lowercased() != "close")
        // Kept root versions are cached forever; root.json and timestamp.json for a minute.
        try repo.place("roots/1.root.json", Array("{}".utf8))
        try repo.place("root.json", Array("{}".utf8))
        let kept = try c.request("/roots/1.root.json")
        #expect(kept.status == 200 && kept.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(try c.request("/root.json").header("Cache-Control") == "public, max-age=60")
        let log = server.accessLog(containing: "big.pack")
        #expect(log.contains("127.0.0.1 - - ["))
        #expect(log.contains("\"GET /packs/big.pack HTTP/1.1\" 200 \(repo.pack.count)"))
    }

    @Test func headSendsHeadersOnly() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let head = try c.request("/packs/big.pack", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(repo.pack.count))
        #expect(head.header("ETag") != nil)
        // If HEAD had sent a body, this response would start inside it.
        let next = try c.request("/packs/small.pack")
        #expect(next.status == 200)
        #expect(next.body == repo.smallPack)
    }

    @Test func singleSuffixAndOpenEndedRanges() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let n = repo.pack.count
        for (header, range) in [("bytes=100-199", 100..<200), ("bytes=-500", (n - 500)..<n), ("bytes=\(n - 10)-", (n - 10)..<n), ("bytes=0-0", 0..<1)] {
            let r = try c.request("/packs/big.pack", headers: ["Range": header])
            #expect(r.status == 206, "\(header)")
            #expect(r.body == Array(repo.pack[range]), "\(header)")
            #expect(r.header("Content-Range") == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(n)")
            #expect(r.header("Content-Length") == String(range.count))
        }
    }

    @Test func multipleRangesAreMultipart() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let r = try c.request("/packs/big.pack", headers: ["Range": "bytes=0-9, 1000-1099, -5"])
        #expect(r.status == 206)
        let type = try #require(r.header("Content-Type"))
        #expect(type.hasPrefix("multipart/byteranges; boundary="))
        let boundary = String(type.dropFirst("multipart/byteranges; boundary=".count))
        let parts = MultipartParts(body: r.body, boundary: boundary)
        let n = repo.pack.count
        #expect(parts.map(\.contentRange) == ["bytes 0-9/\(n)", "bytes 1000-1099/\(n)", "bytes \(n - 5)-\(n - 1)/\(n)"])
        #expect(parts.map(\.body) == [Array(repo.pack[0..<10]), Array(repo.pack[1000..<1100]), Array(repo.pack[(n - 5)...])])
        // The connection stays usable after a multipart body.
        #expect(try c.request("/catalog.json").body == TestRepository.stubCatalog)
    }

    @Test func unsatisfiableRangeIs416() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let r = try c.request("/packs/small.pack", headers: ["Range": "bytes=5000-6000"])
        #expect(r.status == 416)
        #expect(r.header("Content-Range") == "bytes */1000")
        // A malformed Range is ignored: the whole file.
        let whole = try c.request("/packs/small.pack", headers: ["Range": "bytes=x-y"])
        #expect(whole.status == 200 && whole.body == repo.smallPack)
    }

    @Test func conditionalRequests() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let first = try c.request("/packs/small.pack")
        let etag = try #require(first.header("ETag"))
        let modified = try #require(first.header("Last-Modified"))
        let notModified = try c.request("/packs/small.pack", headers: ["If-None-Match": "\"other\", \(etag)"])
        #expect(notModified.status == 304)
        #expect(notModified.header("ETag") == etag)
        #expect(try c.request("/packs/small.pack", headers: ["If-None-Match": "\"other\""]).status == 200)
        #expect(try c.request("/packs/small.pack", headers: ["If-Modified-Since": modified]).status == 304)
        #expect(try c.request("/packs/small.pack", headers: ["If-Match": "\"other\""]).status == 412)
        // If-Range: the range only while the validator still matches.
        let ranged = try c.request("/packs/small.pack", headers: ["Range": "bytes=0-9", "If-Range": etag])
        #expect(ranged.status == 206 && ranged.body == Array(repo.smallPack[0..<10]))
        let byDate = try c.request("/packs/small.pack", headers: ["Range": "bytes=0-9", "If-Range": modified])
        #expect(byDate.status == 206)
        let stale = try c.request("/packs/small.pack", headers: ["Range": "bytes=0-9", "If-Range": "\"stale\""])
        #expect(stale.status == 200 && stale.body == repo.smallPack)
        // Rewriting the file changes the tag.
        try Data(repo.smallPack.reversed()).write(to: URL(fileURLWithPath: repo.path + "/packs/small.pack"))
        let changed = try c.request("/packs/small.pack", headers: ["If-None-Match": etag])
        #expect(changed.status == 200)
        #expect(changed.header("ETag") != etag)
    }

    @Test func neverServesOutsideTheRepository() throws {
        let repo = try TestRepository.servingBytes()
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/escape.json", withDestinationPath: repo.dir.file("secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/packs/outside", withDestinationPath: repo.dir.path)
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/alias.json", withDestinationPath: "catalog.json")
        let server = try repo.serve()
        let attempts = ["/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/packs/..%2f..%2fsecret.txt", "/packs/%2e%2e/%2e%2e/secret.txt",
                        "/escape.json", "/packs/outside/secret.txt", "/./../secret.txt"]
        for path in attempts {
            let r = try RawHTTPConnection(port: server.port).request(path)
            #expect(r.status == 403 || r.status == 404, "\(path) → \(r.status)")
            #expect(!r.text.contains("top secret"), "\(path)")
        }
        #expect(try RawHTTPConnection(port: server.port).request("/escape.json").status == 403)
        // A symlink that stays inside is fine; folders and hidden files are not listed or served.
        #expect(try RawHTTPConnection(port: server.port).request("/alias.json").body == TestRepository.stubCatalog)
        #expect(try RawHTTPConnection(port: server.port).request("/packs").status == 404)
        #expect(try RawHTTPConnection(port: server.port).request("/").status == 404)
        try Data("x".utf8).write(to: URL(fileURLWithPath: repo.path + "/.staging"))
        #expect(try RawHTTPConnection(port: server.port).request("/.staging").status == 404)
    }

    @Test func malformedRequestsGet400AndTheServerCarriesOn() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        // libmicrohttpd 0.9.75 closes the connection without a response when the request line
        // has no target at all; every other malformed request gets a 400.
        for raw in ["GARBAGE\r\n\r\n", "GET\r\n\r\n"] {
            let c = try RawHTTPConnection(port: server.port)
            c.send(raw)
            let status = (try? c.readResponse().status) ?? 0
            #expect(status == 400 || status == 0, "\(raw.debugDescription) → \(status)")
        }
        for raw in ["GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", "GET / FOO/1.1\r\nHost: x\r\n\r\n", "GET /catalog.json HTTP/1.1\r\n\r\n",
                    "GET /catalog.json HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
                    "GET /catalog.json%00 HTTP/1.1\r\nHost: x\r\n\r\n", "GET catalog.json HTTP/1.1\r\nHost: x\r\n\r\n",
                    "GET /catalog.json HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"] {
            let c = try RawHTTPConnection(port: server.port)
            c.send(raw)
            let status = (try? c.readResponse().status) ?? 0
            #expect(status == 400, "\(raw.debugDescription) → \(status)")
        }
        let post = try RawHTTPConnection(port: server.port).request("/catalog.json", method: "POST")
        #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
        #expect(try RawHTTPConnection(port: server.port).request("/catalog.json").body == TestRepository.stubCatalog)
    }

    @Test func serves256ConcurrentConnections() throws {
        let repo = try TestRepository.servingBytes(packSize: 64 * 1024)
        let pack = repo.pack
        let server = try repo.serve()
        let connections = try (0..<256).map { _ in try RawHTTPConnection(port: server.port) }
        for (i, c) in connections.enumerated() {
            c.send("GET /\(i % 2 == 0 ? "catalog.json" : "packs/big.pack") HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        var ok = 0
        for (i, c) in connections.enumerated() {
            let r = try c.readResponse()
            if r.status == 200 && r.body == (i % 2 == 0 ? TestRepository.stubCatalog : pack) { ok += 1 }
        }
        #expect(ok == 256)
    }

    @Test func missingOrUnreadableDirectoryFailsAtStart() throws {
        let repo = try TestRepository.servingBytes()
        #expect(throws: ServerError.directory(repo.path + "/nope", "No such file or directory")) {
            try RepositoryServer(directory: repo.path + "/nope", configuration: ServerConfiguration())
        }
        #expect(throws: ServerError.directory(repo.path + "/catalog.json", "not a directory")) {
            try RepositoryServer(directory: repo.path + "/catalog.json", configuration: ServerConfiguration())
        }
    }
}

/// The parts of a multipart/byteranges body.
struct MultipartParts: Sequence {
    struct Part { var contentRange: String; var body: [UInt8] }
    let parts: [Part]

    init(body: [UInt8], boundary: String) {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Part] = []
        var rest = body[...]
        while let start = rest.firstRange(of: delimiter) {
            rest = rest[start.upperBound...]
            if rest.starts(with: Array("--".utf8)) { break }
            guard let headEnd = rest.firstRange(of: Array("\r\n\r\n".utf8)) else { break }
            let head = String(decoding: rest[..<headEnd.lowerBound], as: UTF8.self)
            let range = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-range:") }
                .map { String($0.dropFirst("content-range:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
            let bodyStart = headEnd.upperBound
            let next = rest[bodyStart...].firstRange(of: Array("\r\n".utf8) + delimiter)?.lowerBound ?? rest.endIndex
            parts.append(Part(contentRange: range, body: Array(rest[bodyStart..<next])))
            rest = rest[next...]
        }
        self.parts = parts
    }

    func makeIterator() -> IndexingIterator<[Part]> { parts.makeIterator() }
}
