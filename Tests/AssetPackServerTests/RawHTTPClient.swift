import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP response as read off the wire.
struct RawResponse {
    var status: Int
    var headers: [String: String]  // lowercased names
    var body: [UInt8]
    /// Whether the server closed the connection before sending all of Content-Length.
    var endedEarly: Bool

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum RawHTTPError: Error { case connect(Int32), closedBeforeHeaders, malformed(String) }

/// A plain TCP client that writes requests byte for byte and reads responses exactly, so tests
/// can see what a browser or URLSession would hide: dropped connections, short bodies, keep-alive.
final class RawHTTPConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeoutSeconds: Int = 20) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { let e = errno; close(fd); throw RawHTTPError.connect(e) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ raw: String) {
        let bytes = Array(raw.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            done += n
        }
    }

    /// Sends `GET`/`HEAD` for `path` with extra header lines and reads the response.
    func request(_ path: String, method: String = "GET", headers: [String: String] = [:]) throws -> RawResponse {
        var lines = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { lines += "\(k): \(v)\r\n" }
        send(lines + "\r\n")
        return try readResponse(head: method == "HEAD")
    }

    /// Reads one response; the body is Content-Length bytes, or everything until the server closes.
    func readResponse(head: Bool = false) throws -> RawResponse {
        var headerEnd: Int?
        while headerEnd == nil {
            if let r = buffer.firstRange(of: [13, 10, 13, 10]) { headerEnd = r.upperBound; break }
            guard fill() else { throw RawHTTPError.closedBeforeHeaders }
        }
        let headText = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd!)
        var lines = headText.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError.malformed(headText) }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var response = RawResponse(status: status, headers: headers, body: [], endedEarly: false)
        if head || status == 304 { return response }
        if let length = headers["content-length"].flatMap(Int.init) {
            while buffer.count < length && fill() {}
            response.endedEarly = buffer.count < length
            let n = min(length, buffer.count)
            response.body = Array(buffer[..<n])
            buffer.removeFirst(n)
        } else {
            while fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Whether the server has closed the connection (reads EOF).
    func isClosedByPeer() -> Bool { buffer.isEmpty && !fill() }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }
}
