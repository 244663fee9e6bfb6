import Foundation
import TestRepositories
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AssetPackServer

/// The access log counts the body bytes that actually left, not the length announced: a client
/// that hangs up early, or a fault that cuts the body, shows in the count.
@Suite struct AccessLogBytesSentTests {
    @Test func completeResponsesCountTheirBody() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        _ = try c.request("/packs/big.pack")
        _ = try c.request("/packs/big.pack", method: "HEAD")
        _ = try c.request("/packs/big.pack", headers: ["Range": "bytes=0-9,100-109"])
        let log = server.accessLog(containing: "\" 206 ")
        #expect(log.contains("\"GET /packs/big.pack HTTP/1.1\" 200 \(repo.pack.count)\n"))
        #expect(log.contains("\"HEAD /packs/big.pack HTTP/1.1\" 200 0\n"))
    }

    @Test func aCutBodyCountsWhatWasSent() throws {
        let repo = try TestRepository.servingBytes()
        var faults = FaultConfiguration()
        faults.dropAfterBytes = 1000
        let server = try repo.serve(faults: faults)
        let r = try RawHTTPConnection(port: server.port).request("/packs/big.pack")
        #expect(r.endedEarly && r.body.count == 1000)
        let log = server.accessLog(containing: "fault=cut@1000")
        #expect(log.contains("\"GET /packs/big.pack HTTP/1.1\" 200 1000 fault=cut@1000"))
    }

    /// A client that reads 100 KB of a 64 MB file and resets the connection: the log counts
    /// about what reached it. Both kinds of body: a file sent with sendfile, and a multipart
    /// body read through a callback.
    @Test(arguments: [nil, "bytes=0-99,1000-"])
    func aClientThatHangsUpEarlyIsCountedShort(range: String?) throws {
        let repo = try TestRepository.servingBytes()
        let size = 64 << 20
        try Data(count: size).write(to: URL(fileURLWithPath: repo.path + "/packs/huge.pack"))
        let server = try repo.serve()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        // Closed exactly once: a second close would close whatever another test has opened
        // under the same number since (another server's listening socket, say).
        var open = true
        defer { if open { close(fd) } }
        var small: Int32 = 16 * 1024
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(rc == 0)
        let request = "GET /packs/huge.pack HTTP/1.1\r\nHost: x\r\n" + (range.map { "Range: \($0)\r\n" } ?? "") + "\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while received < 100_000 {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            received += n
        }
        try #require(received >= 100_000)
        // Close with a reset, as a killed client's kernel does with unread data.
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
        open = false
        let log = server.accessLog(containing: "huge.pack")
        let line = try #require(log.split(separator: "\n").first { $0.contains("huge.pack") })
        let fields = line.split(separator: " ")
        let status = try #require(fields.firstIndex { $0.hasSuffix("\"") }.map { fields[$0 + 1] })
        #expect(status == (range == nil ? "200" : "206"))
        let logged = try #require(fields.firstIndex { $0.hasSuffix("\"") }.flatMap { UInt64(fields[$0 + 2]) }, "\(line)")
        // What the client's kernel acknowledged: what the client read (less the header block),
        // plus at most what its small receive buffer held unread. Not the 64 MB announced.
        #expect(logged >= UInt64(received) - 1000, "\(line), client read \(received)")
        #expect(logged <= UInt64(received) + 256 * 1024, "\(line), client read \(received)")
    }

    /// The header length the log subtracts is the one libmicrohttpd writes.
    @Test func headerLengthMatchesWhatTheClientReads() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let cases = [
            "GET /catalog.json HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /catalog.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /catalog.json HTTP/1.0\r\n\r\n",
            "GET /catalog.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
            "GET /packs/big.pack HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n",
            "GET /packs/big.pack HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9,20-29\r\n\r\n",
            "GET /packs/big.pack HTTP/1.1\r\nHost: x\r\nRange: bytes=999999-\r\n\r\n",
            "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n",
        ]
        for raw in cases {
            let c = try RawHTTPConnection(port: server.port)
            c.send(raw)
            var block: [UInt8] = []
            var byte: UInt8 = 0
            while !block.reversed().starts(with: [10, 13, 10, 13]), recv(c.fd, &byte, 1, 0) == 1 { block.append(byte) }
            let lines = String(decoding: block, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let statusParts = lines[0].split(separator: " ", maxSplits: 2)
            let status = try #require(Int(statusParts[1]))
            var fields: [(String, String)] = []
            var contentLength: UInt64 = 0
            for line in lines.dropFirst() {
                let colon = try #require(line.firstIndex(of: ":"))
                let name = String(line[..<colon]), value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                switch name.lowercased() {
                case "date", "connection": break
                case "content-length": contentLength = UInt64(value) ?? 0
                default: fields.append((name, value))
                }
            }
            let requestLines = raw.components(separatedBy: "\r\n")
            let version = String(requestLines[0].split(separator: " ")[2])
            let connection = requestLines.first { $0.lowercased().hasPrefix("connection:") }.map { String($0.dropFirst("connection:".count)) }
            let computed = responseHeaderLength(status: status, reason: String(statusParts[2]), fields: fields, contentLength: contentLength,
                                                requestVersion: version, connectionHeader: connection)
            #expect(computed == UInt64(block.count), "\(raw.debugDescription)")
        }
    }
}
