import AssetPackTransport
import Foundation
import TestSupport
import Testing

/// GET, Range, HEAD, statuses, redirects and destinations against nginx on loopback.
@Suite struct HTTPTransferTests {
    let root: TemporaryDirectory
    let content = patternBytes(300_000, seed: 7)
    let nginx: NginxServer
    let transport: CurlTransport

    init() throws {
        root = try TemporaryDirectory("transport-root")
        try root.write("file.bin", content)
        try root.write("empty.bin", [])
        nginx = try NginxServer(root: root.path, locations: """
            location = /moved { return 302 /file.bin; }
            location /uploads/ { dav_methods PUT; create_full_put_path on; client_max_body_size 10m; }
            """)
        transport = try CurlTransport()
    }

    @Test func getReturnsTheWholeBody() throws {
        let response = try transport.send(HTTPRequest(url: nginx.url("/file.bin"))).requireSuccess()
        #expect(response.status == 200)
        #expect(response.body == content)
        #expect(response.bodyByteCount == UInt64(content.count))
        #expect(response.url == nginx.url("/file.bin"))
        #expect(response.httpVersion == "1.1")
    }

    @Test func rangeGetReturns206WithExactlyThoseBytes() throws {
        let range = try #require(ByteRange(offset: 1000, length: 4096))
        let response = try transport.send(HTTPRequest(url: nginx.url("/file.bin"), range: range))
        #expect(response.status == 206)
        #expect(response.body == Array(content[1000..<5096]))
        #expect(response.headers["content-range"] == "bytes 1000-5095/\(content.count)")
        let tail = try transport.send(HTTPRequest(url: nginx.url("/file.bin"), range: ByteRange(first: 299_990)))
        #expect(tail.status == 206)
        #expect(tail.body == Array(content[299_990...]))
    }

    @Test func headReportsTheSizeWithoutABody() throws {
        let response = try transport.send(HTTPRequest(.head, url: nginx.url("/file.bin")))
        #expect(response.status == 200)
        #expect(response.headers["Content-Length"] == String(content.count))
        #expect(response.headers["CONTENT-LENGTH"] == String(content.count))
        #expect(response.body.isEmpty)
    }

    @Test func missingFileGives404ErrorWithTheURL() throws {
        let url = nginx.url("/missing.bin")
        let response = try transport.send(HTTPRequest(url: url))
        #expect(response.status == 404)
        #expect(!response.body.isEmpty, "the error page is kept for the message")
        do {
            try response.requireSuccess()
            Issue.record("404 accepted")
        } catch {
            #expect(error.httpStatus == 404)
            #expect("\(error)".contains(url))
            #expect(!error.isTransient)
        }
    }

    @Test func redirectIsReturnedNotFollowed() throws {
        let response = try transport.send(HTTPRequest(url: nginx.url("/moved")))
        #expect(response.status == 302)
        #expect(response.isRedirect)
        #expect(response.redirectURL == nginx.url("/file.bin"))
        #expect(response.body != content)
    }

    @Test func bodyToFileDescriptor() throws {
        let out = try TemporaryDirectory("transport-out")
        let path = out.file("copy.bin")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        let response = try transport.send(HTTPRequest(url: nginx.url("/file.bin")), to: .fileDescriptor(fd), cancellation: nil)
        close(fd)
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == content)
    }

    @Test func memoryLimitAbortsALargerBody() throws {
        #expect {
            try transport.send(HTTPRequest(url: nginx.url("/file.bin")), to: .memory(limit: 1000), cancellation: nil)
        } throws: { error in
            guard case TransportError.aborted = error else { return false }
            return "\(error)".contains("larger than 1000")
        }
    }

    @Test func emptyBodyStillReportsTheResponseToAStream() throws {
        let seen = Box<Int?>(nil)
        let stream = HTTPBodyStream(onResponse: { status, _ in seen.value = status }, onBytes: { _ in Issue.record("bytes for an empty body") })
        let response = try transport.send(HTTPRequest(url: nginx.url("/empty.bin")), to: .stream(stream), cancellation: nil)
        #expect(response.status == 200)
        #expect(seen.value == 200)
    }

    @Test func connectionsAreKeptAlive() throws {
        let first = try transport.send(HTTPRequest(.head, url: nginx.url("/file.bin")))
        let second = try transport.send(HTTPRequest(url: nginx.url("/file.bin"), range: ByteRange(offset: 0, length: 10)))
        #expect(first.newConnectionCount == 1)
        #expect(second.newConnectionCount == 0)
    }

    @Test func concurrentRangeRequestsFromManyThreads() throws {
        let results = Box<[Int: [UInt8]]>([:])
        let lock = NSLock()
        let failures = Box<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            do {
                let range = ByteRange(offset: UInt64(i * 10_000), length: 10_000)!
                let body = try transport.send(HTTPRequest(url: nginx.url("/file.bin"), range: range)).requireSuccess().body
                lock.withLock { results.value[i] = body }
            } catch {
                lock.withLock { failures.value.append("\(error)") }
            }
        }
        #expect(failures.value.isEmpty)
        for i in 0..<16 { #expect(results.value[i] == Array(content[(i * 10_000)..<((i + 1) * 10_000)])) }
    }

    @Test func putSendsASectionOfAFile() throws {
        let source = try TemporaryDirectory("put-section")
        let path = try source.write("body.bin", content)
        let put = HTTPRequest(.put, url: nginx.url("/uploads/section.bin"), body: .fileSection(path: path, offset: 123_457, length: 100_000))
        try transport.send(put).requireSuccess()
        #expect(try transport.send(HTTPRequest(url: nginx.url("/uploads/section.bin"))).body == Array(content[123_457..<223_457]))
        let tooLong = HTTPRequest(.put, url: nginx.url("/uploads/x"), body: .fileSection(path: path, offset: 250_000, length: 50_001))
        #expect { try transport.send(tooLong) } throws: { error in
            guard case TransportError.file(let failed, let message) = error else { return false }
            return failed == path && message.contains("shorter")
        }
    }

    @Test func putSendsBytesAndFiles() throws {
        let created = try transport.send(HTTPRequest(.put, url: nginx.url("/uploads/a/bytes.bin"), body: .bytes([1, 2, 3])))
        #expect(created.status == 201)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: root.file("uploads/a/bytes.bin")))) == [1, 2, 3])
        let source = try TemporaryDirectory("put-source")
        let path = try source.write("body.bin", content)
        try transport.send(HTTPRequest(.put, url: nginx.url("/uploads/file.bin"), body: .file(path: path))).requireSuccess()
        #expect(try transport.send(HTTPRequest(url: nginx.url("/uploads/file.bin"))).body == content)
        #expect { try transport.send(HTTPRequest(.put, url: nginx.url("/uploads/x"), body: .file(path: source.file("missing")))) } throws: { error in
            guard case TransportError.file(let failed, _) = error else { return false }
            return failed == source.file("missing")
        }
        #expect(throws: TransportError.self) { try transport.send(HTTPRequest(.get, url: nginx.url("/file.bin"), body: .bytes([1]))) }
    }

    @Test func refusesNonHTTPSchemes() {
        #expect(throws: TransportError.self) { try transport.send(HTTPRequest(url: "file:///etc/passwd")) }
    }

    @Test func asyncFormReturnsTheSameResponse() async throws {
        let response = try await transport.response(for: HTTPRequest(url: nginx.url("/file.bin"), range: ByteRange(offset: 5, length: 5)))
        #expect(response.body == Array(content[5..<10]))
    }
}

/// A mutable cell for test closures (the closures run on the transfer thread, one at a time).
final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
