import AssetPackTransport
import Foundation
import TestSupport
import Testing

/// `file://` URLs answered as a static server would: whole files, ranges, and the errors of a
/// folder that is missing things or holds what is not a file.
@Suite struct FileTransportTests {
    let dir: TemporaryDirectory
    let bytes = patternBytes(3 << 20, seed: 5)
    let file: String

    init() throws {
        dir = try TemporaryDirectory("files")
        file = try dir.write("repo dir/packs/a b.pack", bytes)
    }

    var url: String { FileTransport.url(forPath: file) }

    @Test func urlsRoundTripAndOnlyAbsoluteFileURLsAreRead() {
        #expect(url.hasPrefix("file:///") && url.contains("repo%20dir/packs/a%20b.pack"))
        #expect(FileTransport.path(of: url) == file)
        #expect(FileTransport.path(of: "file://localhost/tmp/x") == "/tmp/x")
        #expect(FileTransport.path(of: "FILE:///tmp/x") == "/tmp/x")
        for bad in ["file://host/tmp/x", "file:tmp/x", "http://127.0.0.1/x", "file:///tmp/x%00y", "file:///tmp/x?y"] {
            #expect(FileTransport.path(of: bad) == nil, "\(bad)")
        }
    }

    @Test func wholeFileAndRanges() throws {
        let t = FileTransport()
        let whole = try t.send(HTTPRequest(url: url))
        #expect(whole.status == 200 && whole.body == bytes && whole.headers["Content-Length"] == String(bytes.count))
        let range = try t.send(HTTPRequest(url: url, range: ByteRange(first: 1000, last: 1999)))
        #expect(range.status == 206 && range.body == Array(bytes[1000...1999]))
        #expect(range.headers["Content-Range"] == "bytes 1000-1999/\(bytes.count)")
        let tail = try t.send(HTTPRequest(url: url, range: ByteRange(first: UInt64(bytes.count - 10), last: UInt64(bytes.count + 500))))
        #expect(tail.status == 206 && tail.body == Array(bytes.suffix(10)))
        let open = try t.send(HTTPRequest(url: url, range: ByteRange(first: 5)))
        #expect(open.status == 206 && open.body == Array(bytes.dropFirst(5)))
        let past = try t.send(HTTPRequest(url: url, range: ByteRange(first: UInt64(bytes.count))))
        #expect(past.status == 416 && past.headers["Content-Range"] == "bytes */\(bytes.count)")
        let head = try t.send(HTTPRequest(.head, url: url))
        #expect(head.status == 200 && head.body.isEmpty && head.headers["Content-Length"] == String(bytes.count))
    }

    @Test func streamsInBlocksAndWritesToADescriptor() throws {
        let t = FileTransport()
        var seen: [UInt8] = [], calls = 0, status = 0
        let stream = HTTPBodyStream(onResponse: { s, _ in status = s }, onBytes: { seen.append(contentsOf: $0); calls += 1 })
        _ = try t.send(HTTPRequest(url: url), to: .stream(stream), cancellation: nil)
        #expect(status == 200 && seen == bytes && calls >= 3)
        let out = dir.file("copy")
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let response = try t.send(HTTPRequest(url: url, range: ByteRange(first: 10, last: 2_000_009)), to: .fileDescriptor(fd), cancellation: nil)
        #expect(response.bodyByteCount == 2_000_000)
        #expect(FileManager.default.contents(atPath: out) == Data(bytes[10...2_000_009]))
    }

    @Test func missingFilesFoldersAndFIFOsAreErrorsNotHangs() throws {
        let t = FileTransport()
        #expect(try t.send(HTTPRequest(url: FileTransport.url(forPath: dir.file("nope.pack")))).status == 404)
        #expect(try t.send(HTTPRequest(url: FileTransport.url(forPath: dir.file("repo dir/packs")))).status == 403)
        let fifo = dir.file("fifo.pack")
        #expect(mkfifo(fifo, 0o600) == 0)
        let answer = try t.send(HTTPRequest(url: FileTransport.url(forPath: fifo)))
        #expect(answer.status == 403 && String(decoding: answer.body, as: UTF8.self).contains("not a regular file"))
        #expect(throws: TransportError.self) { try t.send(HTTPRequest(.put, url: url, body: .bytes([1]))) }
        #expect(throws: TransportError.self) { try t.send(HTTPRequest(url: url), to: .memory(limit: 1000), cancellation: nil) }
        let flag = CancellationFlag()
        flag.cancel()
        #expect(throws: TransportError.self) { try t.send(HTTPRequest(url: url), to: .memory, cancellation: flag) }
    }

    @Test func routingSendsFilesToTheFileTransportAndTheRestToTheNetwork() throws {
        let routing = SchemeRoutingTransport(network: try CurlTransport())
        #expect(try routing.send(HTTPRequest(url: url, range: ByteRange(first: 0, last: 9))).body == Array(bytes[0...9]))
        // The network side is libcurl: a connection refused on a closed loopback port.
        #expect(throws: TransportError.self) { try routing.send(HTTPRequest(url: "http://127.0.0.1:1/x")) }
    }
}
