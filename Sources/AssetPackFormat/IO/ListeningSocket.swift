#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket could not be made: `address` is `host:port` as asked, `reason` why.
package struct ListeningSocketError: Error, Sendable {
    package let address: String
    package let reason: String
}

/// The servers' listening TCP sockets (the repository server, the key server, the agent's share):
/// bound to `host:port` (a numeric address, or a name), listening, non-blocking, close-on-exec.
/// Binds and listens on `host:port` (numeric address or name), returning the socket and the
/// port actually bound (the free one the kernel picked when `port` is 0). `backlog` is how many
/// connections the kernel queues before the server accepts them (capped by net.core.somaxconn):
/// a burst of that many clients connecting at once is queued rather than refused.
package func makeListeningSocket(host: String, port: UInt16, backlog: Int32 = 1024) throws(ListeningSocketError) -> (fd: Int32, port: UInt16) {
    let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &list)
    guard rc == 0, let first = list else { throw ListeningSocketError(address: address, reason: String(cString: gai_strerror(rc))) }
    defer { freeaddrinfo(list) }
    let info = first.pointee
    let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw ListeningSocketError(address: address, reason: String(cString: strerror(errno))) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    guard bind(fd, info.ai_addr, info.ai_addrlen) == 0, listen(fd, backlog) == 0 else {
        let why = String(cString: strerror(errno))
        close(fd)
        throw ListeningSocketError(address: address, reason: why)
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var bound = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let ok = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    guard ok == 0 else { close(fd); throw ListeningSocketError(address: address, reason: String(cString: strerror(errno))) }
    let family = Int32(bound.ss_family)
    let boundPort: UInt16 = withUnsafePointer(to: &bound) { p in
        if family == AF_INET6 {
            return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
    }
    return (fd, boundPort)
}

/// The numeric host of a socket address, e.g. "127.0.0.1", or "-" if it has none.
package func numericHost(_ address: UnsafePointer<sockaddr>?) -> String {
    guard let address else { return "-" }
    let length = socklen_t(Int32(address.pointee.sa_family) == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { return "-" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
