import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on `port`, or on a port the kernel picks (0). A given port is
/// bound with SO_REUSEADDR, so that the connections a server just closed (in TIME_WAIT) do not
/// stand in the way.
func boundLoopbackSocket(port: UInt16 = 0) throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
    if port != 0 {
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else { close(fd); throw TestSupportError("bind 127.0.0.1:\(port): errno \(errno)") }
    return (fd, UInt16(bigEndian: address.sin_port))
}

/// A port on 127.0.0.1 that was free a moment ago (bound, read, released), for a server that
/// takes its port on the command line. Callers retry if another process takes it first.
public func freeLoopbackPort() throws -> UInt16 {
    let (fd, port) = try boundLoopbackSocket()
    close(fd)
    return port
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
public func isListening(port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A server that listens on 127.0.0.1 and never accepts: the kernel completes the TCP handshake,
/// then nothing is ever read or answered. For timeout and cancellation tests.
public final class SilentServer: @unchecked Sendable {
    public let port: UInt16
    private let fd: Int32

    public init() throws {
        (fd, port) = try boundLoopbackSocket()
        guard listen(fd, 64) == 0 else { close(fd); throw TestSupportError("listen: errno \(errno)") }
    }

    deinit { close(fd) }

    public var url: String { "http://127.0.0.1:\(port)/never" }

    /// Whether a client has connected and waits to be accepted (the listening socket is readable):
    /// the moment a request to `url` is under way and can only wait.
    public var hasWaitingConnection: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }
}

/// A port on 127.0.0.1 that refuses every connection for as long as this object lives: bound and
/// never listening, so that no other test's server can take it meanwhile (a stopped server's
/// port can be, and then answers in its place). For "the server is down" tests.
public final class RefusingPort: @unchecked Sendable {
    public let port: UInt16
    private let fd: Int32

    public init() throws { (fd, port) = try boundLoopbackSocket() }

    /// Holds `port`, which a server just stopped listening on: from now on it refuses.
    public init(holding port: UInt16) throws { (fd, self.port) = try boundLoopbackSocket(port: port) }

    deinit { close(fd) }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }
}

/// Whether a Unix stream socket bound at `path` is listening, read from the kernel's table
/// (`/proc/net/unix`, flag `__SO_ACCEPTCON`) rather than by connecting: a connection would
/// start a socket-activated service. The file exists from `bind`, before `listen`, and a
/// connection in between is refused. The table is read line by line to its end: it has a line
/// for every socket on the machine, and a file of `/proc` reports no size to read up to.
public func isListening(unixSocket path: String) -> Bool {
    guard let table = fopen("/proc/net/unix", "r") else { return false }
    defer { fclose(table) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    var header = true
    while getline(&line, &capacity, table) > 0 {
        if header { header = false; continue }
        let text = String(decoding: UnsafeRawBufferPointer(start: line!, count: strlen(line!)), as: UTF8.self)
        let fields = text.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: true)
        // Num RefCount Protocol Flags Type St Inode Path
        guard fields.count == 8, fields[7].hasSuffix("\n") ? fields[7].dropLast() == path : fields[7] == path,
              let flags = UInt32(fields[3], radix: 16) else { continue }
        if flags & 0x10000 != 0 { return true }
    }
    return false
}
