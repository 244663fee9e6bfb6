import CPOSIX
#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of a connected Unix socket, as the kernel vouches (SO_PEERCRED,
/// Linux): the user and process IDs it recorded when the peer connected.
public struct PeerCredentials: Sendable, Equatable {
    public var userID: uid_t
    public var processID: pid_t

    /// The peer of `socket`, or nil when it is not a connected Unix socket.
    public static func of(socket: Int32) -> PeerCredentials? {
        var uid: uid_t = 0
        var pid: pid_t = 0
        guard cposix_peer_credentials(socket, &uid, &pid) == 0 else { return nil }
        return PeerCredentials(userID: uid, processID: pid)
    }
}
