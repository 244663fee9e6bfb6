import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The agent's listening Unix stream socket: bound at a path (mode 0600, a stale socket file
/// left by a dead agent replaced, one a live agent answers on refused), or inherited from
/// systemd. Only a file this value created is removed by `removeFile()`.
final class UnixListeningSocket: @unchecked Sendable {
    let path: String
    private(set) var descriptor: Int32
    /// The socket file this value bound (device and inode), so that `removeFile` never removes
    /// a file that another agent put there meanwhile.
    private let boundFile: (dev: UInt64, ino: UInt64)?

    /// Takes over a listening socket passed by systemd.
    init(inherited descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
        boundFile = nil
    }

    init(path: String) throws(AgentServiceError) {
        self.path = path
        var address = try Self.address(path)
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else { throw .socket(path: path, reason: "the path exists and is not a socket") }
            if let holder = try Self.probe(&address, path: path) { throw .socketInUse(path: path, holderPID: holder) }
            // Nobody listens: a dead agent's file.
            guard unlink(path) == 0 || errno == ENOENT else { throw .socket(path: path, reason: "cannot remove the stale socket file: \(String(cString: strerror(errno)))") }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(path: path, reason: String(cString: strerror(errno))) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard bound == 0 else {
            let e = errno
            Glibc.close(fd)
            if e == EADDRINUSE { throw .socketInUse(path: path, holderPID: nil) }
            throw .socket(path: path, reason: String(cString: strerror(e)))
        }
        // Owner only, before `listen`: until then no one can connect.
        guard chmod(path, 0o600) == 0, listen(fd, 1024) == 0, lstat(path, &st) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            unlink(path)
            throw .socket(path: path, reason: why)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        descriptor = fd
        boundFile = (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    /// Forgets the descriptor (the HTTP server took it over and closes it).
    func relinquish() { descriptor = -1 }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor); descriptor = -1 }
    }

    /// Removes the socket file if it is still the one this value bound.
    func removeFile() {
        guard let boundFile else { return }
        var st = stat()
        if lstat(path, &st) == 0, UInt64(st.st_dev) == boundFile.dev, UInt64(st.st_ino) == boundFile.ino { unlink(path) }
    }

    static func address(_ path: String) throws(AgentServiceError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
            throw .socket(path: path, reason: "a Unix socket path must be 1 to \(capacity - 1) bytes (this one is \(bytes.count))")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return address
    }

    /// Connects to the socket file: the process ID of the agent listening on it (0 when the
    /// kernel does not say), or nil when nobody listens (a stale file).
    private static func probe(_ address: inout sockaddr_un, path: String) throws(AgentServiceError) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(path: path, reason: String(cString: strerror(errno))) }
        defer { Glibc.close(fd) }
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        if rc == 0 { return PeerCredentials.of(socket: fd)?.processID ?? 0 }
        let e = errno
        if e == ECONNREFUSED || e == ENOENT { return nil }
        throw .socket(path: path, reason: "cannot tell whether an agent listens there: \(String(cString: strerror(e)))")
    }
}
