import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket for the agent's `--share` server: bound to `host:port` (a numeric
/// address, or a name), non-blocking, close-on-exec. `port` 0 takes a free port; `port` says
/// which was bound.
struct TCPListeningSocket {
    let descriptor: Int32
    let port: UInt16

    init(host: String, port: UInt16) throws(AgentServiceError) {
        let display = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let info = list?.pointee else { throw .share(address: display, reason: String(cString: gai_strerror(rc))) }
        defer { freeaddrinfo(list) }
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .share(address: display, reason: String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0, listen(fd, 1024) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .share(address: display, reason: why)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let family = Int32(bound.ss_family)
        self.port = withUnsafePointer(to: &bound) { p in
            family == AF_INET6 ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        descriptor = fd
    }

    /// The numeric host of a socket address ("127.0.0.1", "::1"), or "-".
    static func numericHost(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "-" }
        let length = socklen_t(Int32(address.pointee.sa_family) == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { return "-" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
