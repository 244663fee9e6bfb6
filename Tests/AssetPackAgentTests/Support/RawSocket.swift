import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare Unix stream connection to the agent, for requests no well-behaved client sends
/// (garbage, oversize, half-closed) and for many event streams at once.
final class RawSocket {
    let fd: Int32
    private(set) var received: [UInt8] = []
    private(set) var isClosedByPeer = false

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
        }
    }

    deinit { close(fd) }

    /// Sends everything it can; false when the peer closed the connection first.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads what is there within `timeout` (returns at once when nothing more can come).
    func readAvailable(timeout: TimeInterval) {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return }
        readNow()
    }

    /// Reads whatever is buffered without waiting.
    func readNow() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { received += buffer[..<n]; continue }
            if n == 0 { isClosedByPeer = true }
            return
        }
    }

    /// Reads until the peer closes or `timeout` passes; the whole response.
    func readToEnd(timeout: TimeInterval) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while !isClosedByPeer, Date() < deadline { readAvailable(timeout: max(0.001, deadline.timeIntervalSinceNow)) }
        return text
    }

    var text: String { String(decoding: received, as: UTF8.self) }

    /// The status code of the response received, if one began.
    var status: Int? {
        let line = text.prefix { $0 != "\r" }
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return nil }
        return Int(parts[1])
    }
}
