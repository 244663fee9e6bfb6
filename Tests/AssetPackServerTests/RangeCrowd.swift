import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Many keep-alive connections to one server, each sending one Range request, all open at the
/// same time: every connection is made and its request sent before any response is read, and
/// none is closed until every response has been read (or the deadline passed). One thread
/// reads them all with poll(2).
final class RangeCrowd {
    struct Outcome {
        /// Connections the kernel refused or that failed to open (errno per failure).
        var connectFailures: [Int32] = []
        /// Responses that were not a `206` with exactly the asked bytes, with why.
        var wrong: [String] = []
        /// Responses that were `206` with exactly the asked bytes.
        var exact = 0
    }

    private var fds: [Int32] = []
    private var ranges: [Range<Int>] = []

    deinit { closeAll() }

    /// Opens one connection per range to 127.0.0.1:`port` and sends each its request for `path`.
    func connectAndRequest(port: UInt16, path: String, ranges: [Range<Int>]) -> [Int32] {
        var failures: [Int32] = []
        for range in ranges {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard fd >= 0, rc == 0 else { failures.append(errno); if fd >= 0 { close(fd) }; continue }
            let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=\(range.lowerBound)-\(range.upperBound - 1)\r\n\r\n".utf8)
            guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                failures.append(errno); close(fd); continue
            }
            fds.append(fd)
            self.ranges.append(range)
        }
        return failures
    }

    /// Reads every connection's response (its headers and Content-Length bytes) and checks it
    /// against `file`; connections stay open. Gives up on those unfinished at `deadline`.
    func readResponses(expecting file: [UInt8], deadline: ContinuousClock.Instant) -> Outcome {
        var outcome = Outcome()
        var received = [[UInt8]](repeating: [], count: fds.count)
        var pending = Set(fds.indices)
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        while !pending.isEmpty, ContinuousClock.now < deadline {
            var polled = pending.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            let order = Array(pending)
            guard poll(&polled, nfds_t(polled.count), 200) >= 0 || errno == EINTR else { break }
            for (k, p) in polled.enumerated() where p.revents != 0 {
                let i = order[k]
                let n = buffer.withUnsafeMutableBytes { recv(fds[i], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 { received[i] += buffer[0..<n] }
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || Self.isComplete(received[i]) { pending.remove(i) }
            }
        }
        for (i, bytes) in received.enumerated() {
            if let why = Self.problem(bytes, range: ranges[i], file: file) { outcome.wrong.append("range \(ranges[i]): \(why)") } else { outcome.exact += 1 }
        }
        return outcome
    }

    func closeAll() {
        for fd in fds { close(fd) }
        fds = []
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i + 4 }
        return nil
    }

    private static func contentLength(_ head: String) -> Int? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    }

    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let end = headerEnd(bytes), let length = contentLength(String(decoding: bytes[..<end], as: UTF8.self)) else { return false }
        return bytes.count >= end + length
    }

    private static func problem(_ bytes: [UInt8], range: Range<Int>, file: [UInt8]) -> String? {
        guard let end = headerEnd(bytes) else { return "no complete response head in \(bytes.count) bytes" }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 206 ") else { return "status line \(head.prefix { $0 != "\r" })" }
        let contentRange = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(file.count)"
        guard head.lowercased().contains("content-range: \(contentRange)") else { return "no Content-Range: \(contentRange)" }
        guard Array(bytes[end...]) == Array(file[range]) else { return "\(bytes.count - end) body bytes differ from the file's" }
        return nil
    }
}
