import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// systemd's socket activation protocol (sd_listen_fds): the service manager passes listening
/// sockets from descriptor 3 on and says so in `LISTEN_FDS` (how many) and `LISTEN_PID` (for
/// which process, so that a child never takes its parent's sockets).
enum SocketActivation {
    static let firstDescriptor: Int32 = 3

    /// The listening Unix stream socket passed to this process, with the path it is bound to,
    /// or nil when none was passed. The variables are removed so that children do not see them.
    static func inheritedSocket(environment: [String: String] = ProcessInfo.processInfo.environment) throws(AgentServiceError) -> (descriptor: Int32, path: String)? {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        guard let pid = Int32(pidText), pid == getpid() else { return nil }
        guard let count = Int32(countText), count >= 1 else { return nil }
        guard count == 1 else { throw .inheritedSocket("\(count) sockets were passed; the agent listens on exactly one") }
        let fd = firstDescriptor
        var type: Int32 = 0, accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            throw .inheritedSocket("descriptor 3 is not a socket (\(String(cString: strerror(errno))))")
        }
        length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length)
        var address = sockaddr_un()
        var addressLength = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) } }
        guard type == Int32(SOCK_STREAM.rawValue), accepting == 1, named == 0, Int32(address.sun_family) == AF_UNIX else {
            throw .inheritedSocket("descriptor 3 is not a listening Unix stream socket (ListenStream= must be a path)")
        }
        let path = withUnsafeBytes(of: &address.sun_path) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return (fd, path)
    }
}
